"""Alembic environment. Run through bot.db.migrate (no alembic.ini): it passes the connection
of the bot's own engine, so SQLite gets the same pragmas and BEGIN IMMEDIATE as the bot."""

from __future__ import annotations

import asyncio

from alembic import context
from sqlalchemy import Connection

from bot.db.engine import create_engine, database_url
from bot.db.tables import metadata

config = context.config


def _configure(**options: object) -> None:
    context.configure(
        target_metadata=metadata,
        render_as_batch=True,  # SQLite cannot ALTER most things: copy-and-move tables
        transactional_ddl=True,  # SQLite can roll DDL back too: a migration is all or nothing
        compare_type=True,
        **options,
    )


def _run(connection: Connection) -> None:
    _configure(connection=connection)
    with context.begin_transaction():
        context.run_migrations()


async def _run_async(url: str) -> None:
    engine = create_engine(url)
    try:
        async with engine.begin() as conn:
            await conn.run_sync(_run)
    finally:
        await engine.dispose()


if context.is_offline_mode():
    _configure(url=config.get_main_option("sqlalchemy.url") or database_url(), literal_binds=True)
    with context.begin_transaction():
        context.run_migrations()
elif (connection := config.attributes.get("connection")) is not None:
    _run(connection)
else:
    asyncio.run(_run_async(config.get_main_option("sqlalchemy.url") or database_url()))
