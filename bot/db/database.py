"""The entry point of the data layer: `Database.connect(url)`, `db.transaction(guild_id)` and
`db.act(...)`, the command on one character."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.exc import DBAPIError, OperationalError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine
from sqlalchemy.pool import Pool

from bot.db.busy import Busy, deadline, remaining
from bot.db.codec import Clock, utc_now
from bot.db.engine import DEADLINE, READ_ONLY, create_engine, database_url
from bot.db.errors import NoAnswer, Unreachable, could_not_connect
from bot.db.hotpath import Command, Decide, SQLiteHotPath
from bot.db.looks import Looks
from bot.db.migrate import upgrade, upgrade_engine
from bot.db.postgres_path import PostgresHotPath
from bot.db.records import Actor, Board
from bot.db.tables import boards, events
from bot.db.turns import paced
from bot.db.uow import UnitOfWork
from bot.db.writelock import ProcessWriteLock, process_write_lock
from bot.db.writes import Target
from rules.outcome import Outcome

Listener = Callable[[int], None]


class Database:
    def __init__(
        self,
        engine: AsyncEngine,
        hot: SQLiteHotPath | PostgresHotPath | None = None,
        *,
        clock: Clock = utc_now,
        connect_args: dict[str, Any] | None = None,
    ) -> None:
        self.engine = engine
        self._connect_args = connect_args
        self.postgres = engine.dialect.name == "postgresql"
        self.clock = clock
        # The driver-level path of commands on one character (hotpath.py); None: the unit of
        # work does them too (an in-memory SQLite database is one connection's only).
        self._hot = hot
        # SQLite has one writer at a time anyway: queueing the writers here, instead of in
        # SQLite's sleeping busy handler, keeps a hot character fast. The process lock does the
        # same between processes; BEGIN IMMEDIATE + busy_timeout stay the guard of the data.
        self._write_lock = None if self.postgres else asyncio.Lock()
        self._process_lock: ProcessWriteLock | None = None
        if not self.postgres:
            self._process_lock = process_write_lock(engine.url.database)
        # Told the guild after every committed write (the status boards listen).
        self._listeners: list[Listener] = []
        # SQLite's read-only transactions on the event loop, beside the hot path's looks.
        self._looks: Looks | None = None
        if isinstance(hot, SQLiteHotPath):
            self._looks = Looks(hot.path)

    @classmethod
    async def connect(
        cls,
        url: str | None = None,
        *,
        connect_args: dict[str, Any] | None = None,
        clock: Clock = utc_now,
        hot_path: bool = True,
    ) -> Database:
        """Create the engine (url: DATABASE_URL by default). Does not migrate: see upgrade().
        Connects to nothing yet. hot_path=False runs every command through the unit of work
        (the tests compare the two)."""
        engine = create_engine(url or database_url(), connect_args=connect_args)
        hot: SQLiteHotPath | PostgresHotPath | None = None
        if hot_path and engine.dialect.name == "postgresql":
            hot = await PostgresHotPath.open(engine, connect_args or {}, clock)
        elif hot_path:
            path = engine.url.database
            if path and path != ":memory:":
                hot = SQLiteHotPath(path, engine.dialect, clock)
        return cls(engine, hot, clock=clock, connect_args=connect_args)

    async def upgrade(self) -> None:
        """Bring the schema to the newest migration (alembic upgrade head). On PostgreSQL by
        an engine of its own, whose statements are not timed out (ROUND_TRIP_TIMEOUT_S); on
        SQLite by this one (a database in memory is its connection's only)."""
        if self.postgres:
            url = self.engine.url.render_as_string(hide_password=False)
            await upgrade(url, self._connect_args)
        else:
            await upgrade_engine(self.engine)

    async def close(self) -> None:
        if self._hot is not None:
            await self._hot.close()
        if self._looks is not None:
            self._looks.close()
        await self.engine.dispose()
        if self._process_lock is not None:
            self._process_lock.close()

    @property
    def loop_pool(self) -> Pool | None:
        """The pool of SQLite's read-only connections on the event loop (looks.py), if any."""
        return None if self._looks is None else self._looks.engine.pool

    def listen(self, listener: Listener) -> None:
        """`listener(guild_id)` after every committed write transaction of that guild."""
        self._listeners.append(listener)

    def _committed(self, guild_id: int) -> None:
        for listener in self._listeners:
            listener(guild_id)

    @contextlib.asynccontextmanager
    async def transaction(
        self, guild_id: int, *, read_only: bool = False
    ) -> AsyncIterator[UnitOfWork]:
        """One transaction for one command: committed when the block ends, rolled back (nothing
        changed) when it raises. read_only=True for commands that only read (no write lock).
        Every wait for a lock is bounded: past the budget, Busy (busy.py)."""
        if read_only and self._looks is not None:
            with self._looks.begin() as conn:
                if conn is not None:  # else it would wait: it goes through aiosqlite below
                    yield UnitOfWork(
                        paced(conn), guild_id, postgres=False, clock=self.clock, read_only=True
                    )
                    return
        until = deadline()
        try:
            async with contextlib.AsyncExitStack() as stack:
                if self._write_lock is not None and not read_only:
                    await _bounded(self._write_lock, until)
                    stack.callback(self._write_lock.release)
                    if self._process_lock is not None:
                        await stack.enter_async_context(self._process_lock.held(until))
                uow = await stack.enter_async_context(self._begin(guild_id, read_only, until))
                yield uow
        except DBAPIError as error:
            if _gave_up_waiting(error):  # nothing was committed
                raise Busy() from None
            raise
        if not read_only:
            self._committed(guild_id)

    async def act(
        self,
        guild_id: int,
        target: Target,
        user_id: int,
        decide: Decide,
        *,
        command: str,
        inputs: dict[str, Any],
    ) -> Outcome:
        """One command on one character, in one transaction: load settings, the character (by
        name, else the user's active one; locked) and its combat, `decide(actor)` (pure: it
        may run off the event loop, and again after a lost race), save `outcome.after`, log the
        event, commit. Whatever decide raises rolls back and propagates unchanged. A caller
        cancelled while the transaction waits or runs (on SQLite's writer) no longer waits for
        it: it still commits or rolls back as a whole, or is not run at all."""
        job = Command(guild_id, target, user_id, decide, command, inputs)
        if self._hot is not None:
            outcome = await self._hot.act(job)
            self._committed(guild_id)
            return outcome
        async with self.transaction(guild_id) as uow:
            actor, _ = await uow.load_actor(target, user_id)
            outcome, row = job.decided(actor)
            await uow.save_character(row.id, outcome.after)
            await uow.log_outcome(row.id, user_id, command, inputs, outcome)
        return outcome

    async def read_actor(self, guild_id: int, target: Target, user_id: int) -> Actor:
        """What act() loads, read only (no lock, no write lock): for the commands that look."""
        if self._hot is not None:
            return await self._hot.read(guild_id, target, user_id)
        async with self.transaction(guild_id, read_only=True) as uow:
            actor, _ = await uow.load_actor(target, user_id)
            return actor

    async def latest_events(self, guild_ids: set[int]) -> dict[int, int]:
        """The newest event id of each guild (for the boards: what changed elsewhere)."""
        async with _reading(self.engine) as conn:
            stmt = (
                select(events.c.guild_id, func.max(events.c.id))
                .where(events.c.guild_id.in_(guild_ids))
                .group_by(events.c.guild_id)
            )
            return {g: latest for g, latest in (await conn.execute(stmt)).all()}

    async def boarded(self, channels: set[tuple[int, int]]) -> set[tuple[int, int]]:
        """Which of these (guild, channel) pairs have a status board (for the campaign page's
        live boards: a board another process ended logs no event)."""
        async with _reading(self.engine) as conn:
            stmt = select(boards.c.guild_id, boards.c.channel_id).where(
                boards.c.channel_id.in_({channel for _, channel in channels})
            )
            found = {(g, c) for g, c in (await conn.execute(stmt)).all()}
            return found & channels

    async def all_boards(self) -> list[Board]:
        """Every status board of every guild (a process keeps those of its own shards)."""
        async with _reading(self.engine) as conn:
            stmt = select(
                boards.c.guild_id, boards.c.channel_id, boards.c.message_id, boards.c.layout
            )
            rows = (await conn.execute(stmt)).all()
            return [Board(g, c, m, bool(layout)) for g, c, m, layout in rows]

    @contextlib.asynccontextmanager
    async def _begin(
        self, guild_id: int, read_only: bool, until: float
    ) -> AsyncIterator[UnitOfWork]:
        async with _connected(self.engine) as conn:
            await conn.execution_options(**{READ_ONLY: read_only, DEADLINE: until})
            async with conn.begin():
                with _no_answer_told(conn):
                    yield UnitOfWork(
                        paced(conn) if read_only else conn,
                        guild_id,
                        postgres=self.postgres,
                        clock=self.clock,
                        read_only=read_only,
                    )

    async def __aenter__(self) -> Database:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


@contextlib.asynccontextmanager
async def _connected(engine: AsyncEngine) -> AsyncIterator[AsyncConnection]:
    """A connection of the engine's pool; Unreachable when none can be made (a failure after
    that, in the transaction, is not this one's to name)."""
    connected = False
    try:
        async with engine.connect() as conn:
            connected = True
            yield conn
    except Exception as error:
        # A lock waited for past the budget: the transaction says Busy.
        locked = isinstance(error, DBAPIError) and _gave_up_waiting(error)
        if not connected and not locked and could_not_connect(error):
            raise Unreachable() from error
        raise


@contextlib.contextmanager
def _no_answer_told(conn: AsyncConnection) -> Iterator[None]:
    """A statement's round trip past ROUND_TRIP_TIMEOUT_S, or its connection lost, is NoAnswer
    (SQLAlchemy has dropped the connection: a TimeoutError is an exit exception to it); a
    TimeoutError of the block's own stays itself, not the database's to name."""
    try:
        yield
    except TimeoutError as error:
        if not conn.invalidated:
            raise
        raise NoAnswer() from error
    except DBAPIError as error:
        if not error.connection_invalidated:
            raise
        raise NoAnswer() from error


@contextlib.asynccontextmanager
async def _reading(engine: AsyncEngine) -> AsyncIterator[AsyncConnection]:
    """A read-only connection outside any unit of work (the boards' looks), failing as a unit
    of work does: Unreachable, NoAnswer."""
    async with _connected(engine) as conn:
        await conn.execution_options(**{READ_ONLY: True})
        with _no_answer_told(conn):
            yield conn


async def _bounded(lock: asyncio.Lock, until: float) -> None:
    """Take the lock, waiting at most until `until`, else Busy."""
    if not lock.locked():
        await lock.acquire()
        return
    try:
        await asyncio.wait_for(lock.acquire(), remaining(until))
    except TimeoutError:
        raise Busy() from None


def _gave_up_waiting(error: DBAPIError) -> bool:
    """PostgreSQL's lock_timeout (lock_not_available, 55P03), or SQLite's busy timeout. (On
    SQLite only BEGIN IMMEDIATE waits, after it the connection holds the lock; engine.py turns
    its timeout into Busy itself, since that error reaches here unwrapped.)"""
    if getattr(error.orig, "sqlstate", None) == "55P03":
        return True
    return isinstance(error, OperationalError) and "database is locked" in str(error)
