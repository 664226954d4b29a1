"""Migration 0007 on a populated database, SQLite and PostgreSQL: the event log's deletions get
an index of their own, every row stays as it was, and the GM's list of a guild's deleted
characters (the campaign page) reads it instead of every event the guild ever logged. The
downgrade drops it."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import inspect, text

from bot.db.database import Database
from bot.db.events import DELETED
from tests.persistence.conftest import at_revision
from tests.persistence.helpers import GUILD, create, every_row, hit, migrate

INDEX = "ix_events_deletions"


async def _indexes(db: Database) -> set[str]:
    async with db.engine.connect() as conn:
        found = await conn.run_sync(lambda c: inspect(c).get_indexes("events"))
    return {str(index["name"]) for index in found}


def _literal(value: object) -> str:
    return str(value) if isinstance(value, int) else "'" + str(value).replace("'", "''") + "'"


async def _plan(db: Database) -> str:
    """How the database reads bot/db/events.py's DELETED as the bot sends it, its parameters
    bound: on PostgreSQL the plan it keeps for a prepared statement (a generic plan, as asyncpg's
    statements get after a few runs), told to avoid reading the whole table, which its planner
    prefers for a table this small."""
    compiled = DELETED.compile(dialect=db.engine.dialect)
    params = compiled.construct_params({"guild_id": GUILD})
    sql, args = str(compiled), [params[name] for name in compiled.positiontup or ()]
    async with db.engine.connect() as conn:
        if db.postgres:
            await conn.execute(text("SET LOCAL enable_seqscan = off"))
            await conn.execute(text("SET LOCAL plan_cache_mode = force_generic_plan"))
            await conn.exec_driver_sql(f"PREPARE deleted AS {sql}")
            values = ", ".join(_literal(arg) for arg in args)
            rows = (await conn.exec_driver_sql(f"EXPLAIN EXECUTE deleted({values})")).all()
            await conn.exec_driver_sql("DEALLOCATE deleted")  # the session outlives the test
            return "\n".join(str(row[0]) for row in rows)
        found = await conn.exec_driver_sql(f"EXPLAIN QUERY PLAN {sql}", tuple(args))
        return "\n".join(str(row[-1]) for row in found.all())


async def test_the_deletions_get_their_own_index_and_every_row_stays(
    backend: str, tmp_path: Path
) -> None:
    async with at_revision(backend, tmp_path, "0006") as db:
        # A database of 0006 in use: a character hit a few times, another deleted.
        await create(db, "Roryn")
        gone = await create(db, "Ash")
        for _ in range(3):
            await hit(db, "Roryn", 1)
        async with db.transaction(GUILD) as uow:
            await uow.log(gone.id, 7, "character delete", {}, before=gone.sheet)
            await uow.delete_character(gone.id)
        before = await every_row(db)
        assert INDEX not in await _indexes(db)
        assert INDEX not in await _plan(db)

        await db.upgrade()
        assert await every_row(db) == before
        assert INDEX in await _indexes(db)
        assert INDEX in await _plan(db)
        async with db.transaction(GUILD, read_only=True) as uow:
            assert [(i, s.name) for i, s in await uow.deleted()] == [(gone.id, "Ash")]

        await migrate(db, "downgrade", "0006")
        assert INDEX not in await _indexes(db)
        assert await every_row(db) == before
