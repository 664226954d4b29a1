"""Discord's limits of one message, at the limits: 4,000 characters of text and 40 components
(counted as discord.py counts them), whatever a table holds (docs/commands.md, "How every
message is built"). A long list is cut with "… and N more", never refused by Discord: the
offline driver refuses an oversized message as Discord does, so a reply that passes here was
taken whole.

The longest texts a table can make: names of 32 emoji sequences of seven code points each (a
family), or 32 markup characters that each escape to two; typed texts of 200 markup characters
(the option's longest), which escape to 400."""

from __future__ import annotations

import re

import pytest

from bot.offline import Message
from bot.offline.layout import COMPONENTS_LIMIT, TEXT_LIMIT, count, text_length
from rules.models import Emotion
from tests.discord.conftest import Harness, history_entries

FAMILY = "👨\u200d👩\u200d👧\u200d👦"  # one emoji: seven code points, one grapheme
MARKUP = "*_~`|>#[]<@\\"


def longest_names(count_: int, kind: str) -> list[str]:
    """`count_` distinct names of 32 graphemes each, as long as text can make them."""
    names = []
    for i in range(count_):
        tag = f"{i:02d}"
        if kind == "emoji":
            names.append(tag + FAMILY * 30)
        else:
            body = (MARKUP * 3)[: 32 - len(tag)]
            names.append(tag + body)
    return names


def within_limits(message: Message) -> None:
    assert count(message.components) <= COMPONENTS_LIMIT, count(message.components)
    assert text_length(message.components) <= TEXT_LIMIT, text_length(message.components)


def more(message: Message) -> int:
    """N of the "… and N more" that closes a cut list (0: nothing left out)."""
    found = re.findall(r"… and (\d+) more", message.card.markdown)
    assert len(found) <= 1, found
    return int(found[0]) if found else 0


@pytest.mark.parametrize("kind", ["emoji", "markup"])
async def test_a_board_of_the_longest_names_in_every_state_fits(harness: Harness, kind):
    """A combat of 40: the board shows 25 lines at most (then "… and N more"), each line as
    long as a character's line can be (Stress, two emotions near their threshold, a
    Breakdown, its roll), and cuts the lines that do not fit: every character is shown or
    counted."""
    names = longest_names(40, kind)
    for i, name in enumerate(names):
        state = [
            {"vit": -1, "res": 3},  # Critical: rolls now
            {"vit": -3, "res": 2},  # Dying: the Last Gasp now
            {"vit": 4, "stress": 3, "anger": 3, "fear": 4, "breakdown": Emotion.FEAR},
        ][i % 3]
        await harness.add_character(name, **state)
    await harness.start_combat(names)
    started = await harness.run(harness.gm, "board start")
    assert started.ephemeral
    [board] = harness.driver.channel_messages.values()
    within_limits(board)
    shown = [n for n in names if any(n in line for line in _unescaped(board))]
    assert 0 < len(shown) <= 25
    assert more(board) == len(names) - len(shown)  # every one shown or counted
    assert [b.label for b in board.card.buttons] == ["Next round", "My sheet"]


def _unescaped(message: Message) -> list[str]:
    """The board's lines with Discord's escapes undone (a name is shown escaped)."""
    return [re.sub(r"\\(.)", r"\1", line) for line in message.card.lines]


async def test_a_25_row_history_of_the_longest_notes_fits(harness: Harness):
    """/history's 25 rows, each an event with a long escaped name and a 200-character typed
    text: cut to what fits, the rest counted."""
    [name] = longest_names(1, "markup")
    await harness.add_character(name, stamina=8, logged=True)
    what = (MARKUP * 20)[:200]
    for _ in range(24):
        await harness.run(harness.owner, "spend", character=name, amount=1, reason=what)
        await harness.update(name, stamina=8)
    result = await harness.run(harness.owner, "history", character=name, limit=25)
    within_limits(result.reply)
    entries = history_entries(result)
    assert entries and all(e.name == "/spend" for e in entries[:-1])
    assert len(entries) + more(result.reply) == 25  # shown or counted
    assert more(result.reply) > 0  # 25 such rows cannot all fit in 4,000 characters


@pytest.mark.parametrize("kind", ["emoji", "markup"])
async def test_the_character_list_of_a_big_server_fits(harness: Harness, kind):
    names = longest_names(60, kind)
    for name in names:
        await harness.add_character(name)
    result = await harness.run(harness.player, "character list")
    within_limits(result.reply)
    shown = [n for n in names if any(n in line for line in _unescaped(result.reply))]
    assert len(shown) + more(result.reply) == len(names)
    assert result.card.small == "60 characters"


@pytest.mark.parametrize("kind", ["emoji", "markup"])
async def test_a_result_and_a_sheet_of_the_longest_name_and_text_fit(harness: Harness, kind):
    [name] = longest_names(1, kind)
    await harness.add_character(name, stress=9999, anger=3, breakdown=Emotion.ANGER)
    what = (MARKUP * 20)[:200]
    harness.script_values(20)
    pushed = await harness.run(
        harness.owner, "push", character=name, amount=2, roll="1d20+2", target=15, what=what
    )
    within_limits(pushed.reply)
    assert pushed.card.title is not None and not pushed.ephemeral
    shown = await harness.run(harness.owner, "character show", character=name)
    within_limits(shown.reply)
    assert len(shown.card.lines) >= 6  # the sheet whole: its rows are not a list to cut
