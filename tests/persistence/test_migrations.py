"""Alembic owns the schema: the migrations build exactly the models, on both databases."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import inspect, text

from bot.db.database import Database
from bot.db.engine import create_engine
from bot.db.migrate import alembic_config, upgrade, upgrade_engine
from bot.db.tables import metadata
from tests.persistence.conftest import PG_URL, SKIP_PG

ROOT = Path(__file__).resolve().parents[2]
HEAD = ScriptDirectory.from_config(alembic_config()).get_current_head()
TABLES = {
    "guilds",
    "characters",
    "combats",
    "combat_members",
    "active_characters",
    "events",
    "boards",
    "web_links",
}


async def _version(db: Database) -> str | None:
    async with db.engine.connect() as conn:
        return await conn.run_sync(lambda c: MigrationContext.configure(c).get_current_revision())


async def test_models_and_migrations_agree(db: Database) -> None:
    def differences(conn):
        context = MigrationContext.configure(conn, opts={"compare_type": True})
        return compare_metadata(context, metadata)

    async with db.engine.connect() as conn:
        assert await conn.run_sync(differences) == []


async def test_upgrade_is_idempotent_and_reaches_head(db: Database) -> None:
    assert HEAD == "0007"
    assert await _version(db) == HEAD
    await db.upgrade()  # a restart of the bot
    assert await _version(db) == HEAD


async def test_upgrade_function_builds_an_empty_sqlite_file(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'empty.db'}"
    await upgrade(url)  # what the CLI calls; on PostgreSQL see the CLI test below
    database = await Database.connect(url)
    try:
        assert await _version(database) == HEAD
        async with database.engine.connect() as conn:
            names = await conn.run_sync(lambda c: set(inspect(c).get_table_names()))
        assert names == TABLES | {"alembic_version"}
    finally:
        await database.close()


async def test_downgrade_to_0001_then_up_again_agrees_with_the_models(db: Database) -> None:
    from alembic import command

    async with db.engine.begin() as conn:
        await conn.run_sync(lambda c: command.downgrade(alembic_config(connection=c), "0001"))
        names = await conn.run_sync(lambda c: set(inspect(c).get_table_names()))
        columns = await conn.run_sync(
            lambda c: {col["name"] for col in inspect(c).get_columns("events")}
        )
    assert "boards" not in names and "web_links" not in names and "is_change" not in columns
    assert await _version(db) == "0001"
    await upgrade_engine(db.engine)
    assert await _version(db) == HEAD
    await test_models_and_migrations_agree(db)


async def test_downgrade_to_base_removes_the_schema(db: Database) -> None:
    from alembic import command

    async with db.engine.begin() as conn:
        await conn.run_sync(lambda c: command.downgrade(alembic_config(connection=c), "base"))
        names = await conn.run_sync(lambda c: set(inspect(c).get_table_names()))
    assert names <= {"alembic_version"}


def _migrate(url: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DATABASE_URL": url}
    return subprocess.run(
        [sys.executable, "-m", "bot", "migrate"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.fixture
def cli() -> None:
    if not (ROOT / "bot" / "__main__.py").exists():
        pytest.skip("bot/__main__.py (the CLI) is not written yet")


async def _check_head(url: str, connect_args: dict | None = None) -> None:
    database = await Database.connect(url, connect_args=connect_args)
    try:
        assert await _version(database) == HEAD
        async with database.engine.connect() as conn:
            names = await conn.run_sync(lambda c: set(inspect(c).get_table_names()))
        assert names >= TABLES
    finally:
        await database.close()


async def test_python_m_bot_migrate_on_an_empty_sqlite_file(cli: None, tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'empty.db'}"
    done = _migrate(url)
    assert done.returncode == 0, done.stderr
    await _check_head(url)
    assert _migrate(url).returncode == 0  # again: nothing to do


@pytest.mark.postgres
async def test_python_m_bot_migrate_on_an_empty_postgres_database(cli: None) -> None:
    if not PG_URL:
        pytest.skip(SKIP_PG)
    name = f"lastgasp_{uuid.uuid4().hex[:12]}"
    admin = create_engine(PG_URL)
    autocommit = {"isolation_level": "AUTOCOMMIT"}
    try:
        async with admin.connect() as conn:
            await (await conn.execution_options(**autocommit)).execute(
                text(f'CREATE DATABASE "{name}"')
            )
        url = PG_URL.rsplit("/", 1)[0] + f"/{name}"
        done = _migrate(url)
        assert done.returncode == 0, done.stderr
        await _check_head(url)
    finally:
        async with admin.connect() as conn:
            await (await conn.execution_options(**autocommit)).execute(
                text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            )
        await admin.dispose()
