"""The refusal every rule raises: a leaf module, so that any part of rules/ can use it."""

from __future__ import annotations

from collections.abc import Callable


class RuleError(Exception):
    """A refused action, told to the player as it is: say what was wrong and what to do instead.

    Names and typed text go in `values`, never into the template itself: `str()` inserts them
    as they are (logs, tests), `render(escape)` escapes them for a chat message, so that a name
    can never format or ping there.

        RuleError("{name} is Dead: {doing} is not possible.", name=sheet.name, doing="healing")
    """

    def __init__(self, template: str, /, **values: object) -> None:
        self.template = template
        self.values = values
        super().__init__(template.format(**values) if values else template)

    def render(self, escape: Callable[[str], str]) -> str:
        """The message with every value escaped by `escape`."""
        if not self.values:
            return self.template
        return self.template.format(**{k: escape(str(v)) for k, v in self.values.items()})
