"""Migration 0005 on a populated database: the campaign page's revocations (web_links) are added
beside every row of 0004, untouched; `/web revoke` then moves one member's generation of one
guild on, and no other's; the downgrade drops the table and keeps every other row."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from alembic import command
from sqlalchemy import inspect, text

from bot.db.database import Database
from bot.db.migrate import alembic_config
from bot.db.tables import metadata
from tests.persistence.conftest import empty_database
from tests.persistence.helpers import create

G1, G2 = 1001, 2002
ALICE, BOB = 7, 8


async def _rows(db: Database) -> dict[str, list[Any]]:
    """Every row of every table of 0004, in key order."""
    found = {}
    async with db.engine.connect() as conn:
        for table in metadata.sorted_tables:
            if table.name == "web_links":
                continue
            key = ", ".join(c.name for c in table.primary_key.columns)
            result = await conn.execute(text(f"SELECT * FROM {table.name} ORDER BY {key}"))
            found[table.name] = [tuple(row) for row in result.all()]
    return found


async def _tables(db: Database) -> set[str]:
    async with db.engine.connect() as conn:
        return await conn.run_sync(lambda c: set(inspect(c).get_table_names()))


async def _migrate(db: Database, how: str, revision: str) -> None:
    async with db.engine.begin() as conn:
        await conn.run_sync(lambda c: getattr(command, how)(alembic_config(connection=c), revision))


async def test_web_links_join_a_populated_0004_database_and_leave_it_as_it_was(
    backend: str, tmp_path: Path
) -> None:
    async with empty_database(backend, tmp_path) as target:
        db = await target.connect()
        try:
            await db.upgrade()
            await _migrate(db, "downgrade", "0004")
            assert "web_links" not in await _tables(db)
            # A database of 0004 in use: characters, their events, a board, two guilds.
            await create(db, "Roryn", guild_id=G1, owner_id=ALICE)
            await create(db, "Sera", guild_id=G1, owner_id=BOB)
            await create(db, "Ash", guild_id=G2, owner_id=ALICE)
            async with db.transaction(G1) as uow:
                await uow.set_board(11, 111)
            before = await _rows(db)

            await db.upgrade()
            assert await _rows(db) == before
            async with db.transaction(G1, read_only=True) as uow:
                assert await uow.link_generation(ALICE) == 0  # never revoked
            async with db.transaction(G1) as uow:
                assert await uow.revoke_links(ALICE) == 1
            async with db.transaction(G1) as uow:
                assert await uow.revoke_links(ALICE) == 2
            async with db.transaction(G1, read_only=True) as uow:
                assert await uow.link_generation(ALICE) == 2
                assert await uow.link_generation(BOB) == 0  # another member
            async with db.transaction(G2, read_only=True) as uow:
                assert await uow.link_generation(ALICE) == 0  # another guild
            assert await _rows(db) == before  # revoking touches nothing else

            await _migrate(db, "downgrade", "0004")
            assert "web_links" not in await _tables(db)
            assert await _rows(db) == before
        finally:
            await db.close()
