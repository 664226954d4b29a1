"""The schema: SQLAlchemy 2 declarative models.

Only migrations/ changes the database; a test checks these models against the migrations.
Every statement is built on these tables (`Model.__table__`) with SQLAlchemy Core, never an
ORM session; writes.py builds the writes of each table once, for both paths that run them.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, cast

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    UniqueConstraint,
    false,
    text,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

# Deterministic constraint names: the same on SQLite and PostgreSQL, so autogenerate agrees.
NAMING = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

Snowflake = BigInteger  # Discord ids do not fit 32 bits
Stamp = DateTime(timezone=True)  # always UTC
# A deletion's event, as a literal: a partial index serves only a statement that names its
# condition so (a bound parameter could be any command).
DELETIONS = "command = 'character delete'"


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)


class GuildModel(Base):
    """Per guild: its settings (section 10) and the in-game day (C-4)."""

    __tablename__ = "guilds"

    guild_id: Mapped[int] = mapped_column(Snowflake, primary_key=True, autoincrement=False)
    settings: Mapped[dict[str, Any]] = mapped_column(JSON)
    day: Mapped[int] = mapped_column(Integer)


class CharacterModel(Base):
    """A sheet, unique per guild by its casefolded name (section 1)."""

    __tablename__ = "characters"
    __table_args__ = (
        UniqueConstraint("guild_id", "name_key"),
        Index(None, "guild_id", "owner_id"),
        # Never reuse an id: the event log of a deleted character keeps pointing at it.
        {"sqlite_autoincrement": True},
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    guild_id: Mapped[int] = mapped_column(Snowflake)
    name_key: Mapped[str] = mapped_column(String(128))
    owner_id: Mapped[int] = mapped_column(Snowflake)
    sheet: Mapped[dict[str, Any]] = mapped_column(JSON)
    # The sheet's state (V-1..V-5, E-7), written with the sheet: lists and the status board
    # filter and order by it without reading every sheet.
    state: Mapped[str] = mapped_column(String(16), server_default="Up")
    # Optimistic check on top of the row lock: a save that lost a race fails, never overwrites.
    version: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(Stamp)
    updated_at: Mapped[datetime] = mapped_column(Stamp)


class CombatModel(Base):
    """C-1: one combat per channel. Who acted early is on each member's sheet (S-4)."""

    __tablename__ = "combats"
    __table_args__ = (UniqueConstraint("channel_id"), Index(None, "guild_id"))

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    guild_id: Mapped[int] = mapped_column(Snowflake)
    channel_id: Mapped[int] = mapped_column(Snowflake)
    round: Mapped[int] = mapped_column(Integer)
    started_at: Mapped[datetime] = mapped_column(Stamp)


class CombatMemberModel(Base):
    """C-2: the character id is the key, so a character is in at most one combat."""

    __tablename__ = "combat_members"
    __table_args__ = (Index(None, "combat_id"),)

    character_id: Mapped[int] = mapped_column(
        ForeignKey("characters.id", ondelete="CASCADE"), primary_key=True, autoincrement=False
    )
    combat_id: Mapped[int] = mapped_column(ForeignKey("combats.id", ondelete="CASCADE"))


class ActiveCharacterModel(Base):
    """The character a user's commands default to, per guild."""

    __tablename__ = "active_characters"
    __table_args__ = (Index(None, "character_id"),)

    guild_id: Mapped[int] = mapped_column(Snowflake, primary_key=True, autoincrement=False)
    user_id: Mapped[int] = mapped_column(Snowflake, primary_key=True, autoincrement=False)
    character_id: Mapped[int] = mapped_column(ForeignKey("characters.id", ondelete="CASCADE"))


class EventModel(Base):
    """The append-only log: history and undo read it, nothing rewrites it but `reverted_by`."""

    __tablename__ = "events"
    __table_args__ = (
        Index(None, "character_id", "id"),
        Index(None, "guild_id", "id"),
        # The deletions alone (migration 0007): the GM's page lists a guild's deleted
        # characters, which without it read every event the guild ever logged.
        Index(
            "ix_events_deletions",
            "guild_id",
            "id",
            sqlite_where=text(DELETIONS),
            postgresql_where=text(DELETIONS),
        ),
    )

    # SQLite's own rowid, no AUTOINCREMENT (one page less a commit): events are never deleted,
    # so the largest id plus one is never an id used before.
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    guild_id: Mapped[int] = mapped_column(Snowflake)
    # No foreign key: the log outlives a deleted character.
    character_id: Mapped[int | None] = mapped_column(Integer)
    user_id: Mapped[int] = mapped_column(Snowflake)
    command: Mapped[str] = mapped_column(String(64))
    inputs: Mapped[dict[str, Any]] = mapped_column(JSON)
    rolls: Mapped[list[Any]] = mapped_column(JSON)
    rules: Mapped[list[str]] = mapped_column(JSON)
    # None is SQL NULL (a creation has no sheet before, a deletion none after).
    sheet_before: Mapped[dict[str, Any] | None] = mapped_column(JSON(none_as_null=True))
    sheet_after: Mapped[dict[str, Any] | None] = mapped_column(JSON(none_as_null=True))
    # U-2: a change a player can see (else bookkeeping: /history leaves it out by default).
    is_change: Mapped[bool] = mapped_column(Boolean, server_default="0")
    # A change that undo may revert (U-3): a change of an existing sheet, not an undo itself.
    undoable: Mapped[bool] = mapped_column(Boolean)
    reverted_by: Mapped[int | None] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(Stamp)


class BoardModel(Base):
    """The status board of a channel: the bot's own message there, kept current."""

    __tablename__ = "boards"
    __table_args__ = (Index(None, "guild_id"),)

    channel_id: Mapped[int] = mapped_column(Snowflake, primary_key=True, autoincrement=False)
    guild_id: Mapped[int] = mapped_column(Snowflake)
    message_id: Mapped[int] = mapped_column(Snowflake)
    created_at: Mapped[datetime] = mapped_column(Stamp)
    # Built from Discord's layout components (migration 0004): an older board is replaced once.
    layout: Mapped[bool] = mapped_column(Boolean, server_default=false())


class WebLinkModel(Base):
    """The campaign page's links of one member of a guild (docs/commands.md, `/web`): a link
    carries the generation it was made in, and `/web revoke` moves the generation on, which
    ends every link made before (migration 0005)."""

    __tablename__ = "web_links"

    guild_id: Mapped[int] = mapped_column(Snowflake, primary_key=True, autoincrement=False)
    user_id: Mapped[int] = mapped_column(Snowflake, primary_key=True, autoincrement=False)
    generation: Mapped[int] = mapped_column(Integer)
    revoked_at: Mapped[datetime] = mapped_column(Stamp)


metadata = Base.metadata
# The Core tables every statement is built on (a declarative model's table is a Table).
guilds = cast(Table, GuildModel.__table__)
characters = cast(Table, CharacterModel.__table__)
combats = cast(Table, CombatModel.__table__)
combat_members = cast(Table, CombatMemberModel.__table__)
active_characters = cast(Table, ActiveCharacterModel.__table__)
events = cast(Table, EventModel.__table__)
boards = cast(Table, BoardModel.__table__)
web_links = cast(Table, WebLinkModel.__table__)
