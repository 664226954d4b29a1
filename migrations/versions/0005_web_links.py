"""The campaign page's links (issue 18): what `/web revoke` stores.

A link to the campaign page is signed with WEB_SECRET and carries the member's generation of
links; nothing is stored when a link is made. `/web revoke` moves the member's generation on
(per guild), which ends every link made before it (docs/commands.md, `/web`).

- web_links: one row per member of a guild who has ever revoked their links: the generation
  the member's links must carry now, and when they last revoked. No row: generation 0.

The downgrade drops the table: the links a member revoked would work again until they expire
(at most WEB_LINK_HOURS), which a downgrade of the bot makes no worse than that.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-02
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "web_links",
        sa.Column("guild_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("user_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("generation", sa.Integer(), nullable=False),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("guild_id", "user_id", name=op.f("pk_web_links")),
    )


def downgrade() -> None:
    op.drop_table("web_links")
