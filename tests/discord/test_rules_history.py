"""History and undo, U-1..U-3, through the command tree (docs/rules.md, History and undo):
payload in, reply and database out; a refusal leaves every table as it was. On SQLite, and on
PostgreSQL when TEST_DATABASE_URL names a server."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import discord
import pytest

from bot.services.table import DELETED
from tests.discord.conftest import entries, history_entries, lines


@pytest.fixture
def harness(any_harness):
    return any_harness


def stamp(event) -> str:
    return discord.utils.format_dt(event.created_at, "R")


async def delete(harness, member, name: str) -> None:
    asked = await harness.run(member, "character delete", character=name)
    [confirm] = [i for i in asked.reply.custom_ids() if i.startswith("lg:delete:confirm:")]
    await harness.click(member, asked.reply, confirm)


# --- U-1: every change is one event ---------------------------------------------------------------


async def test_U_1_every_change_is_one_event_who_when_command_dice_sheets(harness):
    before = await harness.add_character("Roryn", vit=-1, res=3)
    harness.script("C H")
    started = datetime.now(UTC)
    result = await harness.run(harness.gm, "recover", character="Roryn")
    assert not result.ephemeral
    [event] = await harness.history("Roryn", bookkeeping=True)
    assert (event.command, event.user_id, event.inputs) == ("recover", harness.gm.user_id, {})
    assert started - timedelta(seconds=5) <= event.created_at <= datetime.now(UTC)
    [roll] = event.rolls
    assert (roll.label, roll.faces) == ("Critical recovery roll", ("C", "H"))
    assert event.before == before
    assert event.after == await harness.sheet("Roryn")
    assert (event.after.vit, event.is_change) == (0, True)
    assert event.rules[:2] == ("R-3", "D-1")


async def test_U_1_history_shows_who_when_the_change_the_dice_and_every_rule(harness):
    await harness.add_character("Roryn", vit=-1, res=3)
    harness.script("C H")
    await harness.run(harness.gm, "recover", character="Roryn")
    result = await harness.run(harness.owner, "history", character="Roryn")
    assert result.ephemeral
    assert result.card.title == "🟡 Roryn · History"
    [field] = history_entries(result)
    [event] = await harness.history("Roryn")
    assert field.name == "/recover"
    assert field.lines == [
        f"by <@{harness.gm.user_id}> {stamp(event)}",
        "VIT -1 → 0 · Critical → Unconscious",  # the words of the reply
        "Critical recovery roll: 💥 ⚪  1 Crit · 1 Hit",
        "Rules: " + " · ".join(event.rules),  # the full list here, not three
    ]
    assert len(event.rules) > 3


# --- U-2: a change is what a player can see; bookkeeping is logged, not listed ---------------


async def test_U_2_history_shows_changes_and_all_true_adds_bookkeeping(harness):
    await harness.add_character("Roryn", reactions_taken=2, logged=True)
    await harness.run(harness.gm, "combat start")
    await harness.run(harness.owner, "combat add", character="Roryn")  # bookkeeping: S-5 reset
    await harness.run(harness.owner, "early", character="Roryn")  # a change: Stamina (S-4a: first)
    await harness.run(harness.owner, "react", character="Roryn")  # a change: Stamina
    await harness.run(harness.owner, "turn", character="Roryn")  # bookkeeping: S-5 reset
    await harness.run(harness.gm, "round")  # bookkeeping: the round's flags cleared
    await harness.run(harness.gm, "combat end")  # nothing left to reset: no event for Roryn

    changes = await harness.run(harness.owner, "history", character="Roryn")
    assert entries(changes) == ["/react", "/early", "/character create"]
    assert changes.card.small == (
        "Newest first. The GM reverts the latest change with /undo. all:true adds bookkeeping "
        "(rounds, turns, combat)."
    )
    everything = await harness.run(harness.owner, "history", character="Roryn", all=True)
    assert entries(everything) == [
        "/round · bookkeeping",
        "/turn · bookkeeping",
        "/react",
        "/early",
        "/combat add · bookkeeping",
        "/character create",
    ]
    turn = history_entries(everything)[1].lines
    assert turn[1] == "Next reaction costs 2 → 1"
    # the limit counts what is shown
    latest = await harness.run(harness.owner, "history", character="Roryn", limit=2)
    assert entries(latest) == ["/react", "/early"]


async def test_U_2_a_rename_is_a_change_in_the_reply_the_history_and_the_undo(harness):
    await harness.add_character("Roryn")
    result = await harness.run(harness.owner, "character edit", character="Roryn", name="Rory")
    assert result.card.title == "🟢 Rory · Sheet edited"
    assert lines(result) == ["**Roryn is renamed Rory.**", "Name Roryn → Rory"]
    history = await harness.run(harness.owner, "history", character="Rory")
    [field] = history_entries(history)
    assert field.name == "/character edit"
    assert field.lines[1] == "Name Roryn → Rory"
    undone = await harness.run(harness.gm, "undo", character="Rory")
    assert lines(undone)[:2] == [
        "**Undone: Roryn's latest change is reverted.**",
        "Name Rory → Roryn",
    ]
    assert (await harness.sheet("Roryn")).name == "Roryn"


async def test_U_2_bookkeeping_that_changed_nothing_says_what_it_did(harness):
    """A row of all:true whose sheets are the same says what the command did, never a bare
    'by … 5 minutes ago' (the reaction count was already fresh: S-5 reset nothing)."""
    await harness.add_character("Roryn")
    await harness.run(harness.gm, "combat start")
    await harness.run(harness.owner, "combat add", character="Roryn")
    await harness.run(harness.owner, "turn", character="Roryn")
    await harness.run(harness.owner, "combat remove", character="Roryn")
    everything = await harness.run(harness.owner, "history", character="Roryn", all=True)
    assert entries(everything) == [
        "/combat remove · bookkeeping",
        "/turn · bookkeeping",
        "/combat add · bookkeeping",
    ]
    left, turn, joined = await harness.history("Roryn", bookkeeping=True)
    by = f"by <@{harness.owner.user_id}>"
    assert [f.lines for f in history_entries(everything)] == [
        [f"{by} {stamp(left)}", "Leaves the combat.", "Rules: C-2 · S-5"],
        [f"{by} {stamp(turn)}", "The turn begins.", "Rules: C-3 · S-5"],
        [f"{by} {stamp(joined)}", "Joins the combat.", "Rules: C-2 · S-5"],
    ]


async def test_U_1_an_event_of_user_0_is_by_the_bots_upgrade(harness):
    """Migration 0002 logs each rename it makes as a /character edit by user 0: nobody of the
    guild, the upgrade itself. /history says so instead of mentioning user 0."""
    before = await harness.add_character("Roryn")
    after = before.update(name="Roryn (2)")
    reason = "the same name as another character, once invisible characters are left out"
    async with harness.db.transaction(harness.guild.id) as uow:
        row = await uow.character("Roryn")
        await uow.save_character(row.id, after)
        await uow.log(
            row.id,
            0,
            "character edit",
            {"name": after.name, "reason": reason},
            before=before,
            after=after,
        )
    history = await harness.run(harness.owner, "history", character="Roryn (2)")
    [event] = await harness.history("Roryn (2)")
    [field] = history_entries(history)
    assert field.name == "/character edit"
    assert field.lines == [
        f"by the bot's upgrade {stamp(event)}",
        f"Renamed by the bot: {reason}.",
        "Name Roryn → Roryn (2)",
    ]
    assert "<@0>" not in history.card.markdown


async def test_U_1_history_escapes_names_but_not_its_own_words(harness):
    """The history line is written as the reply's change line: a typed name escaped, the
    arrows and flags as they are (the whole line was once escaped)."""
    await harness.add_character("Roryn")
    await harness.run(harness.owner, "character edit", character="Roryn", name="*Ro*_ry")
    history = await harness.run(harness.owner, "history", character="*Ro*_ry")
    [field] = history_entries(history)
    assert field.lines[1] == "Name Roryn → \\*Ro\\*\\_ry"


async def test_U_2_healing_that_changes_nothing_is_not_a_change(harness):
    await harness.add_character("Roryn")
    await harness.run(harness.owner, "heal", character="Roryn", amount=1)
    assert await harness.history("Roryn") == []
    [event] = await harness.history("Roryn", bookkeeping=True)
    assert event.command == "heal" and not event.is_change
    await harness.refusal(harness.gm, "undo", "Nothing to undo for Roryn", character="Roryn")


# --- U-3: undo ------------------------------------------------------------------------------------


async def test_U_3_undo_passes_over_bookkeeping(harness):
    """The issue's case: /recover then /round, and /undo reverted the /round first."""
    await harness.add_character("Roryn", vit=0, res=3)
    await harness.start_combat(["Roryn"])
    harness.script("C C M")
    await harness.run(harness.owner, "recover", character="Roryn")
    await harness.run(harness.gm, "round")
    assert (await harness.sheet("Roryn")).vit == 2
    [roll] = await harness.history("Roryn")

    result = await harness.run(harness.gm, "undo", character="Roryn")
    assert not result.ephemeral
    assert result.card.title == "🟡 Roryn · Undone"
    assert lines(result) == [
        "**Undone: Roryn's /recover is struck from the record; the roll may be made again.**",
        "VIT 2 → 0 · Up → Unconscious",
        f"Reverted: /recover by <@{harness.owner.user_id}> {stamp(roll)}.",  # U-3: what, who, when
    ]
    sheet = await harness.sheet("Roryn")
    assert (sheet.vit, sheet.recovered_this_round) == (0, False)
    history = await harness.run(harness.gm, "history", character="Roryn")
    assert entries(history) == ["/undo", "/recover · undone"]
    [undo, reverted] = await harness.history("Roryn")
    assert undo.inputs == {"event_id": roll.id, "command": "recover"}
    assert reverted.reverted_by == undo.id


async def test_U_3_undo_restores_only_the_fields_the_change_changed(harness):
    """Bookkeeping logged after the change stays: the reaction count reset by joining a combat
    (S-5) is not brought back by undoing a /damage made before."""
    await harness.add_character("Roryn", reactions_taken=2)
    await harness.run(harness.owner, "damage", character="Roryn", amount=3)
    await harness.run(harness.gm, "combat start")
    await harness.run(harness.owner, "combat add", character="Roryn")
    assert (await harness.sheet("Roryn")).reactions_taken == 0
    result = await harness.run(harness.gm, "undo", character="Roryn")
    assert lines(result)[:2] == [
        "**Undone: Roryn's latest change is reverted.**",
        "VIT 7 → 10",
    ]
    sheet = await harness.sheet("Roryn")
    assert (sheet.vit, sheet.reactions_taken) == (10, 0)


async def test_U_3_undo_keeps_later_changes_to_other_fields(harness):
    await harness.add_character("Roryn")
    await harness.run(harness.gm, "character set", character="Roryn", vit=4)
    await harness.run(harness.gm, "character set", character="Roryn", stress=2)
    await harness.run(harness.gm, "undo", character="Roryn")  # the Stress
    await harness.run(harness.owner, "emotion", character="Roryn", emotion="fear")
    result = await harness.run(harness.gm, "undo", character="Roryn")  # the Fear
    assert "Fear 1/4 → 0/4" in lines(result)
    sheet = await harness.sheet("Roryn")
    assert (sheet.vit, sheet.stress, sheet.fear) == (4, 0, 0)


async def test_U_3_bookkeeping_logged_after_the_change_stays(harness):
    """Undoing a reaction made before /combat end once brought back the reaction count that
    /combat end reset (S-5)."""
    await harness.add_character("Roryn")
    await harness.start_combat(["Roryn"])
    await harness.run(harness.owner, "react", character="Roryn")
    await harness.run(harness.owner, "react", character="Roryn")
    await harness.run(harness.gm, "combat end")  # S-5: the next fight's first reaction costs 1
    await harness.run(harness.gm, "undo", character="Roryn")  # the second reaction
    sheet = await harness.sheet("Roryn")
    assert sheet.stamina == 7
    assert sheet.reactions_taken == 0, "the next reaction would cost 2 after the combat ended"


async def test_U_3_the_undo_is_an_event_and_can_go_further_back(harness):
    await harness.add_character("Roryn")
    await harness.run(harness.owner, "damage", character="Roryn", amount=2)
    await harness.run(harness.owner, "damage", character="Roryn", amount=3)
    await harness.run(harness.gm, "undo", character="Roryn")
    await harness.run(harness.gm, "undo", character="Roryn")
    assert (await harness.sheet("Roryn")).vit == 10
    assert [e.command for e in await harness.history("Roryn")] == [
        "undo",
        "undo",
        "damage",
        "damage",
    ]
    await harness.refusal(harness.gm, "undo", "Nothing to undo for Roryn", character="Roryn")


async def test_U_3_undo_is_the_gms(harness):
    await harness.add_character("Roryn")
    await harness.run(harness.owner, "damage", character="Roryn", amount=2)
    for who in (harness.owner, harness.player, harness.gm_role):  # no GM role set
        await harness.refusal(who, "undo", "(P-3)", character="Roryn")
    await harness.refusal(harness.outsider, "undo", "No character named Roryn", character="Roryn")


async def test_U_3_a_refused_undo_names_the_character_escaped(harness):
    await harness.add_character("*Ro*")
    text = await harness.refusal(harness.gm, "undo", "Nothing to undo for", character="*Ro*")
    assert text == "Nothing to undo for \\*Ro\\*."


# --- a deleted character's history stays reachable for the GM ----------------------------------


async def test_U_1_a_deleted_characters_history_by_its_old_name_for_the_gm(harness):
    await harness.add_character("Roryn", logged=True)
    await harness.run(harness.owner, "damage", character="Roryn", amount=3)
    await delete(harness, harness.owner, "Roryn")
    result = await harness.run(harness.gm, "history", character="roryn")
    assert result.ephemeral
    assert result.card.title == "🟢 Roryn · History (deleted)"
    assert entries(result) == ["/character delete", "/damage", "/character create"]
    assert history_entries(result)[0].lines[1] == "deleted"
    # the owner and the other players reach it no more (the GM's, P-4)
    await harness.refusal(harness.owner, "history", "No character named Roryn", character="Roryn")
    await harness.refusal(harness.player, "history", "No character named", character="Roryn")


async def test_U_1_a_deleted_character_is_offered_to_the_gm_as_deleted_id(harness):
    await harness.add_character("Roryn", logged=True)
    old = await harness.row("Roryn")
    await delete(harness, harness.gm, "Roryn")
    await harness.add_character("Roryn", logged=True)  # a new one takes the name
    new = await harness.row("Roryn")

    choices = await harness.complete(harness.gm, "history", "character", character="ro")
    assert choices == [
        {"name": "🟢 Roryn · Up, VIT 10/10", "value": "Roryn"},
        {"name": "🟢 Roryn · Up, VIT 10/10 · deleted", "value": f"{DELETED}{old.id}"},
    ]
    players = await harness.complete(harness.owner, "history", "character", character="ro")
    assert players == [{"name": "🟢 Roryn · Up, VIT 10/10", "value": "Roryn"}]

    by_name = await harness.run(harness.gm, "history", character="Roryn")
    assert by_name.card.title == "🟢 Roryn · History"  # the living one
    [created] = await harness.history(character_id=new.id)
    assert entries(by_name) == ["/character create"] and created.character_id == new.id
    by_id = await harness.run(harness.gm, "history", character=f"{DELETED}{old.id}")
    assert by_id.card.title == "🟢 Roryn · History (deleted)"
    assert entries(by_id) == ["/character delete", "/character create"]
    assert [e.command for e in await harness.history(character_id=old.id)] == [
        "character delete",
        "character create",
    ]
    await harness.refusal(
        harness.owner, "history", "No character named", character=f"{DELETED}{old.id}"
    )
    await harness.refusal(
        harness.gm, "history", "No character named", character=f"{DELETED}{new.id + 100}"
    )


async def test_U_1_a_deleted_characters_log_is_its_guilds_only(harness):
    await harness.add_character("Roryn", logged=True)
    old = await harness.row("Roryn")
    await delete(harness, harness.owner, "Roryn")
    await harness.refusal(harness.outsider, "history", "No character named", character="Roryn")
    await harness.refusal(
        harness.outsider, "history", "No character named", character=f"{DELETED}{old.id}"
    )
    assert await harness.complete(harness.outsider, "history", "character", character="") == []
