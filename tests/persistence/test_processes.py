"""Several OS processes on one database, as bot shards would be; and a writer killed mid-load."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path

from bot.db.database import Database
from bot.db.records import Event
from bot.db.uow import UnitOfWork
from tests.persistence.helpers import GUILD, Target, create, hit, log_of, replay, sheet_of
from tests.persistence.worker import amount

ROOT = Path(__file__).resolve().parents[2]
NAMES = ["Ash", "Bryn", "Cole"]
VIT = 999


def _start(
    target: Target,
    *,
    count: int = 0,
    first: int = 0,
    concurrency: int = 4,
    user_id: int = 7,
    hang: bool = False,
) -> subprocess.Popen:
    """A worker process, connected and waiting for `_go`."""
    spec = {
        "hang": hang,
        "user_id": user_id,
        "url": target.url,
        "connect_args": target.connect_args,
        "names": NAMES,
        "count": count,
        "concurrency": concurrency,
        "first": first,
    }
    return subprocess.Popen(
        [sys.executable, "-m", "tests.persistence.worker", json.dumps(spec)],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


async def _go(*workers: subprocess.Popen) -> None:
    """Release the workers together, once all are connected."""
    for worker in workers:
        line = await asyncio.to_thread(worker.stdout.readline)
        assert line == "ready\n", worker.stderr.read()
    for worker in workers:
        worker.stdin.write("go\n")
        worker.stdin.flush()


async def _characters(db: Database) -> list[int]:
    return [(await create(db, name, max_vit=VIT, vit=VIT)).id for name in NAMES]


@contextlib.asynccontextmanager
async def _snapshot(db: Database) -> AsyncIterator[UnitOfWork]:
    """Reads that all see the same commits. After a kill, a statement the dead client had
    sent may still commit on the PostgreSQL server (the single save-and-log statement of the
    hot path, even after waiting for a row lock): the sheets and the logs are compared at
    one moment (REPEATABLE READ), as SQLite's read transaction does anyway."""
    if not db.postgres:
        async with db.transaction(GUILD, read_only=True) as uow:
            yield uow
        return
    async with db.engine.connect() as conn:
        await conn.execution_options(isolation_level="REPEATABLE READ")
        async with conn.begin():
            yield UnitOfWork(conn, GUILD, postgres=True, clock=db.clock, read_only=True)


async def _check_logs(db: Database, ids: list[int]) -> int:
    """Every sheet equals the replay of its log from creation. Returns the commands logged."""
    commands = 0
    async with _snapshot(db) as uow:
        for character_id in ids:
            events = list(reversed(await uow.history(character_id, 10**6, bookkeeping=True)))
            row = await uow.character_by_id(character_id, lock=False)
            assert events[0].command == "character create"
            assert row is not None and replay(events) == row.sheet
            commands += len(events) - 1
    return commands


async def test_two_processes_writing_one_database_lose_nothing(
    db: Database, target: Target
) -> None:
    ids = await _characters(db)
    per_process = 300  # enough that neither is done before the other starts
    workers = [_start(target, count=per_process, user_id=user) for user in (1, 2)]
    await _go(*workers)
    spans = []
    for worker in workers:
        out, err = await asyncio.to_thread(worker.communicate, timeout=90)
        assert worker.returncode == 0, err
        spans.append(json.loads(out.strip().splitlines()[-1]))

    assert await _check_logs(db, ids) == 2 * per_process
    # The two really wrote at the same time: each started before the other was done. (How
    # their events interleave is the write lock's fairness: test_writelock.py.)
    assert max(span["started"] for span in spans) < min(span["done"] for span in spans), spans
    users = {event.user_id for event in await _all(db, ids)}
    assert users == {7, 1, 2}
    for n, character_id in enumerate(ids):
        hits = [amount(i) for i in range(per_process) if i % len(NAMES) == n]
        sheet = await sheet_of(db, character_id)
        assert sheet is not None and sheet.vit == VIT - 2 * sum(hits)


async def _all(db: Database, ids: list[int]) -> list[Event]:
    return [event for character_id in ids for event in await log_of(db, character_id)]


async def _events(db: Database, ids: list[int]) -> int:
    return len(await _all(db, ids))


async def test_a_writer_killed_mid_load_leaves_a_consistent_database(
    db: Database, target: Target
) -> None:
    ids = await _characters(db)
    for round_number in range(2):  # kill, then check that a new writer carries on from there
        before = await _events(db, ids)
        worker = _start(target, count=0, first=round_number, concurrency=8)
        await _go(worker)
        deadline = time.monotonic() + 60
        while await _events(db, ids) < before + 120:
            assert worker.poll() is None, worker.stderr.read()
            assert time.monotonic() < deadline, "the writer made no progress"
            await asyncio.sleep(0.02)
        os.kill(worker.pid, signal.SIGKILL)
        await asyncio.to_thread(worker.wait, 10)
        assert worker.returncode == -signal.SIGKILL

        if not target.postgres:
            with sqlite3.connect(db.engine.url.database) as check:
                assert check.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        assert await _check_logs(db, ids) >= 120 * (round_number + 1)


async def test_a_writer_killed_before_its_commit_changes_nothing(
    db: Database, target: Target
) -> None:
    ids = await _characters(db)
    before = await sheet_of(db, ids[0])
    worker = _start(target, hang=True)
    line = await asyncio.to_thread(worker.stdout.readline)  # written, not committed
    assert line == "ready\n", worker.stderr.read()
    os.kill(worker.pid, signal.SIGKILL)
    await asyncio.to_thread(worker.wait, 10)

    if not target.postgres:
        with sqlite3.connect(db.engine.url.database) as check:
            assert check.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    assert await sheet_of(db, ids[0]) == before
    assert len(await log_of(db, ids[0])) == 1
    # Its locks died with it: the next command goes through at once.
    async with asyncio.timeout(10):
        assert (await hit(db, NAMES[0], 2)).after.vit == before.vit - 2
