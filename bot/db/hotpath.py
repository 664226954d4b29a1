"""The hot path: a command on one character (`Database.act`), straight on the driver.

Most of the bot's traffic is one rule on one character. Through SQLAlchemy's connection that
costs a dozen trips to the driver; here it is the fewest the guarantees allow. The statements
are writes.py's, compiled once for the database (compiled.py): the same rows, the same JSON
and timestamps as the unit of work.

- SQLite: a command's whole transaction is one synchronous step: BEGIN IMMEDIATE, the
  one-statement load, the rule, UPDATE, INSERT, COMMIT; the commands of one turn of the event
  loop share it (one BEGIN, one COMMIT: a group commit), each answered after it. It runs on
  the event loop itself, on a connection of its own, when the cross-process file lock
  (writelock.py) and SQLite's write lock are free at once, as they are but when another
  process writes: no statement there ever waits. A trip to a thread cost more than the
  writing (the thread waited for the GIL at every statement while the loop ran other commands'
  Python: bench/README.md). When a lock is taken, the commands go to a writer thread, which
  waits for it (bounded), and the commands after them queue there too, in order, until it is
  idle. Either way SQLite's write lock is held only while a transaction runs. Reads
  (/character show) run on the event loop's same connection between its writes (WAL readers
  never wait for the writer), on a reader thread only when one would wait; one more
  connection, on a thread, checkpoints the WAL so that no writer stalls on it.
- PostgreSQL: postgres_path.py, with the statements and the command of this module.

The rule itself (`decide`) is pure (rules/ touches no I/O), so it may run on SQLite's writer
thread, and again after a lost race (PostgreSQL). Every wait is bounded (busy.py): past it,
Busy, nothing written.
"""

from __future__ import annotations

import asyncio
import contextlib
import queue
import sqlite3
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from sqlalchemy.engine import Dialect

from bot.db.busy import Busy, deadline, remaining
from bot.db.codec import Clock, load_sheet
from bot.db.compiled import Compiled
from bot.db.engine import SQLITE_PRAGMAS
from bot.db.errors import name_taken, stale
from bot.db.guilds import settings_from_text
from bot.db.records import Actor, CharacterRow, Combat
from bot.db.tables import characters
from bot.db.writes import (
    EVENT_COLUMNS,
    LOG_EVENT,
    SAVE_CHARACTER,
    SAVE_SHEET,
    SETTINGS,
    Target,
    actor_params,
    event_values,
    keys_change,
    load_actor,
    save_params,
)
from rules.outcome import Outcome

T = TypeVar("T")
Decide = Callable[[Actor], Outcome]


_KINDS: tuple[Target, ...] = ("name", 0, None)  # one target of each kind: by name, id, active


@dataclass(frozen=True)
class Statements:
    """writes.py's statements, compiled for one database."""

    loads: dict[tuple[type, bool], Compiled]  # by (type of target, locked)
    settings: Compiled
    saves: dict[bool, Compiled]  # by _keys_change
    log: Compiled

    @classmethod
    def of(cls, dialect: Dialect) -> Statements:
        loads = {}
        for kind in _KINDS:
            statement = load_actor(kind)
            loads[type(kind), False] = Compiled.of(statement, dialect)
            loads[type(kind), True] = Compiled.of(statement.with_for_update(of=characters), dialect)
        return cls(
            loads=loads,
            settings=Compiled.of(SETTINGS, dialect),
            saves={
                True: Compiled.of(SAVE_CHARACTER, dialect),
                False: Compiled.of(SAVE_SHEET, dialect),
            },
            log=Compiled.of(LOG_EVENT, dialect, list(EVENT_COLUMNS)),
        )

    def load(
        self, guild_id: int, target: Target, user_id: int, *, lock: bool = False
    ) -> tuple[str, tuple[Any, ...]]:
        """The SQL and parameters that load the actor: by name, by id, else the user's active
        one."""
        statement = self.loads[type(target), lock]
        return statement.sql, statement.params(actor_params(guild_id, target, user_id))


def actor_of(guild_id: int, record: Any) -> tuple[Actor, int]:
    """The actor of a loaded record, with the row's version (for the save)."""
    row_id, sheet, version, settings, combat_id, channel_id, round_number = record
    row = CharacterRow(id=row_id, guild_id=guild_id, sheet=load_sheet(sheet))
    combat = None if combat_id is None else Combat(combat_id, channel_id, round_number)
    return Actor(settings=settings_from_text(settings), row=row, combat=combat), version


def _keys_change(row: CharacterRow, outcome: Outcome) -> bool:
    """Whether the save changes the row's indexed name key or owner (which save to run)."""
    return keys_change(row.sheet, outcome.after)


@dataclass(frozen=True)
class Command:
    """One command on one character, as Database.act received it."""

    guild_id: int
    target: Target
    user_id: int
    decide: Decide
    command: str
    inputs: dict[str, Any]

    def decided(self, actor: Actor) -> tuple[Outcome, CharacterRow]:
        outcome = self.decide(actor)
        if actor.row is None:  # decide refuses a missing character: it never gets here
            raise RuntimeError(f"{self.command}: decided without a character")
        return outcome, actor.row

    def writes(
        self, row: CharacterRow, version: int, outcome: Outcome, clock: Clock, *, keys: bool
    ) -> dict[str, Any]:
        """The parameters of the save (with the name key and owner when `keys`) and of the
        event: always both, so that the log's order is the order of the saves (the version
        check serialises them)."""
        now = clock()
        return {
            **save_params(row.id, self.guild_id, version, outcome.after, now, keys=keys),
            **event_values(
                guild_id=self.guild_id,
                character_id=row.id,
                user_id=self.user_id,
                command=self.command,
                inputs=self.inputs,
                before=outcome.before,
                after=outcome.after,
                rolls=outcome.rolls,
                rules=outcome.rules,
                now=now,
            ),
        }


# --- SQLite ------------------------------------------------------------------------------------

_BATCH = 16  # writes in a row under one take of the file lock: other processes wait no longer
# These connections live as long as the bot: a larger page cache keeps a big database (100,000
# characters) about as fast as a small one. No memory map: on a file that grows with every event,
# reads through one kept faulting (1.35 page faults a command on 100,000 characters, none
# without it; bench/README.md, "What each change bought").
_READ_PRAGMAS = ("PRAGMA mmap_size = 0", "PRAGMA cache_size = -65536")
# The writer never checkpoints (copying the WAL into the database, with an fsync, stalls it for
# 5–15 ms while every writer waits): a third connection does it beside it, every so many
# commits (about SQLite's own 1,000-page trigger). PASSIVE: it never blocks a reader or writer.
# Nor does it wait for SQLite's write lock but when another writer has it (_begin).
_WRITER_PRAGMAS = (*_READ_PRAGMAS, "PRAGMA wal_autocheckpoint = 0", "PRAGMA busy_timeout = 0")
_CHECKPOINT_EVERY = 200  # commands committed
# Reads on a connection of the event loop's own (the campaign page's, bot/db/looks.py): a WAL
# reader never waits for the writer, and a trip to a thread costs more than the read (under
# load the thread waits for the GIL the loop holds, at every statement: /character show's p99
# was three times a write's at C = 50). busy_timeout 0: a read that would wait (the WAL
# restarted by a checkpoint, a recovery) is not made there but on a thread, so the loop never
# stalls. The busy timeout first: the next pragma may already need a lock.
_LOOP_READ_PRAGMAS = ("PRAGMA busy_timeout = 0", *_READ_PRAGMAS)
# The event loop's connection of the hot path (SQLiteHotPath._on_loop: its writes and its
# looks) never waits either: not even to open.
_LOOP_WRITER_PRAGMAS = (
    "PRAGMA busy_timeout = 0",
    *(pragma for pragma in SQLITE_PRAGMAS if "busy_timeout" not in pragma),
    *_WRITER_PRAGMAS,
)


@dataclass
class _Job:
    run: Callable[[sqlite3.Connection], Any]
    future: asyncio.Future[Any] | None  # None: nobody waits (a checkpoint)
    loop: asyncio.AbstractEventLoop | None
    until: float  # time.monotonic() past which it is refused (Busy) instead of run
    # A command's writes (Database.act): `run` is its body, inside a transaction the writer
    # begins and commits, shared with the commands queued beside it (_write_group).
    write: bool = False
    # Handed to a thread by the event loop (_SQLiteThread.idle); a job with a future that is
    # not runs on the event loop and is answered there at once.
    handed: bool = False


class _Partial(Exception):
    """A command's body failed after it wrote: its transaction cannot keep the rest."""

    def __init__(self, error: BaseException) -> None:
        super().__init__(str(error))
        self.error = error


def _connect(path: str, pragmas: tuple[str, ...]) -> sqlite3.Connection:
    conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    try:
        for pragma in pragmas:
            conn.execute(pragma)
    except BaseException:
        conn.close()
        raise
    return conn


def loop_reader(path: str) -> sqlite3.Connection:
    """A connection for reads on the event loop: it never waits (busy timeout 0)."""
    return _connect(path, _LOOP_READ_PRAGMAS)


def is_busy(error: sqlite3.OperationalError) -> bool:
    """SQLITE_BUSY or SQLITE_LOCKED: the statement would have waited."""
    code = getattr(error, "sqlite_errorcode", None)
    if code is not None:
        return code & 0xFF in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)
    return "locked" in str(error) or "busy" in str(error)


class _SQLiteThread:
    """One sqlite3 connection on a thread of its own: jobs run there one at a time, in order,
    and each is one trip for the event loop (one wake-up when it is done)."""

    def __init__(
        self,
        path: str,
        name: str,
        pragmas: tuple[str, ...] = (),
        *,
        file_lock: Any = None,
        committed: Callable[[int], None] | None = None,
    ) -> None:
        self._path = path
        self._pragmas = (*SQLITE_PRAGMAS, *pragmas)
        self._file_lock = file_lock
        self._committed = committed  # told how many commands each commit kept
        self._jobs: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        # Jobs handed in by the event loop (run, put) and finished by the thread, each counted
        # by one thread only: equal when the thread has nothing of the loop's left to do.
        self._handed = self._finished = 0
        self._thread = threading.Thread(target=self._serve, name=name, daemon=True)
        self._thread.start()

    @property
    def idle(self) -> bool:
        """Nothing the event loop handed in is queued or running (read on the event loop)."""
        return self._handed == self._finished

    def run(
        self, job: Callable[[sqlite3.Connection], T], until: float, *, write: bool = False
    ) -> asyncio.Future[T]:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()
        self.put(_Job(job, future, loop, until, write))
        return future

    def put(self, job: _Job) -> None:
        """A job of the event loop's, answered there."""
        job.handed = True
        self._handed += 1
        self._jobs.put(job)

    def post(self, job: Callable[[sqlite3.Connection], object]) -> None:
        """A job nobody waits for (from any thread)."""
        self._jobs.put(_Job(job, None, None, float("inf")))

    async def close(self) -> None:
        self._jobs.put(None)  # after the jobs already queued
        await asyncio.to_thread(self._thread.join)
        if self._file_lock is not None:
            self._file_lock.close()

    def _serve(self) -> None:
        conn = None
        stop = False
        while not stop:
            first = self._jobs.get()
            if first is None:
                break
            jobs, stop = self._queued(first)
            try:
                if conn is None:
                    try:
                        conn = self._connect()
                    except sqlite3.Error as error:  # these jobs fail; the next ones try again
                        for job in jobs:
                            _hand_back(job, None, error)
                        continue
                self._batch(conn, jobs)
            finally:
                self._finished += sum(job.handed for job in jobs)
        if conn is not None:
            conn.close()

    def _queued(self, first: _Job) -> tuple[list[_Job], bool]:
        """`first` and the jobs queued behind it now, up to _BATCH; and whether the thread
        is to stop after them."""
        jobs = [first]
        while len(jobs) < _BATCH:
            try:
                following = self._jobs.get_nowait()
            except queue.Empty:
                break
            if following is None:
                return jobs, True
            jobs.append(following)
        return jobs, False

    def _connect(self) -> sqlite3.Connection:
        return _connect(self._path, self._pragmas)

    def _batch(self, conn: sqlite3.Connection, jobs: list[_Job]) -> None:
        """Run `jobs` under one take of the file lock (waiting at most until the first one's
        deadline: past it, that one is Busy and the others try again)."""
        lock = self._file_lock
        while jobs and lock is not None:
            try:
                lock.acquire_in_thread(jobs[0].until)
                break
            except (Busy, OSError) as error:  # held past the deadline, or no lock file
                _hand_back(jobs[0], None, error)
                jobs = jobs[1:]
        if not jobs:
            return
        try:
            group: list[_Job] = []
            for job in jobs:
                if job.write:
                    group.append(job)
                    continue
                self._writes(conn, group)
                group = []
                _settle(job, conn)
            self._writes(conn, group)
        finally:
            if lock is not None:
                lock.release()

    def _writes(self, conn: sqlite3.Connection, jobs: list[_Job]) -> None:
        _write_group(conn, jobs, self._count, wait=True)

    def _count(self, commands: int) -> None:
        if self._committed is not None and commands:
            self._committed(commands)


def _write_group(
    conn: sqlite3.Connection, jobs: list[_Job], count: Callable[[int], None], *, wait: bool
) -> None:
    """Commands queued together, in one transaction: one BEGIN and one COMMIT (its WAL pages
    written once) for all of them. A command refused, or failing before it wrote, leaves the
    others to commit; one failing after it wrote (its event not logged) undoes the group, and
    each command runs again alone. Each is answered after the commit. Without `wait`, _NotNow
    when SQLite's write lock is another's (the commands not answered yet are left as they are)."""
    live = [job for job in jobs if _due(job)]
    if not live:
        return
    if len(live) > 1 and _together(conn, live, count, wait=wait):
        return
    for job in live:
        _alone(conn, job, count, wait=wait)


def _together(
    conn: sqlite3.Connection, jobs: list[_Job], count: Callable[[int], None], *, wait: bool
) -> bool:
    """The group in one transaction; False when it had to be undone (nothing committed,
    nobody answered)."""
    try:
        _begin(conn, min(job.until for job in jobs), wait=wait)
    except _NotNow:
        raise
    except BaseException as error:  # Busy, or the database is unusable: each is told
        for job in jobs:
            _hand_back(job, None, error)
        return True
    done: list[tuple[_Job, Any, BaseException | None]] = []
    for job in jobs:
        try:
            done.append((job, job.run(conn), None))
        except _Partial:
            _roll_back(conn)
            return False
        except BaseException as error:
            if not conn.in_transaction:  # SQLite rolled it all back (a full disk, I/O)
                return False
            done.append((job, None, error))  # it wrote nothing: the others stand
    try:
        conn.execute("COMMIT")
    except BaseException as error:
        _roll_back(conn)
        for job, _, _ in done:
            _hand_back(job, None, error)
        done.clear()
        return True
    count(sum(failed is None for _, _, failed in done))
    for job, result, failed in done:
        _hand_back(job, result, failed)
    done.clear()  # an error's traceback holds this frame: no cycle through `done`
    return True


def _alone(
    conn: sqlite3.Connection, job: _Job, count: Callable[[int], None], *, wait: bool
) -> None:
    if not _due(job):
        return
    try:
        _begin(conn, job.until, wait=wait)
        try:
            result = job.run(conn)
            conn.execute("COMMIT")
        except BaseException:
            _roll_back(conn)
            raise
    except _NotNow:
        raise
    except _Partial as partial:
        _hand_back(job, None, partial.error)
    except BaseException as error:  # the caller re-raises it
        _hand_back(job, None, error)
    else:
        count(1)
        _hand_back(job, result, None)


def _due(job: _Job) -> bool:
    """Whether to run a job now: not when its caller is gone (nothing to do for it), nor when
    it waited in the queue past its budget (Busy)."""
    if job.future is not None and job.future.cancelled():
        return False
    if time.monotonic() >= job.until:
        _hand_back(job, None, Busy())
        return False
    return True


def _roll_back(conn: sqlite3.Connection) -> None:
    if conn.in_transaction:
        with contextlib.suppress(sqlite3.Error):  # the first error is the news
            conn.execute("ROLLBACK")


def _settle(job: _Job, conn: sqlite3.Connection) -> None:
    """A job that is not a command's writes (a read, a checkpoint)."""
    if job.future is None:
        with contextlib.suppress(sqlite3.Error):  # a checkpoint: the next one tries again
            job.run(conn)
        return
    if not _due(job):
        return
    try:
        result = job.run(conn)
    except BaseException as error:  # the caller re-raises it
        _hand_back(job, None, error)
    else:
        _hand_back(job, result, None)


def _hand_back(job: _Job, result: Any, error: BaseException | None) -> None:
    future, loop = job.future, job.loop
    if future is None or loop is None:
        return
    if not job.handed:  # on the event loop
        job.future = job.loop = None
        _resolve(future, result, error)
        return
    # The thread's frames that hold the job are in the error's traceback: a job still holding
    # the future (and so the error) would keep a refusal's frames, and the command's objects
    # they reach, for the cyclic collector (bench/README.md, "The tail").
    job.future = job.loop = None
    with contextlib.suppress(RuntimeError):  # the loop is closed: nobody is waiting
        loop.call_soon_threadsafe(_resolve, future, result, error)


def _resolve(future: asyncio.Future[Any], result: Any, error: BaseException | None) -> None:
    """On the event loop: the job's outcome to whoever awaits it."""
    if future.done():  # cancelled meanwhile: the transaction stands or fell as a whole
        return
    if error is None:
        future.set_result(result)
    else:
        future.set_exception(error)


def _checkpoint(conn: sqlite3.Connection) -> None:
    conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()


class _NotNow(Exception):
    """On the event loop, SQLite's write lock is another's: the writer thread waits for it."""


def _begin(conn: sqlite3.Connection, until: float, *, wait: bool = True) -> None:
    """BEGIN IMMEDIATE, waiting for another process's writer at most until `until` (without
    `wait`, _NotNow at once). The writers' connections do not wait (busy_timeout 0,
    _WRITER_PRAGMAS): they hold the cross-process lock already, so the write lock is nearly
    always free, and one statement less a command (a PRAGMA's text changes with the time left:
    SQLite parses it anew each time) is 30 µs. Only when another writer has it does it wait,
    at most until `until`."""
    try:
        conn.execute("BEGIN IMMEDIATE")
        return
    except sqlite3.OperationalError as error:
        if not _locked(error):
            raise
        if not wait:
            raise _NotNow() from None
    conn.execute(f"PRAGMA busy_timeout = {max(1, int(remaining(until) * 1000))}")
    try:
        conn.execute("BEGIN IMMEDIATE")
    except sqlite3.OperationalError as error:
        if _locked(error):
            raise Busy() from None
        raise
    finally:
        conn.execute("PRAGMA busy_timeout = 0")


def _locked(error: sqlite3.OperationalError) -> bool:
    return "locked" in str(error) or "busy" in str(error)


class SQLiteHotPath:
    """The writer, reader and checkpointer threads, started on first use."""

    def __init__(self, path: str, dialect: Dialect, clock: Clock) -> None:
        self._path = path
        self._sql = Statements.of(dialect)
        self._clock = clock
        self._writer: _SQLiteThread | None = None
        self._checkpointer: _SQLiteThread | None = None
        self._reader: _SQLiteThread | None = None
        # The event loop's own connection, for its writes and its reads alike: a WAL connection
        # drops its page cache whenever another has written since its last read (SQLite's
        # pager), so a look on a connection of its own read every page anew after each write
        # (a look 35 µs alone, 70 in the running bot, against 14 on the writer's connection).
        self._loop_conn: sqlite3.Connection | None = None
        self._loop_lock: Any = None  # its own handle on the cross-process write lock
        self._pending: list[_Job] = []  # commands of this turn of the loop, written together
        self._commits = 0  # by whichever writer holds the write lock

    @property
    def path(self) -> str:
        return self._path

    async def act(self, command: Command) -> Outcome:
        if self._writer is None:
            self._start()
        return await self._pend(command)

    def _pend(self, command: Command) -> asyncio.Future[Outcome]:
        """The command's writes: with the others of this turn of the loop, or behind the
        commands the writer thread still has, in order. (Its future is made here, not in
        `act`, whose frame a refusal's traceback holds: a local there would hold the future,
        which holds the refusal, a cycle for the collector.)"""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Outcome] = loop.create_future()

        def run(conn: sqlite3.Connection) -> Outcome:
            return self._run(conn, command)

        job = _Job(run, future, loop, deadline(), write=True)
        assert self._writer is not None
        if not self._writer.idle:
            self._writer.put(job)
            return future
        if not self._pending:
            loop.call_soon(self._write_pending)
        self._pending.append(job)
        return future

    def _start(self) -> None:
        from bot.db.writelock import process_write_lock

        self._checkpointer = _SQLiteThread(self._path, "lastgasp-sqlite-checkpointer")
        self._writer = _SQLiteThread(
            self._path,
            "lastgasp-sqlite-writer",
            _WRITER_PRAGMAS,
            file_lock=process_write_lock(self._path),
            committed=self._committed,
        )
        self._loop_lock = process_write_lock(self._path)

    def _write_pending(self) -> None:
        """On the event loop, once the commands of this turn have asked: their transactions
        (_BATCH commands each) on the loop's own connection when the write lock is free at once;
        else they, and those after them, go to the writer thread, which waits for it."""
        jobs, self._pending = self._pending, []
        start = 0
        try:
            while start < len(jobs) and self._write_on_loop(jobs[start : start + _BATCH]):
                start += _BATCH
        except Exception as error:  # a bug: each command is told rather than left waiting
            for job in jobs[start:]:
                _hand_back(job, None, error)
            return
        for job in jobs[start:]:
            if job.future is None:  # answered already
                continue
            if self._writer is None:
                _hand_back(job, None, RuntimeError("the database is closed"))
            else:
                self._writer.put(job)

    def _write_on_loop(self, jobs: list[_Job]) -> bool:
        """False when a write lock is not free at once: those not answered yet are for the
        writer thread (all of them, unless a group had to be undone and ran one by one)."""
        if self._writer is None:  # closed meanwhile
            return False
        lock = self._loop_lock
        try:
            if lock is not None and not lock.take_now():
                return False
            _write_group(self._on_loop(), jobs, self._committed, wait=False)
        except (_NotNow, sqlite3.Error, OSError):  # the thread waits, or tells each command
            return False
        finally:
            if lock is not None:
                lock.release()
        return True

    def _run(self, conn: sqlite3.Connection, command: Command) -> Outcome:
        """Inside the writer's transaction: load, decide, save, log. Fails having written
        nothing, or with _Partial (saved, not logged)."""
        actor, version = self._load(conn, command.guild_id, command.target, command.user_id)
        outcome, row = command.decided(actor)
        keys = _keys_change(row, outcome)
        values = command.writes(row, version, outcome, self._clock, keys=keys)
        save, log = self._sql.saves[keys], self._sql.log
        saving, logging = save.params(values), log.params(values)
        try:
            saved = conn.execute(save.sql, saving)
        except sqlite3.IntegrityError:  # a rename to a name the guild has (unique key)
            raise name_taken(outcome.after.name) from None
        if saved.rowcount != 1:
            raise stale(row.id)
        try:
            conn.execute(log.sql, logging)
        except BaseException as error:  # saved, not logged: the transaction must not commit
            raise _Partial(error) from error
        return outcome

    def _load(
        self, conn: sqlite3.Connection, guild_id: int, target: Target, user_id: int
    ) -> tuple[Actor, int]:
        sql, params = self._sql.load(guild_id, target, user_id)
        record = conn.execute(sql, params).fetchone()
        if record is not None:
            return actor_of(guild_id, record)
        settings = conn.execute(
            self._sql.settings.sql, self._sql.settings.params({"guild_id": guild_id})
        ).fetchone()
        return Actor(settings_from_text(settings and settings[0]), None, None), 0

    def _committed(self, commands: int) -> None:
        """On the writer thread, after each commit of `commands` commands."""
        before, self._commits = self._commits, self._commits + commands
        crossed = self._commits // _CHECKPOINT_EVERY > before // _CHECKPOINT_EVERY
        if crossed and self._checkpointer is not None:
            self._checkpointer.post(_checkpoint)

    def _on_loop(self) -> sqlite3.Connection:
        """The event loop's connection, opened on first use. Outside `_write_on_loop`'s one
        synchronous step it is never in a transaction: a read there reads what is committed."""
        if self._loop_conn is None:
            self._loop_conn = _connect(self._path, _LOOP_WRITER_PRAGMAS)
        return self._loop_conn

    async def read(self, guild_id: int, target: Target, user_id: int) -> Actor:
        try:
            return self._load(self._on_loop(), guild_id, target, user_id)[0]
        except sqlite3.OperationalError as error:
            if not is_busy(error):
                raise
        if self._reader is None:  # it would wait: the thread waits instead of the loop
            self._reader = _SQLiteThread(self._path, "lastgasp-sqlite-reader", _READ_PRAGMAS)
        return await self._reader.run(
            lambda conn: self._load(conn, guild_id, target, user_id)[0], deadline()
        )

    async def close(self) -> None:
        """The writers first: their last commits may still ask for a checkpoint."""
        for thread in (self._writer, self._checkpointer, self._reader):
            if thread is not None:
                await thread.close()
        self._writer = self._checkpointer = self._reader = None
        if self._loop_conn is not None:
            self._loop_conn.close()
            self._loop_conn = None
        if self._loop_lock is not None:
            self._loop_lock.close()
            self._loop_lock = None
