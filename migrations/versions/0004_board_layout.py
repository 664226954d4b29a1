"""Status boards built from Discord's layout components.

A message sent with Discord's layout components (the flag IS_COMPONENTS_V2) can never lose that
flag, and the bot now builds every message so. A board posted before this revision is an embed:
the bot replaces it once (a new message in the channel, the old one deleted) instead of editing
it, and needs to know which boards those are.

- boards.layout: whether the board's message is built from layout components; every board that
  exists at this revision is not (false), every board posted after it is.

The downgrade drops the column and keeps every board. The bot of 0003 edits a board with embeds,
which Discord refuses on a layout message: after a downgrade, the GM posts each board again
(/board start).

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-02
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column(
        "boards", sa.Column("layout", sa.Boolean(), nullable=False, server_default=sa.false())
    )


def downgrade() -> None:
    op.drop_column("boards", "layout")  # SQLite 3.35+ drops a column in place
