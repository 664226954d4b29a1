"""escape: a typed name or text shown literally. Its shortcut (text with nothing to escape comes
back as it is) must agree with discord.py's escapes on every text."""

from __future__ import annotations

import discord
from hypothesis import example, given, settings
from hypothesis import strategies as st

from bot.render.common import escape

# Every character discord.py's escapes react to, and the ones around them, often.
_TRICKY = st.sampled_from(list("@_\\~|*`>#[]()-: \n\t<.!&/ehrvoyn0123456789"))
_TEXT = st.lists(st.one_of(_TRICKY, st.characters()), max_size=40).map("".join)


def _discord(text: str) -> str:
    return discord.utils.escape_markdown(discord.utils.escape_mentions(text))


@settings(max_examples=3000, deadline=None)
@given(_TEXT)
@example("Roryn takes 3 damage: VIT 1 → -1 · Up → Critical.")
@example("- a list item")
@example("  - an indented one")
@example("> a quote")
@example("# a heading")
@example("[a](link)")
@example("@everyone")
@example("<@123456789012345678>")
@example("https://example.com/a_b")
@example("line one\n-line two")
def test_escape_agrees_with_discord_py(text: str) -> None:
    assert escape.__wrapped__(text) == _discord(text)


def test_plain_text_comes_back_as_it_is() -> None:
    plain = "Hero 000123 takes 4 damage: VIT 10 → 6 (-4)."
    assert escape(plain) == plain
    assert escape("Tam_the_Bold") == "Tam\\_the\\_Bold"
    assert escape("@everyone") == "@\u200beveryone"
