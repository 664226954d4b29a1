"""The event log keeps SQLite's own row ids (no AUTOINCREMENT): one page less in every commit.

With AUTOINCREMENT every event written also updates `sqlite_sequence`, one more page in each
commit's WAL frames (bench/README.md, "What each change bought"). It only matters when rows are
deleted: SQLite's plain rowid is the largest id plus one, so a deleted newest row's id could come
back. Events are never deleted (the log outlives a deleted character), so an id is still never
reused; characters, which are deleted, keep AUTOINCREMENT (their events point at their id).

SQLite only: the table is rebuilt as it is, with its columns in their order, every row and id,
and its two indexes, without AUTOINCREMENT: a copy of the table in the upgrade's transaction,
about a second for 200,000 events, whose old pages then lie free in the file for later writes.
PostgreSQL's ids come from a sequence either way: nothing changes there. The downgrade rebuilds
it with AUTOINCREMENT; SQLite then starts its sequence above the largest id in the table, so no
id is reused either way.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-06
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _events(autoincrement: bool) -> sa.Table:
    """The events table as 0005 left it on SQLite (0002 added is_change as the last column)."""
    return sa.Table(
        "events",
        sa.MetaData(),
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column("character_id", sa.Integer(), nullable=True),
        sa.Column("user_id", sa.BigInteger(), nullable=False),
        sa.Column("command", sa.String(length=64), nullable=False),
        sa.Column("inputs", sa.JSON(), nullable=False),
        sa.Column("rolls", sa.JSON(), nullable=False),
        sa.Column("rules", sa.JSON(), nullable=False),
        sa.Column("sheet_before", sa.JSON(), nullable=True),
        sa.Column("sheet_after", sa.JSON(), nullable=True),
        sa.Column("undoable", sa.Boolean(), nullable=False),
        sa.Column("reverted_by", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("is_change", sa.Boolean(), nullable=False, server_default="0"),
        sa.PrimaryKeyConstraint("id", name="pk_events"),
        sa.Index("ix_events_character_id_id", "character_id", "id"),
        sa.Index("ix_events_guild_id_id", "guild_id", "id"),
        sqlite_autoincrement=autoincrement,
    )


def _rebuild(autoincrement: bool) -> None:
    if op.get_bind().dialect.name != "sqlite":
        return
    with op.batch_alter_table("events", copy_from=_events(autoincrement), recreate="always"):
        pass


def upgrade() -> None:
    _rebuild(autoincrement=False)


def downgrade() -> None:
    _rebuild(autoincrement=True)
