"""The event log's deletions indexed apart: the GM's campaign page lists a guild's deleted
characters, which read every event the guild ever logged (its index on guild and id, then each
row's command), a cost that grew with the campaign's whole history on every such page view.

A partial index of the deletions alone (`command = 'character delete'`), by guild and id, on
both databases; the query names the same condition as a literal (bot/db/tables.py), so both
planners use it. The downgrade drops it.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-07
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_DELETIONS = "command = 'character delete'"  # as bot/db/tables.py's DELETIONS, frozen here


def upgrade() -> None:
    op.create_index(
        "ix_events_deletions",
        "events",
        ["guild_id", "id"],
        sqlite_where=sa.text(_DELETIONS),
        postgresql_where=sa.text(_DELETIONS),
    )


def downgrade() -> None:
    op.drop_index("ix_events_deletions", table_name="events")
