"""Undo (U-3) and history (U-2) come from the event log."""

from __future__ import annotations

import random

import pytest
from sqlalchemy import select

from bot.db.database import Database
from bot.db.records import Event
from bot.db.tables import events
from bot.services.base import run_character_action
from bot.services.context import ActionContext, Permission
from rules import stamina
from rules.dice import ScriptedRandom
from rules.errors import RuleError
from rules.outcome import Outcome
from rules.rolls import NarateerRoll, NumericRoll
from rules.vitality import recover
from tests.persistence.helpers import GUILD, caller, create, hit, log_of, replay, sheet_of


async def _undo(db: Database, character_id: int, guild_id: int = GUILD) -> tuple[Outcome, Event]:
    async with db.transaction(guild_id) as uow:
        return await uow.undo(character_id, 99)


async def _undoable(db: Database, event_id: int) -> bool:
    async with db.engine.connect() as conn:
        stmt = select(events.c.undoable).where(events.c.id == event_id)
        return bool((await conn.execute(stmt)).scalar_one())


async def test_undo_restores_the_exact_previous_state_and_is_logged(db: Database) -> None:
    row = await create(db, "Ula", res=3)
    first = await hit(db, "Ula", 4)
    second = await hit(db, "Ula", 7)  # VIT 6 → -1: Up → Critical
    assert second.after.vit == -1

    outcome, reverted = await _undo(db, row.id)
    assert outcome.before == second.after and outcome.after == second.before
    assert (reverted.command, reverted.before, reverted.after) == (
        "damage",
        second.before,
        second.after,
    )
    assert await sheet_of(db, row.id) == second.before
    outcome, reverted = await _undo(db, row.id)  # the next undo walks further back
    assert outcome.after == row.sheet and reverted.after == first.after
    assert await sheet_of(db, row.id) == row.sheet

    log = await log_of(db, row.id)
    assert [e.command for e in log] == ["character create", "damage", "damage", "undo", "undo"]
    assert [e.reverted_by for e in log[:3]] == [None, log[4].id, log[3].id]
    assert log[3].inputs == {"event_id": log[2].id, "command": "damage"}
    assert log[3].user_id == 99 and "U-3" in log[3].rules
    assert all(e.is_change for e in log)  # an undo is a change a player sees (U-2) …
    assert not await _undoable(db, log[3].id)  # … but never itself undone (U-3)
    assert replay(log) == row.sheet
    with pytest.raises(RuleError, match=r"^Nothing to undo for Ula\.$"):
        await _undo(db, row.id)  # creation is not undone, nor the undos
    assert len(await log_of(db, row.id)) == 5  # a refused undo logs nothing


async def test_undo_after_new_changes_reverts_the_newest(db: Database) -> None:
    row = await create(db, "Vic")
    await hit(db, "Vic", 1)
    await _undo(db, row.id)
    third = await hit(db, "Vic", 2)
    assert (await _undo(db, row.id))[0].after == third.before == row.sheet
    with pytest.raises(RuleError, match="Nothing to undo"):
        await _undo(db, row.id)


async def test_undo_skips_bookkeeping_and_leaves_it_in_place(db: Database) -> None:
    """U-3: the latest change is reverted, only the fields it changed; bookkeeping logged
    since (here the reaction count) stays, and is never itself undone."""
    row = await create(db, "Wes")
    hurt = await hit(db, "Wes", 3)
    async with db.transaction(GUILD) as uow:
        await uow.log(row.id, 7, "character select", {"character": "Wes"})  # no sheet at all
        loaded = await uow.character_by_id(row.id)
        assert loaded is not None
        counted = loaded.sheet.update(reactions_taken=2)
        await uow.save_character(row.id, counted)
        await uow.log(row.id, 7, "turn", {}, before=loaded.sheet, after=counted)
        await uow.log(row.id, 7, "turn", {}, before=counted, after=counted)  # no change at all
    outcome, reverted = await _undo(db, row.id)
    assert reverted.command == "damage" and reverted.after == hurt.after
    assert outcome.after == row.sheet.update(reactions_taken=2)
    log = await log_of(db, row.id)
    assert [e.is_change for e in log] == [True, True, False, False, False, True]
    assert [e.reverted_by for e in log[2:5]] == [None, None, None]
    async with db.transaction(GUILD, read_only=True) as uow:
        shown = [e.command for e in await uow.history(row.id, 10)]
        everything = [e.command for e in await uow.history(row.id, 10, bookkeeping=True)]
    assert shown == ["undo", "damage", "character create"]  # U-2: changes only
    assert everything == ["undo", "turn", "turn", "character select", "damage", "character create"]


async def test_undo_of_a_deleted_character_is_refused(db: Database) -> None:
    row = await create(db, "Xan_*")
    await hit(db, "Xan_*", 3)
    async with db.transaction(GUILD) as uow:
        await uow.delete_character(row.id)
    with pytest.raises(RuleError, match=r"^Nothing to undo for Xan_\*\.$") as refused:
        await _undo(db, row.id)
    assert refused.value.values == {"name": "Xan_*"}  # a value: escaped where rendered
    with pytest.raises(RuleError, match="Nothing to undo for character 424242"):
        await _undo(db, 424242)


async def test_undo_reaches_no_other_guild(db: Database) -> None:
    row = await create(db, "Yul")
    await hit(db, "Yul", 3)
    with pytest.raises(RuleError, match="Nothing to undo"):
        await _undo(db, row.id, GUILD + 1)
    sheet = await sheet_of(db, row.id)
    assert sheet is not None and sheet.vit == 7


async def test_history_lists_the_latest_changes_with_their_dice(db: Database) -> None:
    row = await create(db, "Zed", res=3)
    await hit(db, "Zed", 11)  # VIT -1: Critical, 2 recovery dice

    def roll(ctx: ActionContext) -> Outcome:
        return recover(ctx.sheet, ctx.settings, ctx.rng, in_combat=False, by_gm=ctx.is_gm)

    rolled = await run_character_action(
        db,
        caller(user_id=3, gm=True),
        command="recover",
        inputs={},
        target="zed",
        permission=Permission.OWNER_OR_GM,
        apply=roll,
        rng=ScriptedRandom.faces("CC"),
    )
    assert rolled.outcome.after.vit == 1  # two Crits, VIT 1

    def push(ctx: ActionContext) -> Outcome:
        return stamina.push(ctx.sheet, 2, ctx.rng, roll="2d20+1", target=15, what="climb")

    pushed = await run_character_action(
        db,
        caller(),
        command="push",
        inputs={"amount": 2, "roll": "2d20+1", "target": 15},
        target=row.id,
        permission=Permission.OWNER_OR_GM,
        apply=push,
        rng=random.Random(4),
    )
    (check,) = pushed.outcome.rolls
    assert isinstance(check, NumericRoll) and ("push", 2) in check.bonuses

    async with db.transaction(GUILD, read_only=True) as uow:
        latest = await uow.history(row.id, 3)
    assert [event.command for event in latest] == ["push", "recover", "damage"]
    assert latest[0].rolls == (check,)  # value, bonuses and total kept whole (D-4)
    event = latest[1]
    assert event.user_id == 3 and event.character_id == row.id and event.guild_id == GUILD
    assert event.rolls == rolled.outcome.rolls
    assert isinstance(event.rolls[0], NarateerRoll) and event.rolls[0].faces == ("C", "C")
    assert event.rules == rolled.outcome.rules and "R-3" in event.rules
    assert (event.before, event.after) == (rolled.outcome.before, rolled.outcome.after)
    assert event.is_change and not event.reverted
    assert event.created_at.tzinfo is not None and event.created_at >= latest[2].created_at
    assert latest[2].inputs == {"amount": 11} and latest[2].rolls == ()


async def test_the_log_of_a_deleted_character_stays_reachable(db: Database) -> None:
    """U-2 for the GM: deleted() names the deleted characters, newest first, with their last
    sheet; history() still reads their log by id."""
    old = await create(db, "Gone")
    await hit(db, "Gone", 2)
    kept = await create(db, "Kept")
    newer = await create(db, "Later")
    for row in (old, newer):
        async with db.transaction(GUILD) as uow:
            loaded = await uow.character_by_id(row.id)
            assert loaded is not None
            await uow.log(row.id, 7, "character delete", {}, before=loaded.sheet)
            await uow.delete_character(row.id)
    async with db.transaction(GUILD, read_only=True) as uow:
        gone = await uow.deleted()
        assert [(i, s.name) for i, s in gone] == [(newer.id, "Later"), (old.id, "Gone")]
        assert gone[1][1].vit == 8  # the sheet as it was when deleted
        assert await uow.deleted_named("GONE") == gone[1]
        assert await uow.deleted_named("Kept") is None
        assert await uow.name_of(old.id) == "Gone" and await uow.name_of(kept.id) == "Kept"
        log = await uow.history(old.id, 10)
    assert [e.command for e in log] == ["character delete", "damage", "character create"]
    assert log[0].after is None and log[0].is_change
    async with db.transaction(GUILD + 1, read_only=True) as uow:
        assert await uow.deleted() == []  # P-2
