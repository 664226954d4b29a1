"""Database.act / read_actor (bot/db/hotpath.py): the driver-level path of a command on one
character writes what the unit of work writes, refuses what it refuses, and reads alike."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

import pytest

from bot.db import Database, Event
from bot.services.base import run_character_action
from bot.services.context import ActionContext, Permission
from bot.services.sheet import edit_character, show_character
from rules import stamina
from rules.models import GuildSettings
from rules.outcome import Outcome, RuleError
from tests.persistence.helpers import GUILD, caller, create, hit, log_of, sheet_of


def _unit_of_work_only(db: Database) -> Database:
    """The same database without the hot path: act() falls back to the unit of work."""
    return Database(db.engine)


async def _push(db: Database, name: str, seed: int) -> Outcome:
    """A rule with dice: the rolls and rules go to the log too."""

    def apply(ctx: ActionContext) -> Outcome:
        return stamina.push(ctx.sheet, 2, ctx.rng, roll="2d20", target=15)

    return await run_character_action(
        db,
        caller(),
        command="push",
        inputs={"amount": 2, "roll": "2d20", "target": 15},
        character=name,
        permission=Permission.OWNER_OR_GM,
        apply=apply,
        rng=random.Random(seed),
    )


async def test_the_hot_path_logs_what_the_unit_of_work_logs(db: Database) -> None:
    hot, plain = await create(db, "Hot"), await create(db, "Plain")
    fallback = _unit_of_work_only(db)
    for target, row in ((db, hot), (fallback, plain)):
        await hit(target, row.sheet.name, 2)
        await _push(target, row.sheet.name, 4)
    logs = {row.id: (await log_of(db, row.id))[1:] for row in (hot, plain)}

    def essence(event: Event) -> tuple:  # what must agree; ids, stamps and names differ
        return (
            event.command,
            event.inputs,
            event.rolls,
            event.rules,
            event.before.update(name="x"),
            event.after.update(name="x"),
        )

    assert [essence(e) for e in logs[hot.id]] == [essence(e) for e in logs[plain.id]]
    assert len(logs[hot.id]) == 2 and logs[hot.id][1].rolls
    sheets = [await sheet_of(db, row.id) for row in (hot, plain)]
    assert sheets[0].update(name="x") == sheets[1].update(name="x") != hot.sheet.update(name="x")


async def test_undo_reverts_a_hot_path_change(db: Database) -> None:
    row = await create(db, "Ada")
    await hit(db, "Ada", 3)
    async with db.transaction(GUILD) as uow:
        undone = await uow.undo(row.id, 7)
    assert undone.after == row.sheet and await sheet_of(db, row.id) == row.sheet
    events = await log_of(db, row.id)
    assert [e.command for e in events] == ["character create", "damage", "undo"]
    assert events[1].reverted_by == events[2].id


async def test_a_rename_onto_a_taken_name_is_refused_and_changes_nothing(db: Database) -> None:
    await create(db, "Alba")
    bea = await create(db, "Bea")
    rng = random.Random(1)
    with pytest.raises(RuleError, match="already has a character named ALBA"):
        await edit_character(db, caller(), rng, "Bea", name="ALBA")
    assert await sheet_of(db, bea.id) == bea.sheet
    assert len(await log_of(db, bea.id)) == 1
    renamed = await edit_character(db, caller(), rng, "bea", name="Beatrix")
    assert renamed.after.name == "Beatrix"
    assert (await show_character(db, caller(), "BEATRIX")).id == bea.id
    with pytest.raises(RuleError, match="No character named Bea"):
        await show_character(db, caller(), "Bea")


async def test_read_actor_finds_the_active_character_its_combat_and_the_settings(
    db: Database,
) -> None:
    row = await create(db, "Cy")
    async with db.transaction(GUILD) as uow:
        await uow.save_settings(GuildSettings(emotion_threshold=6))
        await uow.set_active(7, row.id)
        combat = await uow.start_combat(55, round_number=2)
        await uow.add_member(combat.id, row.id)
    for target in (db, _unit_of_work_only(db)):
        actor = await target.read_actor(GUILD, None, 7)
        assert actor.row is not None and actor.row.id == row.id and actor.row.sheet == row.sheet
        assert actor.settings.emotion_threshold == 6
        assert actor.combat == combat
        nobody = await target.read_actor(GUILD, None, 8)
        assert nobody.row is None and nobody.settings.emotion_threshold == 6


async def test_the_sqlite_writer_holds_the_write_lock_only_inside_a_command(
    sqlite_db: Database,
) -> None:
    row = await create(sqlite_db, "Lock")
    await hit(sqlite_db, "Lock", 1)
    other = sqlite3.connect(sqlite_db.engine.url.database, timeout=0, isolation_level=None)
    try:
        other.execute("BEGIN IMMEDIATE")  # free between commands
        other.execute("ROLLBACK")
    finally:
        other.close()
    assert (await sheet_of(sqlite_db, row.id)).vit == 9


async def test_a_database_that_cannot_be_opened_fails_each_command_and_closes(
    tmp_path: Path,
) -> None:
    db = await Database.connect(f"sqlite+aiosqlite:///{tmp_path / 'missing' / 'x.db'}")
    try:
        for _ in range(2):  # the writer thread stays up and tries again
            with pytest.raises(sqlite3.OperationalError, match="unable to open"):
                await hit(db, "Nobody", 1)
        with pytest.raises(sqlite3.OperationalError, match="unable to open"):
            await show_character(db, caller(), "Nobody")
    finally:
        await db.close()
