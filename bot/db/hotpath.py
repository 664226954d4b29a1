"""The hot path: a command on one character (run_character_action), straight on the driver.

Most of the bot's traffic is one rule on one character. Through the unit of work that cost a
dozen SQLAlchemy statements, each built anew and each a trip to the driver; here it is the
fewest the guarantees allow, with SQL text written once and shared by both databases:

- SQLite: one writer connection on a thread of its own runs a command's whole transaction in
  one trip: BEGIN IMMEDIATE, the one-statement load, the rule, UPDATE, INSERT, COMMIT. SQLite's
  write lock is then held only while that thread works, never while the event loop is busy
  with other commands, and writers queue on the thread in order (no pool, no asyncio lock).
  The cross-process file lock (writelock.py) is taken in the thread. Reads (/character show)
  go to a reader connection on a second thread (WAL readers never wait for the writer), and a
  third connection checkpoints the WAL so that the writer never stalls on it.
- PostgreSQL: an asyncpg pool of its own: BEGIN, SELECT … FOR UPDATE, one statement that saves
  and logs (with the version check), COMMIT; asyncpg prepares each statement once a connection.

The rule itself (`decide`) is pure (rules/ touches no I/O), so it may run on the SQLite thread.
Every other command uses the unit of work (uow.py); both write the same rows the same way.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import json
import queue
import re
import sqlite3
import threading
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any, TypeVar

from sqlalchemy.ext.asyncio import AsyncEngine

from bot.db.characters import Actor, name_taken
from bot.db.engine import BUSY_TIMEOUT_MS, SQLITE_PRAGMAS
from bot.db.events import UNDO, dump_roll
from bot.db.guilds import settings_from_text
from bot.db.records import Combat, name_key
from bot.db.session import StaleWriteError
from bot.db.writelock import process_write_lock
from bot.services.context import CharacterRow
from rules.models import Sheet
from rules.outcome import Outcome

T = TypeVar("T")
Decide = Callable[[Actor], Outcome]

# --- the statements: PostgreSQL's $n placeholders; SQLite takes them as ?n ---------------------

_ACTOR = """SELECT c.id, c.sheet, c.version, c.name_key, g.settings, cb.id, cb.channel_id, cb.round
FROM characters AS c
LEFT JOIN guilds AS g ON g.guild_id = c.guild_id
LEFT JOIN combat_members AS m ON m.character_id = c.id
LEFT JOIN combats AS cb ON cb.id = m.combat_id
WHERE c.guild_id = $1 AND """
BY_NAME = _ACTOR + "c.name_key = $2"
BY_ACTIVE = _ACTOR + (
    "c.id = (SELECT a.character_id FROM active_characters AS a"
    " WHERE a.guild_id = $1 AND a.user_id = $2)"
)
SETTINGS = "SELECT settings FROM guilds WHERE guild_id = $1"
SAVE = (
    "UPDATE characters SET sheet = $1, name_key = $2, owner_id = $3, version = version + 1,"
    " updated_at = $4 WHERE id = $5 AND guild_id = $6 AND version = $7"
)
_LOG_COLUMNS = (
    "guild_id, character_id, user_id, command, inputs, rolls, rules, sheet_before,"
    " sheet_after, undoable, created_at"
)
LOG = f"INSERT INTO events ({_LOG_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)"
# PostgreSQL: save and log in one round trip. A save that finds no row (stale version) logs
# nothing, which the caller sees as "INSERT 0 0" (and rolls back).
SAVE_AND_LOG = (
    f"WITH saved AS ({SAVE} RETURNING id) INSERT INTO events ({_LOG_COLUMNS})"
    " SELECT $8::bigint, $9::integer, $10::bigint, $11::varchar, $12::json, $13::json, $14::json,"
    " $15::json, $16::json, $17::boolean, $18::timestamptz FROM saved"
)


def sqlite_sql(statement: str) -> str:
    """SQLite numbers its parameters ?1, ?2, … where PostgreSQL writes $1, $2, …"""
    return re.sub(r"\$(\d+)", r"?\1", statement)


_SQLITE = {sql: sqlite_sql(sql) for sql in (BY_NAME, BY_ACTIVE, SETTINGS, SAVE, LOG)}
# SQLite needs no row lock: BEGIN IMMEDIATE already serialises every writer.
_FOR_UPDATE = {sql: sql + " FOR UPDATE OF c" for sql in (BY_NAME, BY_ACTIVE)}


# --- what both databases share -----------------------------------------------------------------


def _which(name: str | None, user_id: int) -> tuple[str, object]:
    """The load statement and its second parameter: by name, else the user's active one."""
    return (BY_ACTIVE, user_id) if name is None else (BY_NAME, name_key(name))


def _actor(guild_id: int, record: Any) -> tuple[Actor, int, str]:
    """The actor of a loaded record, with the row's version and name key (for the save)."""
    row_id, sheet, version, key, settings, combat_id, channel_id, round_number = record
    row = CharacterRow(id=row_id, guild_id=guild_id, sheet=Sheet.model_validate_json(sheet))
    combat = None if combat_id is None else Combat(combat_id, channel_id, round_number)
    return Actor(settings=settings_from_text(settings), row=row, combat=combat), version, key


class _Change:
    """What a decided command writes: the save (when the sheet changed) and the event."""

    def __init__(
        self,
        guild_id: int,
        user_id: int,
        command: str,
        inputs: dict,
        actor: Actor,
        outcome: Outcome,
    ) -> None:
        row = actor.row
        if row is None:  # decide() refuses a missing character: it never gets here
            raise RuntimeError(f"{command}: decided without a character")
        self.row_id = row.id
        self.changed = outcome.after != row.sheet
        after = outcome.after.model_dump_json()
        self.key = name_key(outcome.after.name)
        self.save = (after, self.key, outcome.after.owner_id)
        self.log = (
            guild_id,
            row.id,
            user_id,
            command,
            json.dumps(inputs),
            json.dumps([dump_roll(roll) for roll in outcome.rolls]),
            json.dumps(list(outcome.rules)),
            outcome.before.model_dump_json(),
            after,
            command != UNDO and outcome.before != outcome.after,
        )


def _stale(row_id: int) -> StaleWriteError:
    return StaleWriteError(f"character {row_id} changed or vanished since it was read")


# --- SQLite ------------------------------------------------------------------------------------

_BATCH = 16  # writes in a row under one take of the file lock: other processes wait no longer
# These connections live as long as the bot: pages read through a memory map and a larger page
# cache keep a big database (100,000 characters) about as fast as a small one.
_READ_PRAGMAS = ("PRAGMA mmap_size = 268435456", "PRAGMA cache_size = -65536")
# The writer never checkpoints (copying the WAL into the database, with an fsync, stalls it for
# 5–15 ms while every writer waits): a third connection does it beside it, every so many
# commits (about SQLite's own 1,000-page trigger). PASSIVE: it never blocks a reader or writer.
_WRITER_PRAGMAS = (*_READ_PRAGMAS, "PRAGMA wal_autocheckpoint = 0")
_CHECKPOINT_EVERY = 200


def _sqlite_now() -> str:
    # As SQLAlchemy stores a DateTime on SQLite (naive text, UTC by our convention).
    return datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S.%f")


class _SQLiteThread:
    """One sqlite3 connection on a thread of its own: jobs run there one at a time, in order,
    and each is one trip for the event loop (one wake-up when it is done)."""

    def __init__(
        self, path: str, name: str, pragmas: tuple[str, ...] = (), *, file_lock: Any = None
    ) -> None:
        self._path = path
        self._pragmas = (*SQLITE_PRAGMAS, *pragmas)
        self._file_lock = file_lock
        self._jobs: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._serve, name=name, daemon=True)
        self._thread.start()

    def run(self, job: Callable[[sqlite3.Connection], T]) -> asyncio.Future[T]:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()
        self._jobs.put((job, future, loop))
        return future

    def post(self, job: Callable[[sqlite3.Connection], object]) -> None:
        """A job nobody waits for (from any thread)."""
        self._jobs.put((job, None, None))

    async def close(self) -> None:
        self._jobs.put(None)  # after the jobs already queued
        await asyncio.to_thread(self._thread.join)
        if self._file_lock is not None:
            self._file_lock.close()

    def _serve(self) -> None:
        conn = None
        job = self._jobs.get()
        while job is not None:
            if conn is None:
                try:
                    conn = self._connect()
                except sqlite3.Error as error:  # this job fails; the next one tries again
                    _refuse(job, error)
                    job = self._jobs.get()
                    continue
            job = self._batch(conn, job)
        if conn is not None:
            conn.close()

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self._path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
        try:
            for pragma in self._pragmas:
                conn.execute(pragma)
        except BaseException:
            conn.close()
            raise
        return conn

    def _batch(self, conn: sqlite3.Connection, job: Any) -> Any:
        """Run jobs while they keep coming (up to _BATCH) under one take of the file lock;
        returns the next job (None: stop)."""
        held = self._file_lock.held_in_thread() if self._file_lock else contextlib.nullcontext()
        with contextlib.ExitStack() as stack:
            try:
                stack.enter_context(held)
            except OSError as error:  # no lock file (a read-only folder?): as the unit of work
                _refuse(job, error)
                return self._jobs.get()
            for _ in range(_BATCH):
                _settle(job, conn)
                try:
                    job = self._jobs.get_nowait()
                except queue.Empty:
                    break
                if job is None:
                    return None
            else:
                return job
        return self._jobs.get()


def _refuse(job: Any, error: Exception) -> None:
    _, future, loop = job
    if future is not None:
        _hand_back(loop, future, None, error)


def _settle(job: Any, conn: sqlite3.Connection) -> None:
    fn, future, loop = job
    if future is None:
        with contextlib.suppress(sqlite3.Error):  # a checkpoint: the next one tries again
            fn(conn)
        return
    if future.cancelled():  # its caller is gone: do nothing for it
        return
    try:
        result = fn(conn)
    except BaseException as error:  # the caller re-raises it
        _hand_back(loop, future, None, error)
    else:
        _hand_back(loop, future, result, None)


def _hand_back(
    loop: asyncio.AbstractEventLoop,
    future: asyncio.Future[Any],
    result: Any,
    error: BaseException | None,
) -> None:
    def settle() -> None:
        if future.done():  # cancelled meanwhile: the transaction stands or fell as a whole
            return
        if error is None:
            future.set_result(result)
        else:
            future.set_exception(error)

    with contextlib.suppress(RuntimeError):  # the loop is closed: nobody is waiting
        loop.call_soon_threadsafe(settle)


def _checkpoint(conn: sqlite3.Connection) -> None:
    conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()


class SQLiteHotPath:
    """The writer, reader and checkpointer threads, started on first use."""

    def __init__(self, path: str) -> None:
        self._path = path
        self._writer: _SQLiteThread | None = None
        self._checkpointer: _SQLiteThread | None = None
        self._reader: _SQLiteThread | None = None
        self._commits = 0  # by the writer thread only

    async def act(
        self,
        guild_id: int,
        name: str | None,
        user_id: int,
        decide: Decide,
        *,
        command: str,
        inputs: dict,
    ) -> Outcome:
        def transaction(conn: sqlite3.Connection) -> Outcome:
            conn.execute("BEGIN IMMEDIATE")
            try:
                outcome = _sqlite_command(conn, guild_id, name, user_id, decide, command, inputs)
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:
                    with contextlib.suppress(sqlite3.Error):  # the first error is the news
                        conn.execute("ROLLBACK")
                raise
            self._committed()
            return outcome

        if self._writer is None:
            lock = process_write_lock(self._path, BUSY_TIMEOUT_MS / 1000)
            self._checkpointer = _SQLiteThread(self._path, "lastgasp-sqlite-checkpointer")
            self._writer = _SQLiteThread(
                self._path, "lastgasp-sqlite-writer", _WRITER_PRAGMAS, file_lock=lock
            )
        return await self._writer.run(transaction)

    def _committed(self) -> None:
        """On the writer thread, after each commit."""
        self._commits += 1
        if self._commits % _CHECKPOINT_EVERY == 0 and self._checkpointer is not None:
            self._checkpointer.post(_checkpoint)

    async def read(self, guild_id: int, name: str | None, user_id: int) -> Actor:
        if self._reader is None:
            self._reader = _SQLiteThread(self._path, "lastgasp-sqlite-reader", _READ_PRAGMAS)
        return await self._reader.run(lambda conn: _sqlite_load(conn, guild_id, name, user_id)[0])

    async def close(self) -> None:
        """The writer first: its last commits may still ask for a checkpoint."""
        for thread in (self._writer, self._checkpointer, self._reader):
            if thread is not None:
                await thread.close()
        self._writer = self._checkpointer = self._reader = None


def _sqlite_load(
    conn: sqlite3.Connection, guild_id: int, name: str | None, user_id: int
) -> tuple[Actor, int, str]:
    statement, which = _which(name, user_id)
    record = conn.execute(_SQLITE[statement], (guild_id, which)).fetchone()
    if record is not None:
        return _actor(guild_id, record)
    settings = conn.execute(_SQLITE[SETTINGS], (guild_id,)).fetchone()
    return Actor(settings_from_text(settings and settings[0]), None, None), 0, ""


def _sqlite_command(
    conn: sqlite3.Connection,
    guild_id: int,
    name: str | None,
    user_id: int,
    decide: Decide,
    command: str,
    inputs: dict,
) -> Outcome:
    """Inside the writer's transaction: load, decide, save, log."""
    actor, version, key = _sqlite_load(conn, guild_id, name, user_id)
    outcome = decide(actor)
    change = _Change(guild_id, user_id, command, inputs, actor, outcome)
    now = _sqlite_now()
    if change.changed:
        try:
            saved = conn.execute(
                _SQLITE[SAVE], (*change.save, now, change.row_id, guild_id, version)
            )
        except sqlite3.IntegrityError:
            if change.key == key:
                raise
            raise name_taken(outcome.after.name) from None
        if saved.rowcount != 1:
            raise _stale(change.row_id)
    conn.execute(_SQLITE[LOG], (*change.log, now))
    return outcome


# --- PostgreSQL --------------------------------------------------------------------------------

# Enough connections to cover the event loop's delay between a transaction's round trips; few
# enough for several shards under PostgreSQL's default max_connections (100).
POOL_SIZE = 20


async def _no_reset(conn: Any) -> None:
    """asyncpg's default reset (RESET ALL, UNLISTEN *, …) is a round trip per command; these
    connections only run this module's statements, each in a transaction closed before release
    (the pool rolls back any left open)."""


class PostgresHotPath:
    def __init__(self, pool: Any) -> None:
        self._pool = pool
        # First come, first served: the pool's own queue lets a newcomer take a connection
        # released to a waiter, which under load starves some commands (the p99).
        self._turns = asyncio.Semaphore(POOL_SIZE)

    @classmethod
    async def open(cls, engine: AsyncEngine, connect_args: dict[str, Any]) -> PostgresHotPath:
        """Its own asyncpg pool, reaching the server as the engine does; it connects on first
        use, not here."""
        import asyncpg

        _, params = engine.dialect.create_connect_args(engine.url)
        accepted = inspect.signature(asyncpg.connect).parameters
        params = {k: v for k, v in {**params, **connect_args}.items() if k in accepted}
        pool = await asyncpg.create_pool(min_size=0, max_size=POOL_SIZE, reset=_no_reset, **params)
        return cls(pool)

    async def act(
        self,
        guild_id: int,
        name: str | None,
        user_id: int,
        decide: Decide,
        *,
        command: str,
        inputs: dict,
    ) -> Outcome:
        import asyncpg

        statement, which = _which(name, user_id)
        async with self._turns, self._pool.acquire() as conn, conn.transaction():
            record = await conn.fetchrow(_FOR_UPDATE[statement], guild_id, which)
            if record is None:
                settings = await conn.fetchval(SETTINGS, guild_id)
                decide(Actor(settings_from_text(settings), None, None))  # refuses
                raise RuntimeError(f"{command}: decided without a character")
            actor, version, key = _actor(guild_id, record)
            outcome = decide(actor)
            change = _Change(guild_id, user_id, command, inputs, actor, outcome)
            now = datetime.now(UTC)
            if not change.changed:
                await conn.execute(LOG, *change.log, now)
                return outcome
            save = (*change.save, now, change.row_id, guild_id, version)
            try:
                status = await conn.execute(SAVE_AND_LOG, *save, *change.log, now)
            except asyncpg.UniqueViolationError:
                if change.key == key:
                    raise
                raise name_taken(outcome.after.name) from None
            if status != "INSERT 0 1":
                raise _stale(change.row_id)
        return outcome

    async def read(self, guild_id: int, name: str | None, user_id: int) -> Actor:
        statement, which = _which(name, user_id)
        async with self._turns, self._pool.acquire() as conn:
            record = await conn.fetchrow(statement, guild_id, which)
            if record is None:
                settings = await conn.fetchval(SETTINGS, guild_id)
                return Actor(settings_from_text(settings), None, None)
        return _actor(guild_id, record)[0]

    async def close(self) -> None:
        await self._pool.close()
