"""RuleError: the template, the values (names, typed text) and their escaping."""

from __future__ import annotations

from rules.errors import RuleError


def escape(text: str) -> str:
    return text.replace("*", "\\*").replace("@", "@\u200b")


def test_str_inserts_the_values_as_they_are():
    error = RuleError("{name} has {n} Stamina.", name="**Ro**", n=3)
    assert str(error) == "**Ro** has 3 Stamina."
    assert error.template == "{name} has {n} Stamina."
    assert error.values == {"name": "**Ro**", "n": 3}


def test_render_escapes_every_value_and_never_the_template():
    error = RuleError("*Note*: {name} pinged {who}.", name="**Ro**", who="@everyone")
    assert error.render(escape) == "*Note*: \\*\\*Ro\\*\\* pinged @\u200beveryone."


def test_render_turns_non_text_values_into_text_first():
    error = RuleError("{n} dice", n=12)
    assert error.render(lambda text: f"<{text}>") == "<12> dice"


def test_a_template_without_values_is_the_message():
    error = RuleError("Only the GM can do that (P-3).")
    assert str(error) == error.template == "Only the GM can do that (P-3)."
    assert error.values == {}
    assert error.render(escape) == "Only the GM can do that (P-3)."


def test_braces_in_a_value_are_not_formatted_again():
    error = RuleError("{name} is Dead.", name="{name} {0}")
    assert str(error) == "{name} {0} is Dead."
    assert error.render(escape) == "{name} {0} is Dead."
