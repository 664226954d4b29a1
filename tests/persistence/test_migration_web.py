"""Migration 0005 on a populated database: the campaign page's revocations (web_links) are added
beside every row of 0004, untouched; `/web revoke` then moves one member's generation of one
guild on, and no other's; the downgrade drops the table and keeps every other row."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import inspect

from bot.db.database import Database
from tests.persistence.conftest import at_revision
from tests.persistence.helpers import create, every_row, migrate

G1, G2 = 1001, 2002
_NEW = ("web_links",)  # every other table is of 0004
ALICE, BOB = 7, 8


async def _tables(db: Database) -> set[str]:
    async with db.engine.connect() as conn:
        return await conn.run_sync(lambda c: set(inspect(c).get_table_names()))


async def test_web_links_join_a_populated_0004_database_and_leave_it_as_it_was(
    backend: str, tmp_path: Path
) -> None:
    async with at_revision(backend, tmp_path, "0004") as db:
        assert "web_links" not in await _tables(db)
        # A database of 0004 in use: characters, their events, a board, two guilds.
        await create(db, "Roryn", guild_id=G1, owner_id=ALICE)
        await create(db, "Sera", guild_id=G1, owner_id=BOB)
        await create(db, "Ash", guild_id=G2, owner_id=ALICE)
        async with db.transaction(G1) as uow:
            await uow.set_board(11, 111)
        before = await every_row(db, leaving_out=_NEW)

        await db.upgrade()
        assert await every_row(db, leaving_out=_NEW) == before
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
        assert await every_row(db, leaving_out=_NEW) == before  # revoking touches nothing else

        await migrate(db, "downgrade", "0004")
        assert "web_links" not in await _tables(db)
        assert await every_row(db, leaving_out=_NEW) == before
