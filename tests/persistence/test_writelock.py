"""The cross-process queue of SQLite writers (bot/db/writelock.py)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from bot.db import Database
from bot.db.writelock import ProcessWriteLock
from tests.persistence.helpers import GUILD, create, sheet_of

# Two lock objects on one path stand for two processes: flock conflicts between open files.


async def test_a_second_writer_waits_then_goes(tmp_path: Path) -> None:
    first, second = (ProcessWriteLock(str(tmp_path / "x.db"), timeout=5) for _ in range(2))
    order: list[str] = []

    async def hold() -> None:
        async with first.held():
            order.append("first in")
            await asyncio.sleep(0.2)
            order.append("first out")

    async def wait() -> None:
        await asyncio.sleep(0.05)
        async with second.held():
            order.append("second in")

    await asyncio.gather(hold(), wait())
    assert order == ["first in", "first out", "second in"]
    first.close()
    second.close()


async def test_a_wait_that_times_out_gives_the_lock_back(tmp_path: Path) -> None:
    first, second = (ProcessWriteLock(str(tmp_path / "x.db"), timeout=0.1) for _ in range(2))
    async with first.held():
        with pytest.raises(TimeoutError):
            async with second.held():
                pass
    # The abandoned wait took the lock when it came free, and gave it back.
    async with second.held():
        pass
    async with asyncio.timeout(2), first.held():
        pass
    first.close()
    second.close()


async def test_two_databases_on_one_file_take_turns(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'two.db'}"
    one, two = await Database.connect(url), await Database.connect(url)
    try:
        await one.upgrade()
        row = await create(one, "Turn")

        async def bump(db: Database, vit: int) -> None:
            async with db.transaction(GUILD) as uow:
                current = await uow.character("Turn")
                await asyncio.sleep(0.05)  # hold the write lock a while
                await uow.save_character(
                    current.id, current.sheet.update(vit=current.sheet.vit - vit)
                )

        await asyncio.gather(*(bump(db, 1) for db in (one, two, one, two)))
        assert (await sheet_of(one, row.id)).vit == 6
    finally:
        await one.close()
        await two.close()
