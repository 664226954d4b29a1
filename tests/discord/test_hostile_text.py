"""Hostile text through the command tree (issue 21 item 15): names and typed text made of
markdown, links, mentions and code fences never render as markup in any reply.

docs/commands.md: names and typed text are shown as typed, never as formatting, a link or a
mention. A value is escaped on its own where it is put into a sentence (rules.text.say), so
that `[a](…) or [b](…)` cannot leave its second link live (the issue's case). Here each value
goes in as a character's name (create, rename, import) and as typed text (`/spend reason`,
`/react what`, `/push what`), and every reply that shows it is read: each text display of its
card (title, lines, rows, list entries, small line). In each, the value stands only in its
escaped form, and none of its markup is left outside that form. The values are drawn from a
fixed seed: the same few dozen every run.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest

from bot.console.text import Style, Text
from bot.offline import Attachment, Result
from bot.render.common import escape
from tests.discord.conftest import Harness
from tests.render.test_escape import read

# Every kind of markup Discord draws, as a player would type it.
FRAGMENTS = [
    "[a](https://e.co/a)",
    "[b](https://e.co/b)",
    "@everyone",
    "@here",
    "<@123>",
    "<@&4242>",
    "<#77>",
    "<t:0:R>",
    "<:lg_crit:1>",
    ":smile:",
    "```",
    "`x`",
    "**b**",
    "__u__",
    "~~s~~",
    "||s||",
    "*i*",
    "_i_",
    "> q",
    ">>> q",
    "# h",
    "-# s",
    "- l",
    "1. n",
    "\\",
    "\\*",
    "https://e.co",
    "<https://e.co>",
    "](x)",
]
# What the bot's own words never hold: found outside a value's escaped form, it is a value's.
NEVER_THE_BOTS = ["](", "@everyone", "@here", "```", "||", "<t:0", "<@123>", "<#77>", ":smile:"]

ISSUE_REASON = "[a](https://e.co/a) or [b](https://e.co/b)"


def _drawn(rng: random.Random, count: int, limit: int) -> list[str]:
    """`count` texts of one to three fragments, at most `limit` characters, all different."""
    found: list[str] = []
    while len(found) < count:
        text = " ".join(rng.sample(FRAGMENTS, rng.randint(1, 3)))
        if len(text) <= limit and text not in found:
            found.append(text)
    return found


_RNG = random.Random(21)
# A name has at most 32 characters; each one needs a letter to stay apart from the others.
NAMES = ["[x](https://e.co/a)", "@everyone", "# Heading"] + [
    f"{text} {chr(ord('A') + i)}" for i, text in enumerate(_drawn(_RNG, 9, 28))
]
TEXTS = [ISSUE_REASON, "```py print() ```", *_drawn(_RNG, 10, 90)]


def texts(result: Result) -> Iterator[str]:
    """Every text of every message a member sees: each text display's markdown, in order (a
    layout message has no content and no embed: conftest.assert_layout)."""
    for message in result.messages:
        yield from message.card.texts


def shown_literally(result: Result, *values: str) -> None:
    """Each value appears in the result, and only escaped (a form that Discord's markdown
    reads as the value's own characters, no markup: tests/render/test_escape.py): outside
    that form there is no trace of it, nor any markup the bot's own words never hold."""
    all_text = list(texts(result))
    for value in values:
        shown = escape(value)
        assert read(shown) == (value, []), f"{shown!r} reads as markup in Discord"
        assert any(shown in text for text in all_text), f"{shown!r} not in {all_text!r}"
    for text in all_text:
        rest = text
        for value in sorted(values, key=len, reverse=True):
            rest = rest.replace(escape(value), "\x00")
        for value in values:
            assert value == escape(value) or value not in rest, f"{value!r} raw in {text!r}"
        for markup in NEVER_THE_BOTS:
            assert markup not in rest, f"{markup!r} left in {text!r}"


def console_shows(result: Result, *values: str) -> None:
    """The console reads the reply as a member sees it: each value as typed."""
    console = Text(users={}, roles={}, channels={}, now=lambda: datetime.now(UTC), style=Style())
    seen = "\n".join(console.inline(text) for text in texts(result))
    for value in values:
        assert value in seen, f"{value!r} not in the console's {seen!r}"


def test_the_check_sees_the_issues_live_link() -> None:
    """The check itself: the headline the issue found (escaped once, whole) fails it."""
    import discord

    broken = discord.utils.escape_markdown(f"Plain spends 1 Stamina on {ISSUE_REASON}.")
    rest = broken.replace(escape(ISSUE_REASON), "\x00")
    assert "](" in rest  # the second link is live


@pytest.mark.parametrize(("name", "typed"), list(zip(NAMES, TEXTS, strict=True)), ids=str)
async def test_hostile_names_and_typed_text_never_render_as_markup(harness: Harness, name, typed):
    owner = harness.owner
    created = await harness.run(owner, "character create", name=name)
    assert not created.ephemeral, created.text()
    shown_literally(created, name)
    console_shows(created, name)

    spent = await harness.run(owner, "spend", character=name, amount=1, reason=typed)
    shown_literally(spent, name, typed)
    console_shows(spent, name, typed)
    reacted = await harness.run(owner, "react", character=name, what=typed)
    shown_literally(reacted, name, typed)
    harness.script_values(4)  # the d6 of the pushed Check
    pushed = await harness.run(owner, "push", character=name, amount=1, what=typed, roll="1d6")
    shown_literally(pushed, name, typed)
    damaged = await harness.run(owner, "damage", character=name, amount=1)
    shown_literally(damaged, name)

    for result in (
        await harness.run(owner, "character show", character=name, public=True),
        await harness.run(owner, "character list"),
    ):
        shown_literally(result, name)
    history = await harness.run(owner, "history", character=name)
    shown_literally(history, name, typed)

    # Renamed, the new name is shown alone too; and the old one, in the change line.
    renamed_to = f"{typed[:20].strip()} Z"
    renamed = await harness.run(owner, "character edit", character=name, name=renamed_to)
    assert not renamed.ephemeral, renamed.text()
    shown_literally(renamed, name, renamed_to)


@pytest.mark.parametrize("name", NAMES[:6], ids=str)
async def test_a_hostile_imported_name_never_renders_as_markup(harness: Harness, name):
    await harness.add_character("Roryn", vit=5)
    export = await harness.run(harness.owner, "character export", character="Roryn")
    [(_, data)] = export.reply.files
    document = json.loads(data)
    document["sheet"]["name"] = name
    raw = json.dumps(document).encode()
    imported = await harness.run(
        harness.owner, "character import", file=Attachment("sheet.json", raw)
    )
    assert not imported.ephemeral and imported.card.title, imported.text()
    shown_literally(imported, name)
    console_shows(imported, name)
