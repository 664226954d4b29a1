"""The entry point of the data layer: `Database.connect(url)` and `db.transaction(guild_id)`."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

from sqlalchemy.ext.asyncio import AsyncEngine

from bot.db.characters import Actor
from bot.db.engine import BUSY_TIMEOUT_MS, READ_ONLY, create_engine, database_url
from bot.db.hotpath import Decide, PostgresHotPath, SQLiteHotPath
from bot.db.migrate import upgrade_engine
from bot.db.uow import UnitOfWork
from bot.db.writelock import process_write_lock
from rules.outcome import Outcome


class Database:
    def __init__(
        self, engine: AsyncEngine, hot: SQLiteHotPath | PostgresHotPath | None = None
    ) -> None:
        self.engine = engine
        self.postgres = engine.dialect.name == "postgresql"
        # The driver-level path of commands on one character (hotpath.py); None: the unit of
        # work does them too (an in-memory SQLite database is one connection's only).
        self._hot = hot
        # SQLite has one writer at a time anyway: queueing the writers here, instead of in
        # SQLite's sleeping busy handler, keeps a hot character fast. The process lock does the
        # same between processes; BEGIN IMMEDIATE + busy_timeout stay the guard of the data.
        self._write_lock = None if self.postgres else asyncio.Lock()
        self._process_lock = None
        if not self.postgres:
            timeout = BUSY_TIMEOUT_MS / 1000
            self._process_lock = process_write_lock(engine.url.database, timeout)

    @classmethod
    async def connect(
        cls, url: str | None = None, *, connect_args: dict[str, Any] | None = None
    ) -> Database:
        """Create the engine (url: DATABASE_URL by default). Does not migrate: see upgrade().
        Connects to nothing yet."""
        engine = create_engine(url or database_url(), connect_args=connect_args)
        if engine.dialect.name == "postgresql":
            return cls(engine, await PostgresHotPath.open(engine, connect_args or {}))
        path = engine.url.database
        return cls(engine, SQLiteHotPath(path) if path and path != ":memory:" else None)

    async def upgrade(self) -> None:
        """Bring the schema to the newest migration (alembic upgrade head)."""
        await upgrade_engine(self.engine)

    async def close(self) -> None:
        if self._hot is not None:
            await self._hot.close()
        await self.engine.dispose()
        if self._process_lock is not None:
            self._process_lock.close()

    @contextlib.asynccontextmanager
    async def transaction(
        self, guild_id: int, *, read_only: bool = False
    ) -> AsyncIterator[UnitOfWork]:
        """One transaction for one command: committed when the block ends, rolled back (nothing
        changed) when it raises. read_only=True for commands that only read (no write lock)."""
        async with contextlib.AsyncExitStack() as stack:
            if self._write_lock is not None and not read_only:
                await stack.enter_async_context(self._write_lock)
                if self._process_lock is not None:
                    await stack.enter_async_context(self._process_lock.held())
            yield await stack.enter_async_context(self._begin(guild_id, read_only))

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
        """One command on one character, in one transaction: load settings, the character (by
        name, else the user's active one; locked) and its combat, `decide(actor)` (pure: it
        may run off the event loop), save `outcome.after` when it changed, log the event,
        commit. Whatever decide raises rolls back and propagates unchanged. A caller cancelled
        while the transaction runs (on SQLite's writer thread) no longer waits for it: it
        still commits or rolls back as a whole."""
        if self._hot is not None:
            return await self._hot.act(
                guild_id, name, user_id, decide, command=command, inputs=inputs
            )
        async with self.transaction(guild_id) as uow:
            actor = await uow.load_actor(name, user_id)
            outcome = decide(actor)
            row = actor.row
            if row is None:  # decide refuses a missing character: never here
                raise RuntimeError(f"{command}: decided without a character")
            if outcome.after != row.sheet:
                await uow.save_character(row.id, outcome.after)
            await uow.log(row.id, user_id, command, inputs, outcome)
        return outcome

    async def read_actor(self, guild_id: int, name: str | None, user_id: int) -> Actor:
        """What act() loads, read only (no lock, no write lock): for the commands that look."""
        if self._hot is not None:
            return await self._hot.read(guild_id, name, user_id)
        async with self.transaction(guild_id, read_only=True) as uow:
            return await uow.load_actor(name, user_id)

    @contextlib.asynccontextmanager
    async def _begin(self, guild_id: int, read_only: bool) -> AsyncIterator[UnitOfWork]:
        async with self.engine.connect() as conn:
            if read_only:
                await conn.execution_options(**{READ_ONLY: True})
            async with conn.begin():
                yield UnitOfWork(conn, guild_id, postgres=self.postgres, read_only=read_only)

    async def __aenter__(self) -> Database:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()
