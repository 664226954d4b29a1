"""Every persistence test runs on SQLite and, when TEST_DATABASE_URL names a PostgreSQL server,
on PostgreSQL too, each in a fresh database (SQLite: a file; PostgreSQL: a schema of its own)."""

from __future__ import annotations

import contextlib
import os
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from sqlalchemy import text

from bot.db.codec import Clock
from bot.db.database import Database
from bot.db.engine import create_engine
from tests.persistence.helpers import Target, migrate

PG_URL = os.environ.get("TEST_DATABASE_URL")
SKIP_PG = "TEST_DATABASE_URL is not set: the PostgreSQL run of this test is skipped"


BACKENDS = [
    pytest.param("sqlite", id="sqlite"),
    pytest.param("postgresql", id="postgresql", marks=pytest.mark.postgres),
]


@contextlib.asynccontextmanager
async def empty_database(backend: str, tmp_path: Path) -> AsyncIterator[Target]:
    """A database with no schema yet: an SQLite file, or a PostgreSQL schema of its own."""
    if backend == "sqlite":
        yield Target(f"sqlite+aiosqlite:///{tmp_path / f'{uuid.uuid4().hex[:8]}.db'}")
        return
    if not PG_URL:
        pytest.skip(SKIP_PG)
    schema = f"test_{uuid.uuid4().hex[:16]}"
    admin = create_engine(PG_URL)
    async with admin.begin() as conn:
        await conn.execute(text(f'CREATE SCHEMA "{schema}"'))
    try:
        yield Target(PG_URL, {"server_settings": {"search_path": schema}})
    finally:
        async with admin.begin() as conn:
            await conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        await admin.dispose()


@contextlib.asynccontextmanager
async def at_revision(backend: str, tmp_path: Path, revision: str) -> AsyncIterator[Database]:
    """A database of an older revision in use: brought to the newest schema, then down."""
    async with empty_database(backend, tmp_path) as target:
        db = await target.connect()
        try:
            await db.upgrade()
            await migrate(db, "downgrade", revision)
            yield db
        finally:
            await db.close()


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
async def target(backend: str, tmp_path: Path) -> AsyncIterator[Target]:
    """An empty database (no schema yet)."""
    async with empty_database(backend, tmp_path) as found:
        yield found


@contextlib.asynccontextmanager
async def upgraded(
    target: Target, *, clock: Clock | None = None, hot_path: bool = True
) -> AsyncIterator[Database]:
    database = await target.connect(clock=clock, hot_path=hot_path)
    try:
        await database.upgrade()
        yield database
    finally:
        await database.close()


@pytest.fixture
async def db(target: Target) -> AsyncIterator[Database]:
    """A database at the newest schema, on each backend."""
    async with upgraded(target) as database:
        yield database


@pytest.fixture
async def sqlite_db(tmp_path: Path) -> AsyncIterator[Database]:
    """For what only SQLite has (pragmas, its write lock)."""
    async with upgraded(Target(f"sqlite+aiosqlite:///{tmp_path / 'test.db'}")) as database:
        yield database
