"""SQLite's commands written on the event loop (bot/db/hotpath.py, `SQLiteHotPath.act`): when
the write lock is free at once, a turn's commands are one transaction on the loop's own
connection; when it is not, they wait on the writer thread, never on the loop, and in order."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import time

import pytest

from bot.db import hotpath
from bot.db.busy import deadline
from bot.db.database import Database
from bot.db.records import Actor
from bot.db.writelock import ProcessWriteLock
from rules.outcome import Outcome
from rules.vitality import damage
from tests.persistence.helpers import GUILD, OWNER, count_begins, create, hit, log_of, sheet_of


def _hot(db: Database) -> hotpath.SQLiteHotPath:
    hot = db._hot
    assert isinstance(hot, hotpath.SQLiteHotPath)
    return hot


class Decisions:
    """A rule that deals 1 damage and notes who it hit and on which thread it ran."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, int]] = []

    def __call__(self, actor: Actor) -> Outcome:
        assert actor.row is not None
        self.seen.append((actor.row.sheet.name, threading.get_ident()))
        return damage(actor.row.sheet, 1, actor.settings)

    def act(self, db: Database, name: str) -> asyncio.Future[Outcome]:
        return asyncio.ensure_future(
            db.act(GUILD, name, OWNER, self, command="damage", inputs={"amount": 1})
        )


async def test_a_turn_of_commands_is_one_transaction_on_the_event_loop(
    sqlite_db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    rows = [await create(sqlite_db, name) for name in ("Ana", "Bo", "Cid")]
    await hit(sqlite_db, "Ana", 1)  # the threads are up
    begins = count_begins(monkeypatch)
    rule = Decisions()
    done = await asyncio.gather(*(rule.act(sqlite_db, name) for name in ("Ana", "Bo", "Cid")))
    assert [outcome.after.vit for outcome in done] == [8, 9, 9]
    assert begins == [False]  # one transaction, begun on the loop
    assert {thread for _, thread in rule.seen} == {threading.get_ident()}
    assert _hot(sqlite_db)._writer._handed == 0  # type: ignore[union-attr]
    assert [len(await log_of(sqlite_db, row.id)) for row in rows] == [3, 2, 2]


async def test_a_write_lock_held_elsewhere_is_waited_for_on_the_writer_thread(
    sqlite_db: Database,
) -> None:
    """Another process's writer (here: another handle on the same lock file) holds the write
    lock: the command is not written on the loop, the loop runs on meanwhile, and the command
    is written by the thread the moment the lock is let go."""
    row = await create(sqlite_db, "Ana")
    await hit(sqlite_db, "Ana", 1)
    other = ProcessWriteLock(str(sqlite_db.engine.url.database))
    assert other.take_now()
    rule = Decisions()
    try:
        command = rule.act(sqlite_db, "Ana")
        started = time.monotonic()
        await asyncio.sleep(0.2)  # the loop is free: this sleep ends on time
        assert time.monotonic() - started < 0.5
        assert not command.done() and rule.seen == []
    finally:
        other.close()
    outcome = await asyncio.wait_for(command, 5)
    assert outcome.after.vit == 8
    assert [thread for _, thread in rule.seen] != [threading.get_ident()]  # on the thread
    assert (await sheet_of(sqlite_db, row.id)).vit == 8  # type: ignore[union-attr]


async def test_sqlite_s_own_lock_held_by_another_connection_is_waited_for_on_the_thread(
    sqlite_db: Database,
) -> None:
    """A writer that takes no file lock (the sqlite3 shell): BEGIN IMMEDIATE on the loop does
    not wait for it; the thread does, within the command's budget."""
    row = await create(sqlite_db, "Ana")
    await hit(sqlite_db, "Ana", 1)
    other = sqlite3.connect(str(sqlite_db.engine.url.database), isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    rule = Decisions()
    try:
        command = rule.act(sqlite_db, "Ana")
        await asyncio.sleep(0.2)
        assert not command.done()
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert (await asyncio.wait_for(command, 5)).after.vit == 8
    assert len(rule.seen) == 1 and rule.seen[0][1] != threading.get_ident()
    assert len(await log_of(sqlite_db, row.id)) == 3


async def test_commands_behind_the_writer_thread_s_queue_stay_in_order(
    sqlite_db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While the thread still has commands of this process, a new one queues behind them
    rather than being written on the loop before them. Without a file lock (where fcntl is
    missing), nothing else keeps that order: the thread holds no SQLite lock between them."""
    await create(sqlite_db, "Ana")
    await hit(sqlite_db, "Ana", 1)
    hot = _hot(sqlite_db)
    writer = hot._writer
    assert writer is not None
    monkeypatch.setattr(writer, "_file_lock", None)
    monkeypatch.setattr(hot, "_loop_lock", None)
    held, gate = threading.Event(), threading.Event()

    def hold(_conn: sqlite3.Connection) -> None:
        held.set()
        gate.wait(10)

    holding = writer.run(hold, deadline())
    assert await asyncio.to_thread(held.wait, 10)
    rule = Decisions()
    first = rule.act(sqlite_db, "Ana")
    await asyncio.sleep(0.05)
    second = rule.act(sqlite_db, "Ana")
    await asyncio.sleep(0.05)
    assert rule.seen == []  # neither was written on the loop ahead of the thread's work
    gate.set()
    await holding
    outcomes = await asyncio.gather(first, second)
    assert [outcome.after.vit for outcome in outcomes] == [8, 7]
    for _ in range(500):  # the thread counts them done just after it answers
        if writer.idle:
            break
        await asyncio.sleep(0.01)
    assert writer.idle
    third = await rule.act(sqlite_db, "Ana")  # the thread is idle again: back on the loop
    assert third.after.vit == 6 and rule.seen[-1][1] == threading.get_ident()


async def test_a_failure_of_the_loop_s_writer_itself_reaches_each_command(
    sqlite_db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not a refusal nor a database error (those are each command's): a bug in the writing
    itself. Each command of the turn is told, none is left waiting, nothing is written."""
    rows = [await create(sqlite_db, name) for name in ("Ana", "Bo")]
    await hit(sqlite_db, "Ana", 1)

    def broken(*_: object, **__: object) -> None:
        raise RuntimeError("a bug in the writer")

    monkeypatch.setattr(hotpath, "_write_group", broken)
    rule = Decisions()
    done = await asyncio.wait_for(
        asyncio.gather(*(rule.act(sqlite_db, n) for n in ("Ana", "Bo")), return_exceptions=True),
        5,
    )
    assert [str(error) for error in done] == ["a bug in the writer"] * 2
    monkeypatch.undo()
    assert [len(await log_of(sqlite_db, row.id)) for row in rows] == [2, 1]
