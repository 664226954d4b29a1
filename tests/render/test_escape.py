"""escape: a typed name or text shown literally (issue 21 item 15; docs/commands.md: names and
typed text are shown as typed, never as formatting, a link or a mention).

The property that matters: the escaped text, read by a reader of Discord's markdown rules,
shows exactly the original characters and no markup at all. discord.py's own escape fails it:
it escapes the first `[` of `[a](…) or [b](…)` only, and the second link stays live.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

import discord
from hypothesis import example, given, settings
from hypothesis import strategies as st

from bot.console.text import Style, Text
from bot.render.common import escape

# What starts or closes markup in Discord (developer docs, "Message Formatting"; Discord's
# markdown rules), anywhere in a line.
MARKUP_ANYWHERE = set("*_~|`>#[]<@")
# A list item or small text at a line's start: `- `, `+ `, `* `, `1. `, `-# `.
LIST_MARKER = re.compile(r"[ \t]*(?:[-+*]|\d+\.)")


def read(text: str) -> tuple[str, list[str]]:
    """`text` as Discord shows it: the characters a reader sees, and every markup it would
    draw (an unescaped markup character, a bare link, a list marker at a line's start).

    Discord's escape rule: a backslash before any character that is not a letter, a digit or
    a space shows that character as itself and starts nothing."""
    shown: list[str] = []
    markup: list[str] = []
    line_start = True
    i = 0
    while i < len(text):
        char = text[i]
        if line_start:
            marker = LIST_MARKER.match(text, i)
            if marker is not None and marker.group().strip():
                markup.append(f"list marker {marker.group()!r} at {i}")
        line_start = char == "\n"
        nxt = text[i + 1] if i + 1 < len(text) else ""
        if char == "\\" and nxt and not (nxt.isascii() and nxt.isalnum()) and not nxt.isspace():
            shown.append(nxt)
            i += 2
            continue
        if char in MARKUP_ANYWHERE:
            markup.append(f"{char!r} at {i}")
        if text.startswith("://", i) and shown and shown[-1].isalnum():
            markup.append(f"a bare link at {i}")
        shown.append(char)
        i += 1
    return "".join(shown), markup


def test_the_reader_sees_discord_py_leave_the_second_link_live() -> None:
    """Item 15's cause (b): discord.py escapes only the first `[` of the span."""
    typed = "[a](https://e.co/a) or [b](https://e.co/b)"
    _, markup = read(discord.utils.escape_markdown(typed))
    assert markup, "the reader must see the second link"
    shown, markup = read(escape(typed))
    assert (shown, markup) == (typed, [])


# Every character that starts markup, the ones around them, and any character at all.
_TRICKY = st.sampled_from(list("@_\\~|*`>#[]()-+.:/ \n\t<!&ehrvoytps0123456789"))
_TOKENS = st.sampled_from(
    [
        "@everyone",
        "@here",
        "<@123>",
        "<@!123>",
        "<@&4242>",
        "<#77>",
        "<t:1796062768:R>",
        "<:lg_crit:123>",
        ":smile:",
        "```py\ncode\n```",
        "[a](https://e.co/a)",
        "https://e.co/a",
        "<https://e.co>",
        "-# small",
        "# heading",
        "> quote",
        ">>> quote",
        "1. item",
        "- item",
        "||spoiler||",
        "**b**",
        "__u__",
        "~~s~~",
    ]
)
_TEXT = st.lists(st.one_of(_TRICKY, _TOKENS, st.characters()), max_size=40).map("".join)


@settings(max_examples=1500, deadline=None)
@given(_TEXT)
@example("[a](https://e.co/a) or [b](https://e.co/b)")
@example("Roryn takes 3 damage: VIT 1 → -1 · Up → Critical.")
@example("- a list item")
@example("  - an indented one")
@example("line one\n-# line two")
@example("12. twelfth")
@example("> a quote")
@example("# a heading")
@example("@everyone and @here")
@example("<@123456789012345678> <#1> <@&2> <t:0:R>")
@example("```\nfenced\n```")
@example("https://example.com/a_b")
@example("ends with a backslash \\")
@example("\\[not a link](x)")
@example("\\é and \\a")
def test_escaped_text_reads_back_as_typed_with_no_markup(text: str) -> None:
    shown, markup = read(escape(text))
    assert markup == [], (escape(text), markup)
    assert shown == text


@settings(max_examples=500, deadline=None)
@given(_TEXT)
def test_escaped_text_reads_back_as_typed_inside_a_sentence(text: str) -> None:
    """A value in a headline is not at a line's start, and bold wraps it: still no markup."""
    value = text.replace("\n", " ")
    shown, markup = read(f"Roryn spends 1 Stamina on {escape(value)}.")
    assert markup == [] and shown == f"Roryn spends 1 Stamina on {value}."


def _console() -> Text:
    return Text(users={}, roles={}, channels={}, now=lambda: datetime.now(UTC), style=Style())


@settings(max_examples=500, deadline=None)
@given(_TEXT)
def test_the_console_shows_escaped_text_as_a_member_sees_it(text: str) -> None:
    """bot/console/text.py undoes the escapes: the typed text, no backslash, no token read."""
    value = text.replace("\n", " ").strip()
    assert _console().inline(escape(value)) == value


def test_plain_text_comes_back_as_it_is() -> None:
    """The fast path: nothing to escape, the very same text."""
    plain = "Hero 000123 takes 4 damage: VIT 10 → 6 (-4)."
    assert escape.__wrapped__(plain) is plain
    assert escape("Gus 🧙‍♂️ the Grey") == "Gus 🧙‍♂️ the Grey"
    assert escape("Tam_the_Bold") == "Tam\\_the\\_Bold"
    assert escape("@everyone") == "\\@everyone"
    assert escape("-# small") == "\\-\\# small"
    assert escape("see https://e.co") == "see https\\://e.co"
