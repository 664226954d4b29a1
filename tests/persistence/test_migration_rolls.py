"""Migration 0003 on a populated database: the events of rolls, logged as bookkeeping when their
result changed nothing a player sees, become changes (U-2, revised; issue 21), and /undo then
reverts them (U-3, R-8). On SQLite, and on PostgreSQL when TEST_DATABASE_URL names a server.

The rows are written by the bot's own write path at revision 0002, then marked as the bot of
0002 marked them (a change only when a field a player sees differs; undoable only then)."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from alembic import command
from sqlalchemy import Boolean, bindparam, text

from bot.db.database import Database
from bot.db.engine import create_engine
from bot.db.migrate import alembic_config, upgrade_engine
from bot.db.records import Event
from rules import history
from rules.dice import ScriptedRandom
from rules.errors import RuleError
from rules.models import GuildSettings, Sheet
from rules.outcome import Outcome
from rules.table import new_round
from rules.vitality import damage, recover
from tests.persistence.conftest import empty_database
from tests.persistence.helpers import GUILD, OWNER, Target, log_of, replay

GM = 99
COMBAT = {"in_combat": True, "by_gm": False}
OUTSIDE = {"in_combat": False, "by_gm": True}


def dice(letters: str) -> random.Random:
    return ScriptedRandom.faces(letters, "MMMHHC")


@dataclass
class Old:
    """What the bot of 0002 logged, by a label of the test's own."""

    ids: dict[str, int] = field(default_factory=dict)
    characters: dict[str, int] = field(default_factory=dict)
    bookkeeping: list[int] = field(default_factory=list)  # the events 0002 marked so


async def _write(db: Database, old: Old) -> None:
    settings = GuildSettings()

    async with db.transaction(GUILD) as uow:

        async def create(name: str, **fields: Any) -> tuple[int, Sheet]:
            sheet = Sheet(name=name, owner_id=OWNER, **fields)
            row = await uow.add_character(sheet)
            await uow.log(row.id, OWNER, "character create", {"name": name}, after=sheet)
            old.characters[name] = row.id
            return row.id, sheet

        async def act(
            label: str, row_id: int, name: str, outcome: Outcome, *, bookkeeping: bool = False
        ) -> Sheet:
            await uow.save_character(row_id, outcome.after)
            inputs = {"amount": 10} if name == "damage" else {}  # what replay reads
            old.ids[label] = await uow.log_outcome(row_id, OWNER, name, inputs, outcome)
            if bookkeeping:
                old.bookkeeping.append(old.ids[label])
            return outcome.after

        # Roryn, the case: damage to 0, a roll with no Crit in combat, a new round.
        roryn, sheet = await create("Roryn", res=2)
        sheet = await act("roryn damage", roryn, "damage", damage(sheet, 10, settings))
        rolled = recover(sheet, settings, dice("MH"), **COMBAT)
        sheet = await act("roryn roll", roryn, "recover", rolled, bookkeeping=True)
        await act("roryn round", roryn, "round", new_round([sheet], settings)[0], bookkeeping=True)

        # Sera: the GM's roll outside combat, which changed nothing at all.
        sera, sheet = await create("Sera", res=2, vit=0)
        rolled = recover(sheet, settings, dice("HM"), **OUTSIDE)
        assert rolled.after == rolled.before
        await act("sera roll", sera, "recover", rolled, bookkeeping=True)

        # Ash: the old /undo passed over its roll to the damage before it.
        ash, sheet = await create("Ash", res=2)
        hurt = damage(sheet, 10, settings)
        sheet = await act("ash damage", ash, "damage", hurt)
        rolled = recover(sheet, settings, dice("MH"), **COMBAT)
        sheet = await act("ash roll", ash, "recover", rolled, bookkeeping=True)
        undone = history.revert(sheet, hurt.before, hurt.after, "damage")
        await uow.save_character(ash, undone.after)
        old.ids["ash undo"] = await uow.log(
            ash,
            GM,
            "undo",
            {"event_id": old.ids["ash damage"], "command": "damage"},
            before=undone.before,
            after=undone.after,
            rules=undone.rules,
        )

        # Kai: a roll that changed VIT was a change already.
        kai, sheet = await create("Kai", res=3, vit=-1)
        await act("kai roll", kai, "recover", recover(sheet, settings, dice("CH"), **OUTSIDE))

    async with db.engine.begin() as conn:
        # As 0002 marked them: bookkeeping, never undoable; the old undo's target reverted.
        await conn.execute(
            text("UPDATE events SET is_change = :no, undoable = :no WHERE id = :id").bindparams(
                bindparam("no", type_=Boolean())
            ),
            [{"no": False, "id": event_id} for event_id in old.bookkeeping],
        )
        await conn.execute(
            text("UPDATE events SET undoable = :no WHERE id = :id").bindparams(
                bindparam("no", type_=Boolean())
            ),
            {"no": False, "id": old.ids["ash undo"]},
        )
        await conn.execute(
            text("UPDATE events SET reverted_by = :by WHERE id = :id"),
            {"by": old.ids["ash undo"], "id": old.ids["ash damage"]},
        )


async def _marks(target: Target) -> dict[int, tuple[bool, bool]]:
    """Every event's (is_change, undoable), by id."""
    engine = create_engine(target.url, connect_args=target.connect_args)
    try:
        async with engine.connect() as conn:
            rows = (
                await conn.execute(text("SELECT id, is_change, undoable FROM events ORDER BY id"))
            ).all()
    finally:
        await engine.dispose()
    return {int(i): (bool(change), bool(undoable)) for i, change, undoable in rows}


@dataclass
class Upgraded:
    target: Target
    old: Old
    before: dict[int, tuple[bool, bool]]  # the marks at 0002


@pytest.fixture
async def upgraded(backend: str, tmp_path: Path) -> AsyncIterator[Upgraded]:
    async with empty_database(backend, tmp_path) as target:
        engine = create_engine(target.url, connect_args=target.connect_args)
        try:
            await upgrade_engine(engine, "0002")
        finally:
            await engine.dispose()
        old = Old()
        db = await target.connect()
        try:
            await _write(db, old)
        finally:
            await db.close()
        before = await _marks(target)
        db = await target.connect()
        try:
            await db.upgrade()
        finally:
            await db.close()
        yield Upgraded(target, old, before)


async def _undo(db: Database, name: str, old: Old) -> tuple[Outcome, Event]:
    async with db.transaction(GUILD) as uow:
        return await uow.undo(old.characters[name], GM)


async def test_the_events_of_rolls_become_changes_and_nothing_else_moves(
    upgraded: Upgraded,
) -> None:
    old, before = upgraded.old, upgraded.before
    after = await _marks(upgraded.target)
    assert after.keys() == before.keys()  # no event added or removed
    rolls = {old.ids[label] for label in ("roryn roll", "sera roll", "ash roll")}
    for event_id, marks in after.items():
        if event_id in rolls:
            assert before[event_id] == (False, False)
            # U-3: undoable, except the roll an old undo passed over (it stays out of order)
            assert marks == (True, event_id != old.ids["ash roll"]), event_id
        else:
            assert marks == before[event_id], event_id
    assert after[old.ids["roryn round"]] == (False, False)  # bookkeeping without dice stays
    assert after[old.ids["kai roll"]] == (True, True)


async def test_after_the_upgrade_history_shows_the_rolls_and_undo_strikes_them(
    upgraded: Upgraded,
) -> None:
    """The issue's case on old rows: /undo strikes Roryn's roll, not its damage; then the
    damage. Sera's roll, which changed nothing, is struck all the same. Ash's roll is shown,
    and /undo does not go back past the undo that passed over it."""
    old = upgraded.old
    db = await upgraded.target.connect()
    try:
        async with db.transaction(GUILD, read_only=True) as uow:
            shown = [e.command for e in await uow.history(old.characters["Roryn"], 10)]
            assert shown == ["recover", "damage", "character create"]
            shown = [e.command for e in await uow.history(old.characters["Ash"], 10)]
            assert shown == ["undo", "recover", "damage", "character create"]

        outcome, reverted = await _undo(db, "Roryn", old)
        assert reverted.id == old.ids["roryn roll"]
        assert outcome.after.vit == 0 and "struck from the record" in outcome.headline
        outcome, reverted = await _undo(db, "Roryn", old)
        assert reverted.id == old.ids["roryn damage"] and outcome.after.vit == 10

        outcome, reverted = await _undo(db, "Sera", old)
        assert reverted.id == old.ids["sera roll"] and outcome.after == outcome.before

        with pytest.raises(RuleError, match=r"^Nothing to undo for Ash\.$"):
            await _undo(db, "Ash", old)
        for name in ("Roryn", "Sera", "Ash", "Kai"):
            async with db.transaction(GUILD, read_only=True) as uow:
                row = await uow.character_by_id(old.characters[name], lock=False)
            assert row is not None and replay(await log_of(db, row.id)) == row.sheet
    finally:
        await db.close()


async def test_the_downgrade_gives_back_the_marks_of_0002(upgraded: Upgraded) -> None:
    target = upgraded.target
    db = await target.connect()
    try:
        async with db.engine.begin() as conn:
            await conn.run_sync(lambda c: command.downgrade(alembic_config(connection=c), "0002"))
    finally:
        await db.close()
    assert await _marks(target) == upgraded.before
