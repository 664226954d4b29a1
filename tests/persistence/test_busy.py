"""Bounded waits (bot/db/busy.py): a writer blocked by a lock held longer than the budget is
refused with Busy within about 2 seconds (room left in Discord's 3 to answer), and nothing of
it is written."""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text

from bot.db.busy import LOCK_BUDGET_S, Busy
from bot.db.database import Database
from bot.db.engine import create_engine
from tests.persistence.conftest import upgraded
from tests.persistence.helpers import GUILD, Target, create, hit, log_of, sheet_of

HELD_S = 4.0  # longer than the budget
WITHIN_S = 2.2  # "about 2 seconds": the budget, and a little time to say so

Write = Callable[[Database], Awaitable[Any]]


async def _through_act(db: Database) -> Any:
    return await hit(db, "Held", 3)


async def _through_a_transaction(db: Database) -> Any:
    async with db.transaction(GUILD) as uow:
        row = await uow.character("Held")
        assert row is not None
        after = row.sheet.update(vit=row.sheet.vit - 3)
        await uow.save_character(row.id, after)
        await uow.log(row.id, 7, "damage", {"amount": 3}, before=row.sheet, after=after)
        await uow.set_day(9)


WRITES = [
    pytest.param(_through_act, True, id="act"),
    pytest.param(_through_act, False, id="act-unit-of-work"),
    pytest.param(_through_a_transaction, True, id="transaction"),
]


@contextlib.asynccontextmanager
async def _sqlite_exclusive(db: Database) -> AsyncIterator[None]:
    """Another process's writer, as raw sqlite3: BEGIN EXCLUSIVE held HELD_S in a thread."""
    taken, done = threading.Event(), threading.Event()

    def hold() -> None:
        conn = sqlite3.connect(db.engine.url.database, isolation_level=None)
        try:
            conn.execute("BEGIN EXCLUSIVE")
            taken.set()
            done.wait(HELD_S)
            conn.execute("ROLLBACK")
        finally:
            conn.close()

    thread = threading.Thread(target=hold, daemon=True)
    thread.start()
    assert await asyncio.to_thread(taken.wait, 5)
    try:
        yield
    finally:
        done.set()
        await asyncio.to_thread(thread.join, 10)


@contextlib.asynccontextmanager
async def _postgres_row_lock(target: Target, row_id: int) -> AsyncIterator[None]:
    """Another connection holds the character's row: SELECT … FOR UPDATE, HELD_S seconds."""
    engine = create_engine(target.url, connect_args=target.connect_args)
    release = asyncio.Event()
    taken = asyncio.Event()

    async def hold() -> None:
        async with engine.begin() as conn:
            await conn.execute(
                text("SELECT id FROM characters WHERE id = :id FOR UPDATE"), {"id": row_id}
            )
            await conn.execute(text("SELECT guild_id FROM guilds FOR UPDATE"))
            taken.set()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(release.wait(), HELD_S)

    holder = asyncio.create_task(hold())
    waiting = asyncio.create_task(taken.wait())
    await asyncio.wait([holder, waiting], timeout=5, return_when=asyncio.FIRST_COMPLETED)
    waiting.cancel()
    if holder.done():
        await holder  # it failed: say why
    assert taken.is_set()
    try:
        yield
    finally:
        release.set()
        await holder
        await engine.dispose()


@pytest.mark.parametrize(("write", "hot_path"), WRITES)
async def test_a_writer_blocked_past_the_budget_is_busy_and_writes_nothing(
    target: Target, write: Write, hot_path: bool
) -> None:
    async with upgraded(target, hot_path=hot_path) as db:
        row = await create(db, "Held")
        async with db.transaction(GUILD) as uow:
            await uow.set_day(2)  # the guild's row exists (the transaction write locks it)
        held = _postgres_row_lock(target, row.id) if target.postgres else _sqlite_exclusive(db)
        async with held:
            started = time.monotonic()
            with pytest.raises(Busy) as refused:
                await write(db)
            waited = time.monotonic() - started
            # A reader is never blocked by a writer (WAL; PostgreSQL's MVCC).
            seen = await db.read_actor(GUILD, "Held", 7)
            assert seen.row is not None and seen.row.sheet == row.sheet
        assert LOCK_BUDGET_S * 0.5 <= waited < WITHIN_S, f"refused after {waited:.2f}s"
        assert "busy" in str(refused.value) and "nothing was changed" in str(refused.value)
        # Nothing of it was written, and the next command goes through.
        assert await sheet_of(db, row.id) == row.sheet
        assert len(await log_of(db, row.id)) == 1
        async with db.transaction(GUILD, read_only=True) as uow:
            assert await uow.day() == 2
        assert (await hit(db, "Held", 1)).after.vit == 9


@pytest.mark.parametrize(("write", "hot_path"), WRITES)
async def test_another_shards_long_transaction_makes_a_writer_busy(
    tmp_path: Path, write: Write, hot_path: bool
) -> None:
    """SQLite, two bot processes (two Database objects on one file stand for them): the one
    waiting on the other's cross-process write lock (writelock.py) stops at the budget too."""
    url = f"sqlite+aiosqlite:///{tmp_path / 'shards.db'}"
    async with upgraded(Target(url)) as first, upgraded(Target(url), hot_path=hot_path) as second:
        row = await create(first, "Held")
        holding, release = asyncio.Event(), asyncio.Event()

        async def long_transaction() -> None:
            async with first.transaction(GUILD) as uow:
                await uow.set_day(5)
                holding.set()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(release.wait(), HELD_S)

        holder = asyncio.create_task(long_transaction())
        await holding.wait()
        started = time.monotonic()
        with pytest.raises(Busy):
            await write(second)
        waited = time.monotonic() - started
        release.set()
        await holder
        assert LOCK_BUDGET_S * 0.5 <= waited < WITHIN_S, f"refused after {waited:.2f}s"
        assert await sheet_of(second, row.id) == row.sheet
        assert len(await log_of(second, row.id)) == 1
        async with second.transaction(GUILD, read_only=True) as uow:
            assert await uow.day() == 5
