"""SQLite's read-only transactions on the event loop (bot/db/looks.py): what they read is what
aiosqlite reads; one that would wait for a lock goes through aiosqlite, off the loop; two open
at once each have a connection of their own."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from pathlib import Path

import pytest
from sqlalchemy import event

from bot.db.database import Database
from bot.db.looks import LoopConnection
from bot.services.board import board_view
from tests.persistence.conftest import upgraded
from tests.persistence.helpers import GUILD, OWNER, Target, create, hit


def _target(tmp_path: Path) -> Target:
    return Target(f"sqlite+aiosqlite:///{tmp_path / 'looks.db'}")


async def _reads(db: Database) -> tuple[object, ...]:
    """A few of the pages' reads, in one read-only transaction."""
    async with db.transaction(GUILD, read_only=True) as uow:
        cy = await uow.character("cy", lock=False)
        assert cy is not None
        return (
            cy,
            await uow.characters_page(0, 25),
            await uow.living(25),
            await uow.history(cy.id, 10),
            await uow.settings(),
            await uow.latest_event(),
        )


async def test_a_read_only_transaction_reads_on_the_loop_what_aiosqlite_reads(
    tmp_path: Path,
) -> None:
    async with upgraded(_target(tmp_path)) as db:
        await create(db, "Cy")
        await create(db, "Ada", owner_id=8)
        await hit(db, "Cy", 3)
        assert db._looks is not None
        threads: list[threading.Thread] = []
        event.listen(
            db._looks.engine,
            "before_cursor_execute",
            lambda *_: threads.append(threading.current_thread()),
        )
        async with db.transaction(GUILD, read_only=True) as uow:
            assert isinstance(uow.conn, LoopConnection)
        on_the_loop = await _reads(db)
        assert threads and all(t is threading.main_thread() for t in threads)

        db._looks, looks = None, db._looks  # the same reads through aiosqlite
        try:
            async with db.transaction(GUILD, read_only=True) as uow:
                assert not isinstance(uow.conn, LoopConnection)
            assert await _reads(db) == on_the_loop
        finally:
            db._looks = looks


@pytest.mark.parametrize("read", ["transaction", "look"])
async def test_a_read_that_would_wait_waits_off_the_loop(tmp_path: Path, read: str) -> None:
    """Another process holds the whole file (a WAL reader would wait for it) from before the
    bot's first read: the read waits for it off the loop, the loop runs on meanwhile, and
    the next read is on the loop again. "look": the hot path's look (read_actor)."""
    target = _target(tmp_path)
    async with upgraded(target) as db:
        await create(db, "Cy")
    holder = sqlite3.connect(str(tmp_path / "looks.db"), isolation_level=None)
    holder.execute("PRAGMA locking_mode = EXCLUSIVE")
    holder.execute("BEGIN EXCLUSIVE")
    holder.execute("SELECT count(*) FROM characters").fetchall()
    db = await target.connect()
    try:
        ticks = 0
        held = True

        async def tick() -> None:
            nonlocal ticks
            while held:
                ticks += 1
                await asyncio.sleep(0.01)

        def release() -> None:
            nonlocal held
            held = False
            holder.execute("COMMIT")
            holder.close()

        ticker = asyncio.create_task(tick())
        asyncio.get_running_loop().call_later(0.3, release)
        if read == "look":
            actor = await db.read_actor(GUILD, "Cy", OWNER)
            cy = actor.row
        else:
            async with db.transaction(GUILD, read_only=True) as uow:
                assert not isinstance(uow.conn, LoopConnection)
                cy = await uow.character("Cy", lock=False)
        assert cy is not None and cy.sheet.name == "Cy"
        assert not held and ticks >= 10  # the loop ran while the read waited
        await ticker
        async with db.transaction(GUILD, read_only=True) as uow:
            assert isinstance(uow.conn, LoopConnection)
        assert (await db.read_actor(GUILD, "Cy", OWNER)).row == cy
    finally:
        await db.close()


async def test_two_read_transactions_open_at_once_each_have_a_connection(
    tmp_path: Path,
) -> None:
    async with upgraded(_target(tmp_path)) as db:
        await create(db, "Cy")
        outer_open = asyncio.Event()
        inner_done = asyncio.Event()

        async def outer() -> object:
            async with db.transaction(GUILD, read_only=True) as uow:
                outer_open.set()
                await inner_done.wait()  # a body that awaits something else between reads
                return await uow.character("Cy", lock=False)

        async def inner() -> object:
            await outer_open.wait()
            try:
                async with db.transaction(GUILD, read_only=True) as uow:
                    assert isinstance(uow.conn, LoopConnection)
                    return await board_view(db, GUILD, 55)
            finally:
                inner_done.set()

        first, second = await asyncio.gather(outer(), inner())
        assert first is not None and second is not None


async def test_a_read_only_transaction_sees_one_snapshot(tmp_path: Path) -> None:
    """A write committed while a read transaction is open is not in that transaction."""
    async with upgraded(_target(tmp_path)) as db:
        await create(db, "Cy")
        async with db.transaction(GUILD, read_only=True) as uow:
            before = await uow.character("Cy", lock=False)
            await hit(db, "Cy", 2)
            again = await uow.character("Cy", lock=False)
        after = await _reads(db)
        assert before == again
        assert after[0] != before
