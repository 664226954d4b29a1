"""Migration 0004 on a populated database: the status boards posted before it are marked as not
built from layout components (the bot replaces each once), boards posted after it are; the
downgrade drops the mark and keeps every board."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from alembic import command
from sqlalchemy import text

from bot.db.engine import create_engine
from bot.db.migrate import alembic_config, upgrade_engine
from tests.persistence.conftest import empty_database

G1, G2 = 1001, 2002
OLD_BOARDS = [(G1, 11, 111), (G1, 12, 121), (G2, 21, 211)]  # guild, channel, message


async def test_boards_of_0003_are_marked_old_and_new_ones_layout(
    backend: str, tmp_path: Path
) -> None:
    async with empty_database(backend, tmp_path) as target:
        engine = create_engine(target.url, connect_args=target.connect_args)
        try:
            await upgrade_engine(engine, "0003")
            async with engine.begin() as conn:  # as the bot of 0003 wrote them
                for guild, channel, message in OLD_BOARDS:
                    await conn.execute(
                        text(
                            "INSERT INTO boards (channel_id, guild_id, message_id, created_at) "
                            "VALUES (:c, :g, :m, :t)"
                        ),
                        {
                            "c": channel,
                            "g": guild,
                            "m": message,
                            "t": datetime(2026, 1, 1, tzinfo=UTC),
                        },
                    )
        finally:
            await engine.dispose()

        db = await target.connect()
        try:
            await db.upgrade()
            boards = sorted(await db.all_boards(), key=lambda b: b.channel_id)
            assert [(b.guild_id, b.channel_id, b.message_id) for b in boards] == OLD_BOARDS
            assert not any(b.layout for b in boards)  # each replaced once by the bot

            async with db.transaction(G1) as uow:  # a board posted now (or its replacement)
                await uow.set_board(11, 112)
                await uow.set_board(13, 131)
            async with db.transaction(G1, read_only=True) as uow:
                moved, new = await uow.board(11), await uow.board(13)
                untouched = await uow.board(12)
            assert moved is not None and (moved.message_id, moved.layout) == (112, True)
            assert new is not None and new.layout
            assert untouched is not None and not untouched.layout

            async with db.engine.begin() as conn:
                await conn.run_sync(
                    lambda c: command.downgrade(alembic_config(connection=c), "0003")
                )
                rows = (
                    await conn.execute(
                        text("SELECT channel_id, message_id FROM boards ORDER BY channel_id")
                    )
                ).all()
                columns = (await conn.execute(text("SELECT * FROM boards"))).keys()
            assert [tuple(r) for r in rows] == [(11, 112), (12, 121), (13, 131), (21, 211)]
            assert "layout" not in columns
        finally:
            await db.close()
