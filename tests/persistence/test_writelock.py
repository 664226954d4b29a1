"""The cross-process queue of SQLite writers (bot/db/writelock.py): fair, and bounded (Busy)."""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path

import pytest

from bot.db.busy import Busy, deadline
from bot.db.database import Database
from bot.db.writelock import ProcessWriteLock
from tests.persistence.helpers import GUILD, create, sheet_of

# Two lock objects on one path stand for two processes: flock conflicts between open files.


def _pair(tmp_path: Path) -> tuple[ProcessWriteLock, ProcessWriteLock]:
    return ProcessWriteLock(str(tmp_path / "x.db")), ProcessWriteLock(str(tmp_path / "x.db"))


async def test_a_second_writer_waits_then_goes(tmp_path: Path) -> None:
    first, second = _pair(tmp_path)
    order: list[str] = []

    async def hold() -> None:
        async with first.held(deadline(5)):
            order.append("first in")
            await asyncio.sleep(0.2)
            order.append("first out")

    async def wait() -> None:
        await asyncio.sleep(0.05)
        async with second.held(deadline(5)):
            order.append("second in")

    await asyncio.gather(hold(), wait())
    assert order == ["first in", "first out", "second in"]
    first.close()
    second.close()


async def test_a_wait_past_its_deadline_is_busy_and_holds_nothing(tmp_path: Path) -> None:
    first, second = _pair(tmp_path)
    async with first.held(deadline(5)):
        started = time.monotonic()
        with pytest.raises(Busy):
            async with second.held(deadline(0.1)):
                pass
        assert time.monotonic() - started < 1
        with pytest.raises(Busy):  # the writer thread's wait is bounded the same way
            await asyncio.to_thread(second.acquire_in_thread, deadline(0.1))
    # The abandoned waits took nothing: both can take it at once now.
    async with asyncio.timeout(2), second.held(deadline(1)):
        pass
    async with asyncio.timeout(2), first.held(deadline(1)):
        pass
    first.close()
    second.close()


def test_the_thread_side_waits_for_the_holder_then_takes_it(tmp_path: Path) -> None:
    first, second = _pair(tmp_path)
    first.acquire_in_thread(deadline(1))
    releaser = threading.Timer(0.2, first.release)
    releaser.start()
    started = time.monotonic()
    second.acquire_in_thread(deadline(5))
    assert 0.1 < time.monotonic() - started < 2
    second.release()
    releaser.join()
    first.close()
    second.close()


def test_a_waiting_process_gets_in_between_two_batches_of_a_busy_one(tmp_path: Path) -> None:
    """What _BATCH promises: a process waits at most about one batch of another's writes."""
    busy_one, waiting = _pair(tmp_path)
    stop = threading.Event()

    def batches() -> None:  # as the writer thread of a saturated shard takes turns
        while not stop.is_set():
            busy_one.acquire_in_thread(deadline(5))
            time.sleep(0.003)  # a batch of writes
            busy_one.release()  # then at once the next batch, more being queued

    writer = threading.Thread(target=batches, daemon=True)
    writer.start()
    try:
        time.sleep(0.05)
        started = time.monotonic()
        waiting.acquire_in_thread(deadline())  # the whole budget of a command
        waited = time.monotonic() - started
        waiting.release()
    finally:
        stop.set()
        writer.join(5)
        busy_one.close()
        waiting.close()
    assert waited < 0.1, f"waited {waited:.3f}s for a lock held 3 ms at a time"


async def test_the_event_loop_side_gets_in_between_two_batches_too(tmp_path: Path) -> None:
    """A unit of work's wait (held) queues like the writer thread's."""
    busy_one, waiting = _pair(tmp_path)
    stop = threading.Event()

    def batches() -> None:
        while not stop.is_set():
            busy_one.acquire_in_thread(deadline(5))
            time.sleep(0.003)
            busy_one.release()

    writer = threading.Thread(target=batches, daemon=True)
    writer.start()
    try:
        await asyncio.sleep(0.05)
        started = time.monotonic()
        async with waiting.held(deadline()):
            waited = time.monotonic() - started
    finally:
        stop.set()
        await asyncio.to_thread(writer.join, 5)
        busy_one.close()
        waiting.close()
    assert waited < 0.1, f"waited {waited:.3f}s for a lock held 3 ms at a time"


def _waits() -> int:
    return sum(thread.name == "lastgasp-write-lock" for thread in threading.enumerate())


async def test_waits_given_up_or_cancelled_take_nothing_and_leave_one_thread(
    tmp_path: Path,
) -> None:
    """A blocking flock cannot be cancelled: the thread left behind gives the lock back the
    moment it gets it, and the next wait of the same handle takes it over (no pile of them)."""
    first, second = _pair(tmp_path)
    first.acquire_in_thread(deadline(1))
    try:
        for _ in range(10):
            with pytest.raises(Busy):
                await asyncio.to_thread(second.acquire_in_thread, deadline(0.01))

            async def enter() -> None:
                async with second.held(deadline(5)):
                    raise AssertionError("taken while another holds it")

            task = asyncio.create_task(enter())
            await asyncio.sleep(0.01)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
        assert _waits() == 1
    finally:
        first.release()
    # Nobody wants what the left-behind wait gets: it lets it go, and its thread ends.
    async with asyncio.timeout(2):
        while _waits():
            await asyncio.sleep(0.01)
    first.acquire_in_thread(deadline(0.05))  # free at once
    first.release()
    async with asyncio.timeout(2), second.held(deadline(1)):
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
                assert current is not None
                await asyncio.sleep(0.05)  # hold the write lock a while
                await uow.save_character(
                    current.id, current.sheet.update(vit=current.sheet.vit - vit)
                )

        await asyncio.gather(*(bump(db, 1) for db in (one, two, one, two)))
        sheet = await sheet_of(one, row.id)
        assert sheet is not None and sheet.vit == 6
    finally:
        await one.close()
        await two.close()
