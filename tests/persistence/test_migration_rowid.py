"""Migration 0006 on a populated database: SQLite's event log loses AUTOINCREMENT and keeps
every row, id, column and index; the next event takes the next id; characters keep
AUTOINCREMENT (a deleted character's id is never given again). PostgreSQL is left as it was.
The downgrade puts AUTOINCREMENT back, and still no id is reused."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import text

from bot.db.database import Database
from tests.persistence.conftest import at_revision
from tests.persistence.helpers import GUILD, create, every_row, hit, log_of, migrate


async def _schema(db: Database, table: str) -> list[tuple[str, str | None]]:
    """SQLite's own text of a table and of its indexes."""
    async with db.engine.connect() as conn:
        result = await conn.execute(
            text("SELECT name, sql FROM sqlite_master WHERE tbl_name = :t ORDER BY name"),
            {"t": table},
        )
        return [(name, sql) for name, sql in result.all()]


async def _columns(db: Database) -> list[str]:
    async with db.engine.connect() as conn:
        result = await conn.execute(text("SELECT * FROM events LIMIT 0"))
        return list(result.keys())


def _autoincrement(schema: list[tuple[str, str | None]], table: str) -> bool:
    (sql,) = [sql for name, sql in schema if name == table]
    assert sql is not None
    return "AUTOINCREMENT" in sql.upper()


async def _next_event_id(db: Database, character_id: int) -> int:
    await hit(db, "Roryn", 1)
    return max(event.id for event in await log_of(db, character_id))


async def test_the_event_log_drops_autoincrement_and_keeps_every_row(
    backend: str, tmp_path: Path
) -> None:
    async with at_revision(backend, tmp_path, "0005") as db:
        # A database of 0005 in use: events of three characters, the newest one's deleted.
        roryn = await create(db, "Roryn")
        await create(db, "Sera", guild_id=2002)
        gone = await create(db, "Ash")
        await hit(db, "Roryn", 2)
        async with db.transaction(GUILD) as uow:
            await uow.log(gone.id, 7, "character delete", {}, before=gone.sheet)
            await uow.delete_character(gone.id)
        before = await every_row(db)
        newest = max(int(row[0]) for row in before["events"])
        if not db.postgres:
            old_events = await _schema(db, "events")
            old_columns = await _columns(db)
            assert _autoincrement(old_events, "events")

        await migrate(db, "upgrade", "0006")  # this test is 0006's: not the later ones
        assert await every_row(db) == before
        if not db.postgres:
            events = await _schema(db, "events")
            assert not _autoincrement(events, "events")
            assert await _columns(db) == old_columns  # the same columns in their order
            # The same indexes, on the same columns; only the table's text changed.
            assert [row for row in events if row[0] != "events"] == [
                row for row in old_events if row[0] != "events"
            ]
            assert _autoincrement(await _schema(db, "characters"), "characters")
        assert await _next_event_id(db, roryn.id) == newest + 1
        # A new character never takes the deleted one's id.
        assert (await create(db, "Bryn")).id > gone.id

        after = await every_row(db)
        await migrate(db, "downgrade", "0005")
        assert await every_row(db) == after
        if not db.postgres:
            assert _autoincrement(await _schema(db, "events"), "events")
        assert await _next_event_id(db, roryn.id) == max(int(r[0]) for r in after["events"]) + 1
