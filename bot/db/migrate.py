"""Alembic, configured from code (no alembic.ini): script_location is the migrations folder."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy import Connection, text
from sqlalchemy.ext.asyncio import AsyncEngine

from bot.db.engine import create_engine

MIGRATIONS = Path(__file__).resolve().parents[2] / "migrations"
# Any constant: serialises two processes (shards) upgrading the same PostgreSQL database.
_PG_LOCK_KEY = 0x4C617374_47617370 & 0x7FFFFFFFFFFFFFFF


def alembic_config(url: str | None = None, connection: Connection | None = None) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.set_main_option("path_separator", "os")
    if url is not None:
        config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    if connection is not None:
        config.attributes["connection"] = connection
    return config


def _upgrade(connection: Connection, revision: str) -> None:
    if connection.dialect.name == "postgresql":
        connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _PG_LOCK_KEY})
    command.upgrade(alembic_config(connection=connection), revision)


async def upgrade_engine(engine: AsyncEngine, revision: str = "head") -> None:
    """One transaction (BEGIN IMMEDIATE on SQLite): a migration applies fully or not at all."""
    async with engine.begin() as conn:
        await conn.run_sync(_upgrade, revision)


async def upgrade(url: str) -> None:
    """`python -m bot migrate`: bring the database at url to the newest schema."""
    engine = create_engine(url)
    try:
        await upgrade_engine(engine)
    finally:
        await engine.dispose()
