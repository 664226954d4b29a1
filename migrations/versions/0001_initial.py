"""The first schema: guilds, characters, combat, active characters, the event log.

Revision ID: 0001
Revises:
Create Date: 2026-11-29
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "guilds",
        sa.Column("guild_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("settings", sa.JSON(), nullable=False),
        sa.Column("day", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("guild_id", name=op.f("pk_guilds")),
    )
    op.create_table(
        "characters",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column("name_key", sa.String(length=128), nullable=False),
        sa.Column("owner_id", sa.BigInteger(), nullable=False),
        sa.Column("sheet", sa.JSON(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_characters")),
        sa.UniqueConstraint("guild_id", "name_key", name=op.f("uq_characters_guild_id_name_key")),
        sqlite_autoincrement=True,
    )
    op.create_index(
        op.f("ix_characters_guild_id_owner_id"), "characters", ["guild_id", "owner_id"]
    )
    op.create_table(
        "combats",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column("channel_id", sa.BigInteger(), nullable=False),
        sa.Column("round", sa.Integer(), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_combats")),
        sa.UniqueConstraint("channel_id", name=op.f("uq_combats_channel_id")),
    )
    op.create_index(op.f("ix_combats_guild_id"), "combats", ["guild_id"])
    op.create_table(
        "combat_members",
        sa.Column("character_id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("combat_id", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["character_id"],
            ["characters.id"],
            name=op.f("fk_combat_members_character_id_characters"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["combat_id"],
            ["combats.id"],
            name=op.f("fk_combat_members_combat_id_combats"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("character_id", name=op.f("pk_combat_members")),
    )
    op.create_index(op.f("ix_combat_members_combat_id"), "combat_members", ["combat_id"])
    op.create_table(
        "active_characters",
        sa.Column("guild_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("user_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("character_id", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["character_id"],
            ["characters.id"],
            name=op.f("fk_active_characters_character_id_characters"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("guild_id", "user_id", name=op.f("pk_active_characters")),
    )
    op.create_index(
        op.f("ix_active_characters_character_id"), "active_characters", ["character_id"]
    )
    op.create_table(
        "events",
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
        sa.PrimaryKeyConstraint("id", name=op.f("pk_events")),
        sqlite_autoincrement=True,
    )
    op.create_index(op.f("ix_events_character_id_id"), "events", ["character_id", "id"])
    op.create_index(op.f("ix_events_guild_id_id"), "events", ["guild_id", "id"])


def downgrade() -> None:
    for table in ("events", "active_characters", "combat_members", "combats", "characters"):
        op.drop_table(table)  # drops its indexes too
    op.drop_table("guilds")
