"""SQLite done right: WAL, synchronous=NORMAL, a busy timeout, writers begin IMMEDIATE."""

from __future__ import annotations

import sqlite3

import pytest
from sqlalchemy import text

from bot.db.database import Database
from bot.db.engine import BUSY_TIMEOUT_MS, DEFAULT_URL, database_url
from tests.persistence.helpers import GUILD, create


def _path(db: Database) -> str:
    return db.engine.url.database


async def test_pragmas(sqlite_db: Database) -> None:
    async with sqlite_db.engine.connect() as conn:

        async def pragma(name: str) -> object:
            return (await conn.execute(text(f"PRAGMA {name}"))).scalar()

        assert await pragma("journal_mode") == "wal"
        assert await pragma("synchronous") == 1  # NORMAL
        assert await pragma("busy_timeout") == BUSY_TIMEOUT_MS
        assert await pragma("foreign_keys") == 1


async def test_a_write_transaction_holds_the_write_lock_from_its_begin(sqlite_db: Database) -> None:
    await create(sqlite_db, "Lock")
    other = sqlite3.connect(_path(sqlite_db), timeout=0, isolation_level=None)
    try:
        async with sqlite_db.transaction(GUILD) as uow:
            await uow.character("Lock")  # has only read so far: the lock is already taken
            with pytest.raises(sqlite3.OperationalError, match="locked"):
                other.execute("BEGIN IMMEDIATE")
        other.execute("BEGIN IMMEDIATE")  # free again after the commit
        other.execute("ROLLBACK")
        async with sqlite_db.transaction(GUILD, read_only=True) as uow:
            await uow.character("Lock", lock=False)
            other.execute("BEGIN IMMEDIATE")  # a read-only transaction takes no write lock
            other.execute("ROLLBACK")
    finally:
        other.close()


def test_database_url_default_and_override(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DATABASE_URL", raising=False)
    assert database_url() == DEFAULT_URL == "sqlite+aiosqlite:///lastgasp.db"
    monkeypatch.setenv("DATABASE_URL", "postgresql+asyncpg://u@h/db")
    assert database_url() == "postgresql+asyncpg://u@h/db"


@pytest.mark.parametrize(
    "url", ["sqlite:///x.db", "postgresql://u@h/db", "mysql+aiomysql://u@h/db"]
)
async def test_only_the_async_drivers_are_accepted(url: str) -> None:
    with pytest.raises(ValueError):
        await Database.connect(url)
