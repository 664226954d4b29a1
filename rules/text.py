"""A sentence of the rules with the user's values kept apart from the bot's words.

A headline or a note names a character, or quotes what a player typed (`what`, `reason`).
Escaped as a whole after the values are in it, a sentence can still carry live markup: an
escape that sees `[a](…) or [b](…)` at once escapes only what it takes for one span. So each
value is escaped on its own, where it is put into the sentence (docs/commands.md: names and
typed text are shown literally), as a refusal's values are (rules.errors.RuleError).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated

from pydantic import PlainValidator


class Text(str):
    """`say("{name} takes {amount} damage.", name=sheet.name, amount=3)`: the sentence as plain
    text (logs, tests, the console read it as a `str`), with its template and values kept for
    `render`, which escapes each value alone. Text made without values is the bot's own words,
    or text of unknown origin: `render` escapes it whole. Only a value that is a string is
    escaped: a number is the bot's own."""

    __slots__ = ("template", "values")
    template: str
    values: dict[str, object]

    def __new__(cls, template: str, /, **values: object) -> Text:
        self = super().__new__(cls, template.format(**values) if values else template)
        self.template = template
        self.values = values
        return self

    def render(self, escape: Callable[[str], str]) -> str:
        if not self.values:
            return escape(self.template)
        return self.template.format(
            **{k: escape(v) if isinstance(v, str) else v for k, v in self.values.items()}
        )

    def __reduce__(self) -> tuple[object, ...]:
        return (_remake, (self.template, self.values))


def _remake(template: str, values: dict[str, object]) -> Text:
    return Text(template, **values)


def say(template: str, /, **values: object) -> Text:
    """A sentence whose `{fields}` are filled with `values`: every name and every typed text
    goes in as a value, never into the template (an f-string would make it the bot's words)."""
    return Text(template, **values)


def as_text(value: object) -> Text:
    """A headline or note as Text: a plain string is kept as text of unknown origin."""
    return value if isinstance(value, Text) else Text(str(value))


# A model's field that keeps its values apart: never coerced to a plain str (a headline, a
# note, a roll's label such as `Check ({what})`).
TextField = Annotated[Text, PlainValidator(as_text)]
