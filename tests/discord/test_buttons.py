"""The buttons of a result, clicked as Discord sends clicks (docs/commands.md, "The next step is
one click"): raw component payloads through discord.py's dynamic items, answers captured at the
HTTP seam, exact dice.

- "Recovery roll" on the announcement of a fall to Unconscious or Critical, "Roll the Last Gasp"
  on the announcement of Dying, "Odds" on the results of a character that is down.
- Pressed by the owner or the GM, a recovery button posts the roll publicly exactly as /recover
  does; anyone else is told privately and nothing changes; R-8 holds; a stale button says so.
- Buttons keep working after a restart (a new bot, a new driver, the same database file).
- Every click is answered exactly once (one interaction callback), an unknown one "expired".
- The Last Gasp is an event: its own colour, a picture, the name in the headline, public.
"""

from __future__ import annotations

import asyncio
import copy
import io
import logging
from datetime import timedelta
from typing import Any

import pytest
from PIL import Image

import rules.vitality
from bot.app import create_bot
from bot.offline import EPHEMERAL, Message, OfflineDriver, Result, snowflake
from bot.offline.layout import Seen
from bot.render.common import FILE_LIMIT, LAST_GASP_COLOUR, STATE_COLOURS
from rules.dice import ScriptedRandom
from rules.models import State
from tests.discord.conftest import Harness, assert_refused

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
LAST_GASP_FILE = "last-gasp.png"
EXPIRED = "This button has expired"
LABEL_STYLE = {"Recovery roll": 1, "Roll the Last Gasp": 4, "Odds": 2}


# --- helpers -------------------------------------------------------------------------------------


def callbacks(result: Result) -> list[Any]:
    return [r for r in result.requests if r.path.endswith("/callback")]


def answered_once(result: Result) -> Any:
    """Exactly one interaction callback: the click was answered, and only once."""
    found = callbacks(result)
    assert len(found) == 1, f"{len(found)} callbacks: {[r.payload for r in result.requests]}"
    return found[0]


def buttons(message: Message) -> dict[str, str]:
    """label -> custom id of every button on a message, wherever it sits (a section's
    accessory or an action row; style checked against its label)."""
    found: dict[str, str] = {}
    for button in message.card.buttons:
        assert button.label not in found, f"two buttons labelled {button.label!r}"
        if button.label in LABEL_STYLE:
            assert button.style == LABEL_STYLE[button.label], button
        found[button.label] = button.custom_id
    return found


def old_message(custom_id: str, *, label: str = "Recovery roll", flags: int = 0) -> Message:
    """A message of the bot's carrying one button in an action row, as an older version (one
    that sent embeds) or another process may have left it in the channel: Discord sends a
    click only for a button that is there."""
    return Message(
        id=snowflake(),
        kind="reply",
        flags=flags,
        components=[
            {
                "type": 1,
                "components": [{"type": 2, "style": 1, "label": label, "custom_id": custom_id}],
            }
        ],
    )


async def fall_to(harness: Harness, state: str, *, combat: bool = True, res: int = 2) -> Result:
    """Roryn (RES `res`) falls from Up to `state` with one /damage by its owner."""
    amount = {"Unconscious": 1, "Critical": 2, "Dying": 1 + res + 1}[state]
    await harness.add_character("Roryn", vit=1, res=res)
    if combat:
        await harness.start_combat(["Roryn"])
    fall = await harness.run(harness.owner, "damage", character="Roryn", amount=amount)
    assert f"→ {state}" in fall.card.body, fall.text()
    return fall


def public_roll(result: Result) -> Seen:
    callback = answered_once(result)
    assert callback.payload["type"] == 4
    assert not result.reply.ephemeral
    assert not (callback.payload["data"].get("flags") or 0) & EPHEMERAL
    return result.card


# --- the buttons on results ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("state", "label", "vit"),
    [("Unconscious", "Recovery roll", 0), ("Critical", "Recovery roll", -1)],
)
async def test_a_fall_carries_the_recovery_roll_and_odds(harness, state, label, vit):
    fall = await fall_to(harness, state)
    row_id = (await harness.row("Roryn")).id
    assert buttons(fall.reply) == {
        label: f"lg:recover:{row_id}:{vit}:2",
        "Odds": f"lg:odds:{row_id}",
    }


async def test_a_fall_to_dying_carries_roll_the_last_gasp(harness):
    fall = await fall_to(harness, "Dying", res=1)
    row_id = (await harness.row("Roryn")).id
    assert buttons(fall.reply) == {
        "Roll the Last Gasp": f"lg:recover:{row_id}:-2:1",
        "Odds": f"lg:odds:{row_id}",
    }


async def test_results_of_a_down_character_carry_odds_only_a_fall_carries_the_roll(harness):
    await harness.add_character("Roryn", vit=0, res=2)  # Unconscious already
    await harness.start_combat(["Roryn"])
    harness.script("M H")
    roll = await harness.run(harness.owner, "recover", character="Roryn")
    assert "No Crit" in roll.card.body
    row_id = (await harness.row("Roryn")).id
    assert buttons(roll.reply) == {"Odds": f"lg:odds:{row_id}"}
    # A character that is Up, after a result that leaves it Up, gets no button at all.
    await harness.add_character("Bea", vit=8)
    hit = await harness.run(harness.owner, "damage", character="Bea", amount=2)
    assert hit.card.buttons == ()


# --- Recovery roll: who may press it, and what it posts ------------------------------------------


@pytest.mark.parametrize("presser", ["owner", "gm"])
async def test_the_recovery_button_posts_the_roll_exactly_as_recover_does(harness, presser):
    fall = await fall_to(harness, "Critical", res=2)  # RES 2 + VIT -1: one die
    before = await harness.sheet("Roryn")
    member = getattr(harness, presser)
    harness.script("C")
    clicked = await harness.click(member, fall.reply, buttons(fall.reply)["Recovery roll"])
    card = public_roll(clicked)
    assert "Stabilised! One Crit: Roryn is Unconscious at VIT 0." in card.body
    assert (await harness.sheet("Roryn")).vit == 0
    [event, *_] = await harness.history("Roryn")
    assert (event.command, event.user_id) == ("recover", member.user_id)

    # The same roll, typed: put Roryn back as it was and roll the same die with /recover.
    await harness.update("Roryn", **before.model_dump(exclude={"name"}))
    harness.script("C")
    typed = await harness.run(member, "recover", character="Roryn")
    public_roll(typed)
    assert clicked.card == typed.card
    assert clicked.reply.components == typed.reply.components  # the whole tree, buttons too
    assert clicked.reply.files == typed.reply.files
    assert clicked.reply.ephemeral is typed.reply.ephemeral is False


async def test_another_player_is_refused_privately_and_nothing_changes_P_4(harness):
    fall = await fall_to(harness, "Critical")
    before = await harness.snapshot()
    harness.script("C")
    refused = await harness.click(harness.player, fall.reply, buttons(fall.reply)["Recovery roll"])
    answered_once(refused)
    assert_refused(refused, "belongs to another player")
    assert await harness.snapshot() == before
    assert harness.bot.rng.remaining == 1  # no die was rolled


async def test_R_8_holds_through_the_button_in_combat(harness):
    fall = await fall_to(harness, "Unconscious", res=2)
    button = buttons(fall.reply)["Recovery roll"]
    harness.script("M H")
    first = await harness.click(harness.owner, fall.reply, button)
    assert "No Crit" in public_roll(first).body
    # VIT and RES are as announced, so the button is current, but the round's roll is made.
    before = await harness.snapshot()
    harness.script("C C")
    again = await harness.click(harness.owner, fall.reply, button)
    answered_once(again)
    assert_refused(again, "already made its recovery roll this round")
    assert await harness.snapshot() == before
    assert harness.bot.rng.remaining == 2
    # The GM is held to it too; the next round opens the next roll.
    gm_again = await harness.click(harness.gm, fall.reply, button)
    assert_refused(gm_again, "already made its recovery roll this round")
    await harness.run(harness.gm, "round")
    rolled = await harness.click(harness.owner, fall.reply, button)
    assert "Roryn" in public_roll(rolled).body
    assert (await harness.sheet("Roryn")).vit == 2  # two Crits wake it at VIT 2


async def test_R_8_outside_combat_only_the_gm_calls_the_roll(harness):
    fall = await fall_to(harness, "Critical", combat=False)
    button = buttons(fall.reply)["Recovery roll"]
    before = await harness.snapshot()
    harness.script("C")
    owner = await harness.click(harness.owner, fall.reply, button)
    answered_once(owner)
    assert_refused(owner, "Outside combat only the GM calls for a recovery roll (R-8)")
    assert await harness.snapshot() == before
    gm = await harness.click(harness.gm, fall.reply, button)
    assert "Stabilised!" in public_roll(gm).body


@pytest.mark.parametrize(
    ("command", "options"),
    [
        ("damage", {"amount": 1}),  # VIT changed since
        ("heal", {"amount": 1}),
        ("character edit", {"res": 5}),  # RES changed since
    ],
)
async def test_a_stale_button_says_so_privately_and_rolls_nothing(harness, command, options):
    fall = await fall_to(harness, "Critical", res=3)
    await harness.run(harness.gm, command, character="Roryn", **options)
    before = await harness.snapshot()
    harness.script("C C C C C C C C")
    stale = await harness.click(harness.owner, fall.reply, buttons(fall.reply)["Recovery roll"])
    answered_once(stale)
    text = assert_refused(stale, "out of date", "Nothing was rolled", "/recover")
    assert "Roryn" in text
    assert await harness.snapshot() == before
    assert harness.bot.rng.remaining == 8


# --- after a restart -----------------------------------------------------------------------------


async def test_buttons_keep_working_after_a_restart(tmp_path):
    url = f"sqlite+aiosqlite:///{tmp_path / 'lastgasp.db'}"
    first = OfflineDriver(create_bot(url, rng=ScriptedRandom()))
    try:
        await first.start()
        guild = first.add_guild(name="The Table")
        owner = first.member(guild, "Alice")
        gm = first.member(guild, "Gemma", manage_guild=True)
        await first.invoke(owner, "character create", name="Roryn", res=2)
        await first.invoke(gm, "combat start")
        await first.invoke(gm, "combat add", character="Roryn")
        fall = await first.invoke(owner, "damage", character="Roryn", amount=11)
        assert "→ Critical" in fall.card.body, fall.text()
        asked = await first.invoke(owner, "character delete", character="Roryn")
    finally:
        await first.close()

    # A new process: a new bot and driver on the same file; Discord still shows old messages.
    second = OfflineDriver(create_bot(url, rng=ScriptedRandom.faces("C")))
    try:
        await second.start()
        second.add_guild(guild.id, name="The Table", channel_id=guild.channel_id)
        recovery = buttons(fall.reply)["Recovery roll"]
        rolled = await second.click(owner, fall.reply, recovery)
        assert "Stabilised! One Crit: Roryn is Unconscious at VIT 0." in public_roll(rolled).body
        odds = await second.click(owner, fall.reply, buttons(fall.reply)["Odds"])
        answered_once(odds)
        assert odds.reply.ephemeral and "Unconscious at VIT 0/10" in odds.card.body
        # The same recovery button is now stale (VIT moved), after the restart as before.
        stale = await second.click(owner, fall.reply, recovery)
        assert_refused(stale, "out of date")
        # The delete question asked before the restart is still answered by its asker.
        confirm = next(i for i in asked.reply.custom_ids() if ":confirm:" in i)
        done = await second.click(owner, asked.reply, confirm)
        answered_once(done)
        assert "Deleted **Roryn**" in done.reply.card.body
        async with second.bot.db.transaction(guild.id, read_only=True) as uow:
            assert await uow.character("Roryn", lock=False) is None
    finally:
        await second.close()


# --- Odds ----------------------------------------------------------------------------------------


async def test_odds_are_private_and_current(harness):
    fall = await fall_to(harness, "Unconscious", res=2)
    odds_button = buttons(fall.reply)["Odds"]
    # Roryn falls further after the announcement: the odds are those of now, not of then.
    await harness.run(harness.owner, "damage", character="Roryn", amount=1)
    before = await harness.snapshot()
    for member in (harness.owner, harness.player):  # any member of the guild may look
        odds = await harness.click(member, fall.reply, odds_button)
        callback = answered_once(odds)
        assert callback.payload["data"]["flags"] & EPHEMERAL
        assert odds.reply.ephemeral
        description = odds.card.body
        assert "Critical at VIT -1/10" in description and "1 die" in description, description
        assert "Roryn" in odds.card.title
    assert await harness.snapshot() == before


# --- the delete question -------------------------------------------------------------------------


async def ask_delete(harness: Harness) -> tuple[Result, str, str]:
    await harness.add_character("Bea", vit=3)
    asked = await harness.run(harness.owner, "character delete", character="Bea")
    assert asked.reply.ephemeral
    ids = asked.reply.custom_ids()
    confirm = next(i for i in ids if i.startswith("lg:delete:confirm:"))
    cancel = next(i for i in ids if i.startswith("lg:delete:cancel:"))
    return asked, confirm, cancel


async def test_delete_confirmed_by_its_asker(harness):
    asked, confirm, _ = await ask_delete(harness)
    done = await harness.click(harness.owner, asked.reply, confirm)
    callback = answered_once(done)
    assert callback.payload["type"] == 7  # the question is replaced by its answer
    assert done.reply.card.body == "Deleted **Bea**."
    assert done.reply.card.buttons == ()
    async with harness.db.transaction(harness.guild.id, read_only=True) as uow:
        assert await uow.character("Bea", lock=False) is None


async def test_a_question_asked_before_layouts_is_answered_as_a_layout(harness):
    """A delete question the bot sent before it built its messages from layout components (text
    and a row of buttons), answered after the upgrade: the answer replaces it as a layout card,
    clearing its text, which Discord requires of an edit that makes a message a layout."""
    _, _, cancel = await ask_delete(harness)
    old = old_message(cancel, label="Cancel", flags=EPHEMERAL)
    old.content = "Delete **Bea** for good? Its history stays in the log."
    kept = await harness.click(harness.owner, old, cancel)
    callback = answered_once(kept)
    assert callback.payload["type"] == 7
    assert callback.payload["data"]["content"] is None and callback.payload["data"]["embeds"] == []
    assert kept.reply.layout and kept.reply.content == ""
    assert kept.card.body == "Nothing was deleted."


async def test_delete_cancelled_by_its_asker(harness):
    asked, _, cancel = await ask_delete(harness)
    before = await harness.snapshot()
    kept = await harness.click(harness.owner, asked.reply, cancel)
    assert answered_once(kept).payload["type"] == 7
    assert kept.reply.card.body == "Nothing was deleted."
    assert await harness.snapshot() == before


@pytest.mark.parametrize("action", ["confirm", "cancel"])
async def test_delete_answered_by_someone_else_is_refused(harness, action):
    asked, confirm, cancel = await ask_delete(harness)
    before = await harness.snapshot()
    for member in (harness.player, harness.gm):
        other = await harness.click(member, asked.reply, confirm if action == "confirm" else cancel)
        answered_once(other)
        assert_refused(other, "Only the member who asked to delete can answer")
    assert await harness.snapshot() == before
    # The question stays open for its asker.
    done = await harness.click(harness.owner, asked.reply, confirm)
    assert done.reply.card.body == "Deleted **Bea**."


async def test_delete_answered_after_its_until_has_expired(harness):
    asked, confirm, cancel = await ask_delete(harness)
    until = int(confirm.rsplit(":", 1)[1])
    now = harness.bot.clock()
    assert until > now.timestamp()
    before = await harness.snapshot()
    # An hour later, by the bot's clock (the one the question's `until` was set by).
    harness.bot.clock = lambda: now + timedelta(hours=1)
    for custom_id in (confirm, cancel):
        late = await harness.click(harness.owner, asked.reply, custom_id)
        answered_once(late)
        assert_refused(late, EXPIRED)
    assert await harness.snapshot() == before


# --- unknown buttons -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "custom_id",
    [
        "delete:confirm:abc123",  # an older version's
        "lg:recover:x",
        "lg:recover:1:2",
        "lg:delete:confirm:1:2",
        "lg:odds:",
        "lg:board:round:",
        "something else entirely",
    ],
)
async def test_an_unknown_button_gets_one_private_expired_answer(harness, custom_id, caplog):
    await harness.add_character("Roryn", vit=0)
    before = await harness.snapshot()
    with caplog.at_level(logging.INFO, logger="lastgasp"):
        result = await harness.click(harness.owner, old_message(custom_id), custom_id)
    callback = answered_once(result)
    assert callback.payload["data"]["flags"] & EPHEMERAL
    assert result.requests == [callback]
    assert_refused(result, EXPIRED)
    assert await harness.snapshot() == before
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


async def test_a_button_for_a_character_that_is_gone_is_answered_once(harness):
    await harness.add_character("Roryn", vit=0)
    row_id = (await harness.row("Roryn")).id
    for custom_id in (f"lg:odds:{row_id + 1000}", f"lg:recover:{row_id + 1000}:0:2"):
        result = await harness.click(harness.gm, old_message(custom_id), custom_id)
        answered_once(result)
        text = assert_refused(result)
        assert "Something went wrong" not in text


async def test_a_character_of_another_guild_cannot_be_reached_by_a_button(harness):
    await harness.add_character("Roryn", vit=0, res=2, owner=harness.outsider)
    row_id = (await harness.row("Roryn", guild=harness.other_guild)).id
    before = await harness.snapshot()
    for custom_id in (f"lg:odds:{row_id}", f"lg:recover:{row_id}:0:2"):
        result = await harness.click(harness.gm, old_message(custom_id), custom_id)
        answered_once(result)
        text = assert_refused(result)
        assert "Roryn" not in text
    assert await harness.snapshot() == before


# --- shards --------------------------------------------------------------------------------------


def guild_on(shard: int, count: int, n: int = 0) -> int:
    """A snowflake-shaped guild id that belongs to `shard` of `count` (as tests/ops does)."""
    timestamp = count * ((1 << 38) + n) + shard
    return (timestamp << 22) | 0x2A


async def test_a_click_from_another_shards_guild_is_not_answered_here(tmp_path):
    url = f"sqlite+aiosqlite:///{tmp_path / 'lastgasp.db'}"
    bot = create_bot(url, ScriptedRandom.faces("C"), shard_count=2, shard_ids=[1])
    driver = OfflineDriver(bot)
    try:
        await driver.start()
        ours = driver.add_guild(guild_on(1, 2))
        theirs = driver.add_guild(guild_on(0, 2))
        owner = driver.member(ours, "Alice")
        gm = driver.member(ours, "Gemma", manage_guild=True)
        await driver.invoke(owner, "character create", name="Roryn")
        await driver.invoke(gm, "combat start")
        await driver.invoke(gm, "combat add", character="Roryn")
        fall = await driver.invoke(owner, "damage", character="Roryn", amount=11)
        for label in ("Recovery roll", "Odds"):
            stranger = driver.member(theirs, "Alice", user_id=owner.user_id)
            ignored = await driver.click(stranger, fall.reply, buttons(fall.reply)[label])
            assert ignored.requests == [] and ignored.messages == []
        expired = "lg:recover:x"
        ignored = await driver.click(driver.member(theirs, "B"), old_message(expired), expired)
        assert ignored.requests == []
        assert bot.rng.remaining == 1
        rolled = await driver.click(owner, fall.reply, buttons(fall.reply)["Recovery roll"])
        assert "Stabilised!" in public_roll(rolled).body
    finally:
        await driver.close()


# --- the Last Gasp -------------------------------------------------------------------------------


def assert_last_gasp(result: Result, name: str) -> Seen:
    """Public, the picture attached and shown, the name in the headline (its colour: below)."""
    card = public_roll(result)
    assert card.title.endswith(f"{name} · The Last Gasp")
    headline = card.lines[0]
    assert headline.startswith("**") and name in headline
    assert card.pictures == (LAST_GASP_FILE,)  # shown in the card (a media gallery)
    [(filename, data)] = result.reply.files
    assert filename == LAST_GASP_FILE
    assert data.startswith(PNG_MAGIC) and 0 < len(data) < FILE_LIMIT == 8 * 1024 * 1024
    with Image.open(io.BytesIO(data)) as picture:
        assert picture.format == "PNG" and min(picture.size) >= 128
    [callback] = callbacks(result)
    attached = callback.payload["data"].get("attachments") or []
    assert [a["filename"] for a in attached] == [LAST_GASP_FILE]
    return card


@pytest.mark.parametrize(
    ("faces", "headline", "state"),
    [
        ("M", "The Last Gasp fails: Roryn is dead.", State.DEAD),
        ("C", "A Crit on the Last Gasp: Roryn survives, stabilised", State.UNCONSCIOUS),
    ],
)
async def test_the_last_gasp_button_is_an_event(harness, faces, headline, state):
    fall = await fall_to(harness, "Dying", res=1)
    harness.script(faces)
    gasp = await harness.click(harness.owner, fall.reply, buttons(fall.reply)["Roll the Last Gasp"])
    card = assert_last_gasp(gasp, "Roryn")
    assert headline in card.body
    assert (await harness.sheet("Roryn")).state is state


async def test_a_last_gasp_that_spares_is_in_its_own_colour(harness):
    fall = await fall_to(harness, "Dying", res=1)
    harness.script("C")
    gasp = await harness.click(harness.owner, fall.reply, buttons(fall.reply)["Roll the Last Gasp"])
    assert assert_last_gasp(gasp, "Roryn").colour == LAST_GASP_COLOUR
    assert LAST_GASP_COLOUR not in STATE_COLOURS.values()


async def test_a_last_gasp_that_kills_is_in_its_own_colour_too(harness):
    fall = await fall_to(harness, "Dying", res=1)
    harness.script("M")
    gasp = await harness.click(harness.owner, fall.reply, buttons(fall.reply)["Roll the Last Gasp"])
    assert assert_last_gasp(gasp, "Roryn").colour == LAST_GASP_COLOUR


async def test_the_last_gasp_is_public_even_from_a_private_message(harness):
    fall = await fall_to(harness, "Dying", res=1)
    custom_id = buttons(fall.reply)["Roll the Last Gasp"]
    private = old_message(custom_id, label="Roll the Last Gasp", flags=EPHEMERAL)
    harness.script("M")
    gasp = await harness.click(harness.owner, private, custom_id)
    assert_last_gasp(gasp, "Roryn")


async def test_the_last_gasp_is_public_even_when_the_rules_mark_it_private(harness, monkeypatch):
    fall = await fall_to(harness, "Dying", res=1)
    original = rules.vitality.recover

    def private(*args: Any, **kwargs: Any) -> Any:
        return original(*args, **kwargs).model_copy(update={"public": False})

    monkeypatch.setattr(rules.vitality, "recover", private)
    harness.script("M")
    gasp = await harness.click(harness.owner, fall.reply, buttons(fall.reply)["Roll the Last Gasp"])
    assert_last_gasp(gasp, "Roryn")
    # The same rules on an ordinary recovery roll: that one follows `public`.
    await harness.add_character("Bea", vit=-1, res=2)
    harness.script("M")
    ordinary = await harness.run(harness.gm, "recover", character="Bea")
    assert ordinary.reply.ephemeral


# --- a second answer to the delete question (issue 21 item 16) -----------------------------------


async def question_now(harness: Harness, asked: Result) -> Message:
    """The question as the asker's client shows it now, after every edit."""
    return harness.driver.messages[asked.reply.id]


async def test_a_cancel_after_the_delete_says_it_was_deleted_and_keeps_the_answer(harness):
    """A double click, Delete then Cancel, both from the prompt as first shown: the Cancel is
    answered privately with what happened, and the question keeps saying "Deleted"."""
    asked, confirm, cancel = await ask_delete(harness)
    shown = copy.deepcopy(asked.reply)  # the client has not redrawn the question yet
    done = await harness.click(harness.owner, shown, confirm)
    assert done.reply.card.body == "Deleted **Bea**."
    before = await harness.snapshot()
    late = await harness.click(harness.owner, shown, cancel)
    callback = answered_once(late)
    assert callback.payload["type"] == 4  # a private answer of its own, not an edit
    assert assert_refused(late) == "That character was already deleted. Nothing was changed."
    assert (await question_now(harness, asked)).card.body == "Deleted **Bea**."
    assert await harness.snapshot() == before


async def test_a_delete_after_the_cancel_deletes_nothing_and_says_so(harness):
    """The other order: Cancel, then Delete from the same prompt. Nothing is deleted, the
    asker is told privately why, and the question keeps saying "Nothing was deleted."."""
    asked, confirm, cancel = await ask_delete(harness)
    shown = copy.deepcopy(asked.reply)
    before = await harness.snapshot()
    kept = await harness.click(harness.owner, shown, cancel)
    assert kept.reply.card.body == "Nothing was deleted."
    late = await harness.click(harness.owner, shown, confirm)
    assert answered_once(late).payload["type"] == 4
    text = assert_refused(late, "answered Cancel", "nothing was deleted", "/character delete")
    assert "Deleted" not in text
    assert (await question_now(harness, asked)).card.body == "Nothing was deleted."
    assert await harness.snapshot() == before  # Bea is still there, nothing logged
    # A second Cancel changes nothing either, and says so.
    again = await harness.click(harness.owner, shown, cancel)
    assert_refused(again, "nothing was deleted")
    assert (await question_now(harness, asked)).card.body == "Nothing was deleted."


async def test_a_double_click_handled_at_once_deletes_and_answers_once(harness):
    """Both clicks in flight together: the second waits for the first, then is told."""
    asked, confirm, cancel = await ask_delete(harness)
    shown = copy.deepcopy(asked.reply)
    first, second = await asyncio.gather(
        harness.click(harness.owner, shown, confirm), harness.click(harness.owner, shown, cancel)
    )
    assert first.reply.card.body == "Deleted **Bea**."
    assert assert_refused(second) == "That character was already deleted. Nothing was changed."
    assert (await question_now(harness, asked)).card.body == "Deleted **Bea**."


async def test_the_timeout_never_rewrites_an_answered_question(harness):
    """After the Delete, the question's timeout must not say "No answer: Bea was kept"."""
    harness.bot.get_cog("SheetCog").confirm_seconds = 1.0
    # The bot's clock stands still, so that the click is never past the question's deadline
    # (a whole second, rounded down) on a slow machine; the timeout runs on the loop's timer.
    now = harness.bot.clock()
    harness.bot.clock = lambda: now
    asked, confirm, _ = await ask_delete(harness)
    await harness.click(harness.owner, asked.reply, confirm)
    await asyncio.sleep(1.3)
    assert (await question_now(harness, asked)).card.body == "Deleted **Bea**."
