"""The entry point of the data layer: `Database.connect(url)` and `db.transaction(guild_id)`."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

from sqlalchemy.ext.asyncio import AsyncEngine

from bot.db.engine import BUSY_TIMEOUT_MS, READ_ONLY, create_engine, database_url
from bot.db.migrate import upgrade_engine
from bot.db.uow import UnitOfWork
from bot.db.writelock import process_write_lock


class Database:
    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine
        self.postgres = engine.dialect.name == "postgresql"
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
        """Create the engine (url: DATABASE_URL by default). Does not migrate: see upgrade()."""
        return cls(create_engine(url or database_url(), connect_args=connect_args))

    async def upgrade(self) -> None:
        """Bring the schema to the newest migration (alembic upgrade head)."""
        await upgrade_engine(self.engine)

    async def close(self) -> None:
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
