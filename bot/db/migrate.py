"""Alembic, configured from code (no alembic.ini): script_location is the migrations folder."""

from __future__ import annotations

from pathlib import Path
from typing import Any

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


async def upgrade(url: str, connect_args: dict[str, Any] | None = None) -> None:
    """`python -m bot migrate`, and the bot's start on PostgreSQL: bring the database at url to
    the newest schema, its statements waiting for their answer as long as they take."""
    engine = create_engine(url, connect_args=connect_args, timed_round_trips=False)
    try:
        await upgrade_engine(engine)
    finally:
        await engine.dispose()


def _next_revision_id() -> str:
    """`0003` after `0002`: the migrations are numbered in order."""
    from alembic.script import ScriptDirectory

    ids = [rev.revision for rev in ScriptDirectory.from_config(alembic_config()).walk_revisions()]
    numbers = [int(rev) for rev in ids if rev.isdigit()]
    return f"{max(numbers, default=0) + 1:04d}"


async def write_revision(message: str) -> str:
    """`python -m bot revision -m "…"`: a new migration with what the models in
    bot/db/tables.py have that the migrations do not (autogenerate against a scratch SQLite
    database brought to head). Returns the new file's path; read it before you keep it."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="lastgasp-revision-") as folder:
        engine = create_engine(f"sqlite+aiosqlite:///{Path(folder) / 'scratch.db'}")
        try:
            await upgrade_engine(engine)
            async with engine.begin() as conn:
                script = await conn.run_sync(
                    lambda sync: command.revision(
                        alembic_config(connection=sync),
                        message=message,
                        autogenerate=True,
                        rev_id=_next_revision_id(),
                    )
                )
        finally:
            await engine.dispose()
    scripts = script if isinstance(script, list) else [script]
    return ", ".join(str(s.path) for s in scripts if s is not None)
