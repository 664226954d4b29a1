"""Undo and history come from the event log."""

from __future__ import annotations

import pytest

from bot.db import Database
from bot.services.base import run_character_action
from bot.services.context import ActionContext, Permission
from rules.dice import ScriptedRandom
from rules.outcome import NarateerRoll, Outcome, RuleError
from rules.vitality import recover
from tests.persistence.helpers import GUILD, caller, create, hit, log_of, replay, sheet_of


async def _undo(db: Database, character_id: int) -> Outcome:
    async with db.transaction(GUILD) as uow:
        return await uow.undo(character_id, 99)


async def test_undo_restores_the_exact_previous_state_and_is_logged(db: Database) -> None:
    row = await create(db, "Ula", res=3)
    await hit(db, "Ula", 4)
    second = await hit(db, "Ula", 7)  # VIT 6 → -1: Up → Critical
    assert second.after.vit == -1

    outcome = await _undo(db, row.id)
    assert outcome.before == second.after and outcome.after == second.before
    assert await sheet_of(db, row.id) == second.before
    outcome = await _undo(db, row.id)  # the next undo walks further back
    assert outcome.after == row.sheet
    assert await sheet_of(db, row.id) == row.sheet

    events = await log_of(db, row.id)
    assert [e.command for e in events] == ["character create", "damage", "damage", "undo", "undo"]
    assert [e.reverted_by for e in events[:3]] == [None, events[4].id, events[3].id]
    assert events[3].inputs == {"event_id": events[2].id, "command": "damage"}
    assert events[3].user_id == 99
    assert replay(events) == row.sheet
    with pytest.raises(RuleError, match=r"^Nothing to undo for Ula\.$"):
        await _undo(db, row.id)  # creation is not undone
    assert len(await log_of(db, row.id)) == 5  # a refused undo logs nothing


async def test_undo_after_new_changes_reverts_the_newest(db: Database) -> None:
    row = await create(db, "Vic")
    await hit(db, "Vic", 1)
    await _undo(db, row.id)
    third = await hit(db, "Vic", 2)
    assert (await _undo(db, row.id)).after == third.before == row.sheet
    with pytest.raises(RuleError, match="Nothing to undo"):
        await _undo(db, row.id)


async def test_undo_skips_events_that_changed_nothing(db: Database) -> None:
    row = await create(db, "Wes")
    hurt = await hit(db, "Wes", 3)
    async with db.transaction(GUILD) as uow:
        await uow.log(row.id, 7, "character select", {"character": "Wes"})
        await uow.log(row.id, 7, "turn", {}, before=hurt.after, after=hurt.after)
    assert (await _undo(db, row.id)).after == row.sheet


async def test_undo_of_a_deleted_character_is_refused(db: Database) -> None:
    row = await create(db, "Xan_*")
    await hit(db, "Xan_*", 3)
    async with db.transaction(GUILD) as uow:
        await uow.delete_character(row.id)
    with pytest.raises(RuleError, match=r"^Nothing to undo for Xan\\_\\\*\.$"):  # escaped
        await _undo(db, row.id)
    with pytest.raises(RuleError, match="Nothing to undo for character 424242"):
        await _undo(db, 424242)


async def test_undo_reaches_no_other_guild(db: Database) -> None:
    row = await create(db, "Yul")
    await hit(db, "Yul", 3)
    with pytest.raises(RuleError, match="Nothing to undo"):
        async with db.transaction(GUILD + 1) as uow:
            await uow.undo(row.id, 7)
    assert (await sheet_of(db, row.id)).vit == 7


async def test_history_lists_the_latest_events_with_their_dice(db: Database) -> None:
    row = await create(db, "Zed", res=3)
    await hit(db, "Zed", 11)  # VIT -1: Critical, 2 recovery dice

    def roll(ctx: ActionContext) -> Outcome:
        return recover(ctx.sheet, ctx.settings, ctx.rng, in_combat=False, by_gm=ctx.is_gm)

    rolled = await run_character_action(
        db,
        caller(user_id=3, gm=True),
        command="recover",
        inputs={},
        character="zed",
        permission=Permission.OWNER_OR_GM,
        apply=roll,
        rng=ScriptedRandom.faces("CC"),
    )
    assert rolled.after.vit == 1  # two Crits, VIT 1

    async with db.transaction(GUILD, read_only=True) as uow:
        latest = await uow.history(row.id, 2)
    assert [event.command for event in latest] == ["recover", "damage"]
    event = latest[0]
    assert event.user_id == 3 and event.character_id == row.id and event.guild_id == GUILD
    assert event.rolls == rolled.rolls
    assert isinstance(event.rolls[0], NarateerRoll) and event.rolls[0].faces == ("C", "C")
    assert event.rules == rolled.rules and "R-3" in event.rules
    assert (event.before, event.after) == (rolled.before, rolled.after)
    assert event.created_at.tzinfo is not None and event.created_at >= latest[1].created_at
    assert latest[1].inputs == {"amount": 11} and latest[1].rolls == ()
