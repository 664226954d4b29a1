"""`/character …` through the real command tree: success paths and refusals for the owner,
another player, the GM (Manage Server or the GM role) and a member of another guild (P-1..P-4).
"""

from __future__ import annotations

import asyncio
import copy
import json
import logging
from datetime import timedelta

import pytest
from sqlalchemy import select

from bot.db.tables import characters, events
from bot.failures import EXPIRED, SOMETHING_WENT_WRONG
from bot.offline import Attachment
from bot.offline.layout import seen
from bot.render.card import TEXT_LIMIT
from bot.render.common import INFO_COLOUR
from bot.services import sheet as sheet_service
from bot.services.sheet import EXPORT_FORMAT, MAX_IMPORT_BYTES
from rules.names import MAX_NAME_LENGTH
from tests.discord._table_helpers import public, refused

NOT_HERE = "No character named"


async def active_name(harness, member) -> str | None:
    async with harness.db.transaction(member.guild.id, read_only=True) as uow:
        row = await uow.active_character(member.user_id, lock=False)
    return None if row is None else row.sheet.name


async def names(harness, guild=None) -> list[str]:
    async with harness.db.transaction((guild or harness.guild).id, read_only=True) as uow:
        return [row.sheet.name for row in await uow.characters()]


async def logged(harness, command: str) -> list:
    """Raw event rows of one command, oldest first."""
    async with harness.db.engine.connect() as conn:
        stmt = select(events).where(events.c.command == command).order_by(events.c.id)
        return list((await conn.execute(stmt)).all())


# --- create ------------------------------------------------------------------------------------


async def test_create_with_defaults_is_public_logged_and_selected(harness):
    result = await harness.run(harness.owner, "character create", name="  Roryn ")
    card = public(result)
    assert card.title == "🟢 Roryn · Created"
    assert card.lines[:3] == [  # the headline, the owner line, then the sheet's rows at once
        "**Roryn joins the table.**",
        f"Owner <@{harness.owner.user_id}> · **Up**",
        "**Vitality** · VIT 10/10 · RES 2",
    ]
    sheet = await harness.sheet("Roryn")
    assert (sheet.owner_id, sheet.vit, sheet.max_vit, sheet.res) == (
        harness.owner.user_id,
        10,
        10,
        2,
    )
    assert (sheet.con_base, sheet.stamina, sheet.threshold) == (8, 8, 4)
    assert await active_name(harness, harness.owner) == "Roryn"
    [event] = await logged(harness, "character create")
    assert event.sheet_before is None and event.sheet_after["name"] == "Roryn"
    assert event.user_id == harness.owner.user_id


async def test_create_with_every_option(harness):
    await harness.run(
        harness.owner,
        "character create",
        name="Ila",
        max_vit=12,
        res=3,
        con="d10",
        humility=-2,
        composure=5,
        insight=20,
        threshold=6,
    )
    sheet = await harness.sheet("Ila")
    assert (sheet.max_vit, sheet.vit, sheet.res, sheet.con_base, sheet.stamina) == (
        12,
        12,
        3,
        10,
        10,
    )
    assert (sheet.humility, sheet.composure, sheet.insight, sheet.threshold) == (-2, 5, 20, 6)


async def test_create_uses_the_guild_threshold(harness):
    await harness.settings(emotion_threshold=7)
    await harness.run(harness.owner, "character create", name="Ila")
    assert (await harness.sheet("Ila")).threshold == 7


async def test_create_for_another_player_is_the_gms(harness):
    text = refused(
        await harness.run(harness.player, "character create", name="Ila", owner=harness.owner),
        "GM",
        "owner",
    )
    assert "P-3" in text
    assert await names(harness) == []

    await harness.settings(gm_role_id=harness.guild.roles["GM"])
    for gm, name in ((harness.gm, "Ila"), (harness.gm_role, "Bo")):
        public(await harness.run(gm, "character create", name=name, owner=harness.player))
        assert (await harness.sheet(name)).owner_id == harness.player.user_id
    assert await active_name(harness, harness.player) == "Ila"  # the owner's first
    assert await active_name(harness, harness.gm) is None


async def test_create_refuses_a_taken_name_in_any_case(harness):
    await harness.add_character("Roryn")
    refused(await harness.run(harness.player, "character create", name="RORYN"), "already")
    assert await names(harness) == ["Roryn"]
    # P-2: another guild's names are its own
    public(await harness.run(harness.outsider, "character create", name="Roryn"))
    assert await names(harness, harness.other_guild) == ["Roryn"]
    assert (await harness.sheet("Roryn")).owner_id == harness.owner.user_id


@pytest.mark.parametrize(
    ("option", "value", "words"),
    [
        ("max_vit", 1000, ("max_vit", "1 and 999")),
        ("res", -1, ("res", "0 and 20")),
        ("insight", 21, ("insight", "-10 and 20")),
        ("threshold", 0, ("threshold", "1 and 20")),
        ("con", "d4", ("con", "d6")),
    ],
)
async def test_create_checks_ranges_again(harness, option, value, words):
    """A client that ignores the declared ranges is refused by the bot too."""
    result = await harness.run(harness.owner, "character create", name="Ila", **{option: value})
    refused(result, *words)
    assert await names(harness) == []


async def test_create_refuses_bad_names(harness):
    refused(await harness.run(harness.owner, "character create", name="x" * 33), "32")
    refused(await harness.run(harness.owner, "character create", name="   "), "name")
    assert await names(harness) == []


async def test_a_character_option_longer_than_a_name_is_refused_short(harness):
    text = refused(await harness.run(harness.owner, "character show", character="x" * 500), "32")
    assert len(text) < 200
    text = refused(await harness.run(harness.owner, "character show", character="x" * 33), "32")
    assert "x" * 33 not in text


async def test_names_are_escaped_and_never_ping(harness):
    result = await harness.run(harness.owner, "character create", name="@everyone *Bo*")
    card = public(result)
    assert "\\@everyone \\*Bo\\*" in card.title  # escaped: no mention, no italics


# --- show, list ----------------------------------------------------------------------------


async def test_show_is_private_by_default_and_public_on_request(harness):
    await harness.add_character("Roryn")
    await harness.select(harness.owner, "Roryn")
    mine = await harness.run(harness.owner, "character show")
    assert mine.ephemeral and mine.card.title == "🟢 Roryn"
    other = await harness.run(harness.player, "character show", character="roryn", public=True)
    assert public(other).title == "🟢 Roryn"
    assert "VIT 10/10" in other.text()


async def test_a_sheet_fits_in_about_ten_lines(harness):
    """A sheet in about ten lines (bot/render/sheet.py): what is due on top, then one
    labelled row for each part."""
    await harness.add_character("Roryn", vit=-1, anger=2, stress=1, con_wounds=1)
    card = (await harness.run(harness.owner, "character show", character="Roryn")).card
    assert card.title == "🟠 Roryn"
    assert card.lines == [
        f"Owner <@{harness.owner.user_id}> · **Critical**",
        "Due at its next turn: a recovery roll of 1 die (R-3).",
        # one labelled row each (bot/render/sheet.py)
        "**Vitality** · VIT -1/10 · RES 2",
        "**Stamina** · 6/6 · CON d6 (1 wound) · next reaction costs 1",
        "**Injury** · -8 on Action Rolls · -2 on Reaction Rolls",
        "**Emotions** · Anger 2/4 · Fear 0/4 · Sadness 0/4 · Guilt 0/4",
        "**Stress** · 1",
        "**Abilities** · Humility +0 · Composure +0 · Insight +0",
    ]
    # the title, the lines and the rows, and the flags' small line if any
    assert card.markdown.count("\n") + 1 <= 12


async def test_show_refusals(harness):
    await harness.add_character("Roryn")
    refused(await harness.run(harness.player, "character show"), "no active character")
    refused(await harness.run(harness.outsider, "character show", character="Roryn"), NOT_HERE)


async def test_list_shows_this_guild_only(harness):
    await harness.add_character("Roryn")
    await harness.add_character("Bo", owner=harness.player, vit=-1)
    await harness.add_character("Zed", owner=harness.outsider)
    card = public(await harness.run(harness.player, "character list"))
    assert card.title == "Characters"
    assert card.lines == [
        f"🟠 Bo · Critical · VIT -1/10 · Stamina 8/8 · <@{harness.player.user_id}>",
        f"🟢 Roryn · Up · VIT 10/10 · Stamina 8/8 · <@{harness.owner.user_id}>",
    ]
    assert card.small == "2 characters"
    elsewhere = public(await harness.run(harness.outsider, "character list"))
    assert elsewhere.body.startswith("🟢 Zed")
    assert "Roryn" not in elsewhere.markdown


async def test_a_long_list_keeps_whole_lines_and_counts_the_rest(harness):
    for i in range(60):
        await harness.add_character(f"{'Wanderer of the long road':.28} {i:03}")
    card = public(await harness.run(harness.owner, "character list"))
    lines = card.lines
    # Discord's limit on a layout message's text, every text display together
    assert sum(len(text) for text in card.texts) <= TEXT_LIMIT
    assert card.small == "60 characters"
    shown = len(lines) - 1
    assert 0 < shown < 60 and lines[-1] == f"… and {60 - shown} more"
    assert all(line.startswith("🟢 Wanderer") for line in lines[:-1])


async def test_list_when_empty(harness):
    card = public(await harness.run(harness.owner, "character list"))
    assert "/character create" in card.body and card.small is None


# --- select --------------------------------------------------------------------------------


async def test_select_own_or_any_as_gm(harness):
    await harness.add_character("Roryn")
    await harness.add_character("Ila")
    selected = await harness.run(harness.owner, "character select", character="ila")
    assert selected.ephemeral  # it matters to its asker only
    assert selected.card.title == "🟢 Ila · Selected"
    assert selected.card.body == (
        "**Ila is now your active character:** commands without `character` act on it."
    )
    assert await active_name(harness, harness.owner) == "Ila"
    assert (await harness.run(harness.gm, "character select", character="Roryn")).ephemeral
    assert await active_name(harness, harness.gm) == "Roryn"


async def test_select_refusals(harness):
    await harness.add_character("Roryn")
    refused(await harness.run(harness.player, "character select", character="Roryn"), "P-4")
    refused(await harness.run(harness.outsider, "character select", character="Roryn"), NOT_HERE)
    assert await active_name(harness, harness.player) is None


# --- edit ----------------------------------------------------------------------------------


async def test_edit_by_owner_and_gm(harness):
    await harness.add_character("Roryn", max_vit=12)
    card = public(await harness.run(harness.owner, "character edit", character="Roryn", max_vit=8))
    assert "max VIT 12 → 8" in card.body
    assert (await harness.sheet("Roryn")).vit == 8  # clamped to the new maximum
    public(await harness.run(harness.gm, "character edit", character="Roryn", name="Ro", con="d12"))
    sheet = await harness.sheet("Ro")
    assert (sheet.con_base, sheet.stamina) == (12, 8)
    [first, second] = await logged(harness, "character edit")
    assert first.sheet_before["max_vit"] == 12 and first.sheet_after["max_vit"] == 8
    assert second.user_id == harness.gm.user_id and second.sheet_after["name"] == "Ro"


async def test_edit_refusals_change_nothing(harness):
    before = await harness.add_character("Roryn")
    await harness.add_character("Bo", owner=harness.player)
    refused(await harness.run(harness.player, "character edit", character="Roryn", res=5), "P-4")
    refused(
        await harness.run(harness.outsider, "character edit", character="Roryn", res=5), NOT_HERE
    )
    refused(await harness.run(harness.owner, "character edit", character="Roryn"), "Nothing")
    refused(
        await harness.run(harness.owner, "character edit", character="Roryn", name="BO"), "already"
    )
    refused(await harness.run(harness.owner, "character edit", character="Roryn", res=21), "res")
    assert await harness.sheet("Roryn") == before
    assert await logged(harness, "character edit") == []


# --- set -----------------------------------------------------------------------------------


async def test_set_is_the_gms(harness):
    await harness.add_character("Roryn")
    card = public(
        await harness.run(harness.gm, "character set", character="Roryn", vit=-1, stress=2)
    )
    assert "VIT 10 → -1 · Up → Critical" in card.body
    assert "Stress 0 → 2" in card.body
    await harness.settings(gm_role_id=harness.guild.roles["GM"])
    public(await harness.run(harness.gm_role, "character set", character="Roryn", anger=2))
    sheet = await harness.sheet("Roryn")
    assert (sheet.vit, sheet.stress, sheet.anger) == (-1, 2, 2)
    [event, _] = await logged(harness, "character set")
    assert event.sheet_before["vit"] == 10 and event.sheet_after["vit"] == -1


async def test_set_refusals_change_nothing(harness):
    before = await harness.add_character("Roryn")
    for who in (harness.owner, harness.player, harness.gm_role):  # no GM role set yet
        refused(await harness.run(who, "character set", character="Roryn", vit=1), "P-3")
    refused(
        await harness.run(harness.outsider, "character set", character="Roryn", vit=1), NOT_HERE
    )
    refused(await harness.run(harness.gm, "character set", character="Roryn", stamina=9), "Stamina")
    refused(await harness.run(harness.gm, "character set", character="Roryn", vit=11), "VIT")
    refused(
        await harness.run(harness.gm, "character set", character="Roryn", con_wounds=4), "0 and 3"
    )
    assert await harness.sheet("Roryn") == before


# --- delete, after its confirmation button (the buttons themselves: test_buttons.py) ---------


def button(message, action: str) -> str:
    """The custom id of the question's `action` button: `lg:delete:<action>:<id>:<asker>:<until>`
    (a DynamicItem: its state is in the id, bot/render/buttons.py)."""
    [custom_id] = [i for i in message.custom_ids() if i.startswith(f"lg:delete:{action}:")]
    return custom_id


async def test_delete_asks_then_deletes_on_confirm(harness):
    """End to end: the private question, the confirmation, the public announcement, the log."""
    await harness.add_character("Roryn")
    row = await harness.row("Roryn")
    before = await harness.snapshot()
    asked = await harness.run(harness.owner, "character delete", character="Roryn")
    assert asked.ephemeral and asked.reply.card.body == (
        "Delete **Roryn** for good? Its history stays in the log."
    )
    confirm, cancel = asked.reply.custom_ids()
    until = int(confirm.rsplit(":", 1)[1])
    assert confirm == f"lg:delete:confirm:{row.id}:{harness.owner.user_id}:{until}"
    assert cancel == confirm.replace(":confirm:", ":cancel:")
    assert until > harness.bot.clock().timestamp()
    assert await harness.snapshot() == before  # asking changes nothing

    shown = copy.deepcopy(asked.reply)  # as a client that misses the edit keeps showing it
    done = await harness.click(harness.owner, asked.reply, confirm)
    update = done.requests[0].payload
    assert update["type"] == 7  # the question itself becomes the answer, its buttons gone
    answer = seen(update["data"]["components"])
    assert answer.body == "Deleted **Roryn**." and answer.buttons == ()
    announced = done.messages[-1]
    assert not announced.ephemeral
    assert announced.card.title == "🟢 Roryn · Deleted"
    assert announced.card.body == (
        "**Roryn leaves the table: deleted.**\nIts history stays in the log (the GM's /history)."
    )
    assert announced.card.colour == INFO_COLOUR  # a notice, not the character's state
    assert await names(harness) == []
    [event] = await logged(harness, "character delete")
    assert event.sheet_before["name"] == "Roryn" and event.sheet_after is None
    assert event.character_id == row.id and event.user_id == harness.owner.user_id

    # Answered: a second press from a client that still shows the button deletes nothing more.
    again = await harness.click(harness.owner, shown, confirm)
    refused(again, "already deleted", "Nothing was changed")
    assert len(await logged(harness, "character delete")) == 1


async def test_delete_times_out_and_keeps_the_character(harness):
    await harness.add_character("Roryn")
    harness.bot.get_cog("SheetCog").confirm_seconds = 0.05
    asked = await harness.run(harness.owner, "character delete", character="Roryn")
    shown = copy.deepcopy(asked.reply)
    for _ in range(100):
        await asyncio.sleep(0.01)
        if "was kept" in harness.driver.messages[asked.reply.id].card.body:
            break
    message = harness.driver.messages[asked.reply.id]
    assert message.card.body == "No answer: **Roryn** was kept." and message.card.buttons == ()
    assert await names(harness) == ["Roryn"]

    # The buttons expired with the question.
    await asyncio.sleep(1.1)  # `until` is whole seconds
    late = await harness.click(harness.owner, shown, button(shown, "confirm"))
    assert refused(late) == EXPIRED
    assert await names(harness) == ["Roryn"]
    assert await logged(harness, "character delete") == []


async def test_the_delete_deadline_follows_the_bots_clock(harness):
    """The question's deadline is read from bot.clock, the same clock as the confirmation's
    check: a clock moved past it expires the buttons, whatever the wall clock says."""
    await harness.add_character("Roryn")
    asked = await harness.run(harness.owner, "character delete", character="Roryn")
    until = int(button(asked.reply, "confirm").rsplit(":", 1)[1])
    seconds = harness.bot.get_cog("SheetCog").confirm_seconds
    assert abs(until - (harness.bot.clock().timestamp() + seconds)) <= 1
    later = harness.bot.clock() + timedelta(seconds=seconds + 2)
    harness.bot.clock = lambda: later
    late = await harness.click(harness.owner, asked.reply, button(asked.reply, "confirm"))
    assert refused(late) == EXPIRED
    assert await names(harness) == ["Roryn"]
    assert await logged(harness, "character delete") == []


async def test_a_failing_button_is_answered_and_logged(harness, monkeypatch, caplog):
    await harness.add_character("Roryn")
    asked = await harness.run(harness.owner, "character delete", character="Roryn")

    async def broken(*_args, **_kwargs):
        raise ZeroDivisionError("bug")

    monkeypatch.setattr(sheet_service, "delete_character", broken)
    with caplog.at_level(logging.ERROR, logger="lastgasp.errors"):
        failed = await harness.click(harness.owner, asked.reply, button(asked.reply, "confirm"))
    assert failed.ephemeral and failed.reply.card.body == SOMETHING_WENT_WRONG
    [record] = [r for r in caplog.records if r.name == "lastgasp.errors"]
    assert record.getMessage().startswith("button delete:confirm failed (guild ")
    assert record.exc_info[0] is ZeroDivisionError
    assert await names(harness) == ["Roryn"]


async def test_delete_by_gm_and_refusals(harness):
    await harness.add_character("Roryn")
    before = await harness.snapshot()
    refused(await harness.run(harness.player, "character delete", character="Roryn"), "P-4")
    refused(await harness.run(harness.outsider, "character delete", character="Roryn"), NOT_HERE)
    assert await harness.snapshot() == before
    asked = await harness.run(harness.gm, "character delete", character="Roryn")
    await harness.click(harness.gm, asked.reply, button(asked.reply, "confirm"))
    assert await names(harness) == []
    [event] = await logged(harness, "character delete")
    assert event.user_id == harness.gm.user_id


async def test_delete_confirmed_after_someone_else_deleted_it(harness):
    await harness.add_character("Roryn")
    mine = await harness.run(harness.owner, "character delete", character="Roryn")
    gms = await harness.run(harness.gm, "character delete", character="Roryn")
    await harness.click(harness.gm, gms.reply, button(gms.reply, "confirm"))
    late = await harness.click(harness.owner, mine.reply, button(mine.reply, "confirm"))
    refused(late, "already deleted")
    assert len(await logged(harness, "character delete")) == 1


# --- revive --------------------------------------------------------------------------------


async def test_revive_is_the_gms(harness):
    await harness.add_character("Roryn", vit=-3)
    await harness.update("Roryn", dead=True)
    refused(await harness.run(harness.owner, "character revive", character="Roryn"), "P-3")
    refused(await harness.run(harness.outsider, "character revive", character="Roryn"), NOT_HERE)
    assert (await harness.sheet("Roryn")).dead
    card = public(await harness.run(harness.gm, "character revive", character="Roryn"))
    assert card.title == "🟢 Roryn · Revived"
    assert card.lines[:2] == [
        "**Roryn is back: Up at VIT 1/10.**",
        "VIT -3 → 1 · Dead → Up",  # V-5
    ]
    refused(
        await harness.run(harness.gm, "character revive", character="Roryn"),
        "Roryn is Up, not Dead or Retired",
    )


# --- export and import ---------------------------------------------------------------------


# --- give ----------------------------------------------------------------------------------


async def owner_column(harness, name: str) -> int:
    """The indexed owner column of the character's row (bot.db writes it with the sheet)."""
    row = await harness.row(name)
    async with harness.db.engine.connect() as conn:
        stmt = select(characters.c.owner_id).where(characters.c.id == row.id)
        return (await conn.execute(stmt)).scalar_one()


async def test_give_hands_a_character_over_as_a_change_undone_by_undo_U_2(any_harness):
    """The GM's `/character give`: logged, in /history, reverted by /undo (which gives it
    back); the owner column follows the sheet on both databases; the new owner is named
    without a ping."""
    harness = any_harness
    await harness.add_character("Roryn", vit=4, logged=True)
    given = await harness.run(harness.gm, "character give", character="Roryn", to=harness.player)
    card = public(given)  # public() checks that no mention may ping
    player = f"<@{harness.player.user_id}>"
    assert card.title.endswith("Roryn · Changes hands")
    assert card.body.startswith(f"**Roryn now belongs to {player}.**")
    assert f"Owner <@{harness.owner.user_id}> → {player}" in card.body
    assert (await harness.sheet("Roryn")).owner_id == harness.player.user_id
    assert await owner_column(harness, "Roryn") == harness.player.user_id
    # the new owner acts on it; the old one no longer may (P-2)
    public(await harness.run(harness.player, "damage", character="Roryn", amount=1))
    refused(await harness.run(harness.owner, "heal", character="Roryn", amount=1), "P-4")
    [_damage, give, _create] = await harness.history("Roryn")
    assert give.command == "character give"
    assert give.inputs == {"character": "Roryn", "to": harness.player.user_id}
    history = await harness.run(harness.gm, "history", character="Roryn")
    assert "character give" in history.text()
    public(await harness.run(harness.gm, "undo", character="Roryn"))  # the damage
    undone = await harness.run(harness.gm, "undo", character="Roryn")  # the give
    assert f"Owner {player} → <@{harness.owner.user_id}>" in public(undone).body
    assert (await harness.sheet("Roryn")).owner_id == harness.owner.user_id
    assert await owner_column(harness, "Roryn") == harness.owner.user_id


async def test_give_is_the_gms_and_refuses_the_owner_it_has(harness):
    await harness.add_character("Roryn")
    before = await harness.snapshot()
    for member in (harness.owner, harness.player):
        refused(
            await harness.run(member, "character give", character="Roryn", to=harness.player),
            "GM",
        )
    refused(
        await harness.run(harness.gm, "character give", character="Roryn", to=harness.owner),
        "already belongs to that member",
    )
    refused(
        await harness.run(harness.gm, "character give", character="Nobody", to=harness.owner),
        NOT_HERE,
    )
    assert await harness.snapshot() == before


async def exported(harness) -> tuple[object, bytes]:
    """Roryn, built and then hurt, as its owner exports it (then deleted, to import it back)."""
    await harness.add_character("Roryn", max_vit=12, res=4, con_base=10, humility=2)
    original = await harness.update("Roryn", vit=-2, anger=3, stress=1, advantage=True)
    result = await harness.run(harness.owner, "character export", character="Roryn")
    assert result.ephemeral
    assert result.reply.card.body == "**Roryn**'s sheet. Bring it back with /character import."
    [(filename, data)] = result.reply.files
    assert filename == "Roryn.json"
    assert result.card.files == ("Roryn.json",)  # offered in the card (a file component)
    document = json.loads(data)
    assert document["format"] == EXPORT_FORMAT and document["version"] == 1
    assert document["sheet"] == original.model_dump(mode="json")
    asked = await harness.run(harness.owner, "character delete", character="Roryn")
    await harness.click(harness.owner, asked.reply, button(asked.reply, "confirm"))
    return original, data


async def test_the_gms_import_round_trips_the_state_but_no_flag_P_6(harness):
    original, data = await exported(harness)
    imported = await harness.run(harness.gm, "character import", file=Attachment("R.json", data))
    assert public(imported).title == "🟠 Roryn · Imported"
    assert public(imported).body.startswith("**Roryn joins the table.**\n")
    expected = original.update(owner_id=harness.gm.user_id, advantage=False)  # flags never
    assert await harness.sheet("Roryn") == expected
    [event] = await logged(harness, "character import")
    assert event.sheet_before is None and event.sheet_after == expected.model_dump(mode="json")


async def test_a_players_import_takes_the_build_and_starts_fresh_P_6(harness):
    original, data = await exported(harness)
    imported = await harness.run(harness.owner, "character import", file=Attachment("R.json", data))
    card = public(imported)
    assert card.title == "🟢 Roryn · Imported"
    assert card.body.startswith("**Roryn joins the table.**\n")
    assert card.texts[0].splitlines()[-1] == (  # the last line above the sheet's rows
        "A player's import starts the state fresh, as at creation (P-6): VIT, Stress, Anger; "
        "the GM's import keeps them."
    )
    sheet = await harness.sheet("Roryn")
    build = ("name", "owner_id", "max_vit", "res", "con_base", "humility", "threshold")
    assert [getattr(sheet, f) for f in build] == [getattr(original, f) for f in build]
    assert (sheet.vit, sheet.stamina, sheet.anger, sheet.stress, sheet.advantage) == (
        12,
        10,
        0,
        0,
        False,
    )


async def test_export_permissions(harness):
    await harness.add_character("Roryn")
    refused(await harness.run(harness.player, "character export", character="Roryn"), "P-4")
    refused(await harness.run(harness.outsider, "character export", character="Roryn"), NOT_HERE)
    by_gm = await harness.run(harness.gm, "character export", character="Roryn")
    assert json.loads(by_gm.reply.files[0][1])["sheet"]["name"] == "Roryn"


async def test_import_makes_the_importer_the_owner_and_clears_round_flags(harness):
    sheet = await harness.add_character("Roryn")
    sheet = sheet.update(early_this_round=True, reactions_taken=2, name="Bo")
    data = json.dumps({"format": EXPORT_FORMAT, "version": 1, "sheet": sheet.model_dump()})
    public(
        await harness.run(
            harness.player, "character import", file=Attachment("b.json", data.encode())
        )
    )
    imported = await harness.sheet("Bo")
    assert imported.owner_id == harness.player.user_id
    assert (imported.early_this_round, imported.reactions_taken) == (False, 0)
    assert await active_name(harness, harness.player) == "Bo"
    # another guild imports the same file into its own table
    public(
        await harness.run(
            harness.outsider, "character import", file=Attachment("b.json", data.encode())
        )
    )
    assert await names(harness, harness.other_guild) == ["Bo"]


@pytest.mark.parametrize(
    ("attachment", "words"),
    [
        (Attachment("notes.txt", b"{}", content_type="text/plain"), ("not JSON",)),
        (Attachment("a.json", b"{not json"), ("not JSON",)),
        (Attachment("a.json", b"[1, 2]"), ("no sheet",)),
        (Attachment("a.json", b'{"name": "Bo", "owner_id": 1, "vit": 11}'), ("not valid", "VIT")),
        (Attachment("a.json", b'{"name": "Bo", "owner_id": 1, "mana": 3}'), ("mana",)),
        (
            Attachment("a.json", json.dumps({"format": EXPORT_FORMAT, "version": 9}).encode()),
            ("version",),
        ),
    ],
)
async def test_import_refuses_what_is_not_a_valid_sheet(harness, attachment, words):
    refused(await harness.run(harness.owner, "character import", file=attachment), *words)
    assert await names(harness) == []


async def test_import_refuses_a_taken_name(harness):
    sheet = await harness.add_character("Roryn")
    data = json.dumps(sheet.model_dump()).encode()
    refused(
        await harness.run(harness.player, "character import", file=Attachment("r.json", data)),
        "already",
    )
    assert await names(harness) == ["Roryn"]


async def test_import_under_another_name_fixes_a_clash_P_6(harness):
    """The issue's dead end: a sheet whose name is taken could not come in without editing
    the file. The refusal says how; `name` imports it under another name."""
    sheet = await harness.add_character("Roryn", max_vit=12)
    data = json.dumps(sheet.model_dump()).encode()
    text = refused(
        await harness.run(harness.player, "character import", file=Attachment("r.json", data)),
        "already has a character named Roryn",
        "name option",
    )
    assert "in range" not in text
    result = await harness.run(
        harness.player, "character import", file=Attachment("r.json", data), name="Roryn II"
    )
    assert public(result).body.startswith("**Roryn II joins the table.**\n")
    assert await names(harness) == ["Roryn", "Roryn II"]
    copy_ = await harness.sheet("Roryn II")
    assert (copy_.owner_id, copy_.max_vit) == (harness.player.user_id, 12)
    [event] = await logged(harness, "character import")
    assert event.inputs == {"name": "Roryn II"}


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("Ro\u200bryn", ("U+200B, a zero-width space", "without it")),
        ("x" * 33, ("at most 32 characters", "33")),
        ("roryn", ("already has a character named roryn",)),
    ],
)
async def test_the_import_name_is_checked_like_any_name_P_6(harness, name, words):
    sheet = await harness.add_character("Roryn")
    data = json.dumps(sheet.update(name="Bea").model_dump()).encode()
    before = await harness.snapshot()
    result = await harness.run(
        harness.owner, "character import", file=Attachment("b.json", data), name=name
    )
    text = refused(result, *words)
    assert "in range" not in text and "not valid" not in text
    assert await harness.snapshot() == before


async def test_the_gm_imports_for_a_player_and_a_player_may_not_P_6(harness):
    original, data = await exported(harness)
    text = refused(
        await harness.run(
            harness.player,
            "character import",
            file=Attachment("R.json", data),
            owner=harness.owner,
        ),
        "Only the GM",
        "owner",
    )
    assert "P-6" in text
    assert await names(harness) == []
    result = await harness.run(
        harness.gm, "character import", file=Attachment("R.json", data), owner=harness.player
    )
    public(result)
    # the GM's import: the state comes too (P-6), for the player, who now has it active
    expected = original.update(owner_id=harness.player.user_id, advantage=False)
    assert await harness.sheet("Roryn") == expected
    assert await active_name(harness, harness.player) == "Roryn"
    assert await active_name(harness, harness.gm) is None
    [event] = await logged(harness, "character import")
    assert event.user_id == harness.gm.user_id
    assert event.inputs == {"name": "Roryn", "owner_id": harness.player.user_id}


async def test_import_caps_the_size_before_downloading(harness):
    downloads = []

    async def download(attachment):
        downloads.append(attachment.filename)
        return b"{}"

    harness.bot.get_cog("SheetCog").download = download
    big = Attachment("big.json", b" " * (MAX_IMPORT_BYTES + 1))
    refused(await harness.run(harness.owner, "character import", file=big), "KB")
    assert downloads == []  # refused from the attachment's size, never fetched
    refused(
        await harness.run(harness.owner, "character import", file=Attachment("s.json", b"1")),
        "has no name",
    )
    assert downloads == ["s.json"]  # the download goes through the injectable hook


# --- autocomplete and the declared schema --------------------------------------------------


async def test_autocomplete_offers_this_guilds_characters_own_first_at_most_25(harness):
    for i in range(20):
        await harness.add_character(f"Bo{i:02}", owner=harness.player)
    for i in range(10):
        await harness.add_character(f"Bz{i:02}")
    await harness.add_character("Bx", owner=harness.outsider)
    choices = await harness.complete(harness.owner, "character show", "character", character="b")
    values = [choice["value"] for choice in choices]
    assert len(values) == 25
    assert values[:10] == [f"Bz{i:02}" for i in range(10)]  # the caller's own first
    assert "Bx" not in values
    elsewhere = await harness.complete(
        harness.outsider, "character edit", "character", character=""
    )
    assert [choice["value"] for choice in elsewhere] == ["Bx"]


async def test_character_schema_declares_the_options(harness):
    group = harness.bot.tree.get_command("character").to_dict(harness.bot.tree)
    assert group.get("default_member_permissions") is None  # players use it: checked in the bot
    subs = {sub["name"]: sub for sub in group["options"]}
    assert set(subs) == {
        "create",
        "show",
        "list",
        "select",
        "edit",
        "set",
        "delete",
        "revive",
        "export",
        "import",
        "give",
    }
    create = {o["name"]: o for o in subs["create"]["options"]}
    # Discord counts UTF-16 units: 32 emoji sequences need more than 32 (section 1)
    assert (create["name"]["min_length"], create["name"]["max_length"]) == (1, MAX_NAME_LENGTH)
    assert (create["max_vit"]["min_value"], create["max_vit"]["max_value"]) == (1, 999)
    assert (create["insight"]["min_value"], create["insight"]["max_value"]) == (-10, 20)
    assert [c["value"] for c in create["con"]["choices"]] == ["d6", "d8", "d10", "d12"]
    assert create["owner"]["type"] == 6 and not create["owner"].get("required")
    for sub in ("select", "edit", "set", "delete", "revive", "export", "give"):
        character = subs[sub]["options"][0]
        assert character["name"] == "character" and character["autocomplete"] is True
        assert character["max_length"] == MAX_NAME_LENGTH
    imports = {o["name"]: o for o in subs["import"]["options"]}
    assert imports["file"]["type"] == 11 and imports["file"]["required"]  # attachment
    assert imports["name"]["type"] == 3 and not imports["name"].get("required")
    assert imports["name"]["max_length"] == MAX_NAME_LENGTH
    assert imports["owner"]["type"] == 6 and not imports["owner"].get("required")
    give = {o["name"]: o for o in subs["give"]["options"]}
    assert give["to"]["type"] == 6 and give["to"]["required"]
    for sub in subs.values():  # Discord's limit on a description
        assert all(len(o["description"]) <= 100 for o in sub.get("options", [])), sub["name"]
    setting = {o["name"]: o for o in subs["set"]["options"]}
    assert (setting["con_wounds"]["min_value"], setting["con_wounds"]["max_value"]) == (0, 3)


async def test_import_refuses_deeply_nested_json(harness):
    bomb = Attachment("a.json", b"[" * 60_000 + b"]" * 60_000)
    refused(await harness.run(harness.owner, "character import", file=bomb), "KB")
    nested = Attachment("a.json", b"[" * 30_000 + b"]" * 30_000)
    refused(await harness.run(harness.owner, "character import", file=nested), "not JSON")
