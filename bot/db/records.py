"""What the unit of work returns besides sheets: plain, immutable records."""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from datetime import UTC, datetime

from discord.utils import escape_markdown, escape_mentions

from rules.models import Sheet
from rules.outcome import Roll


def name_key(name: str) -> str:
    """Section 1: names are unique per guild ignoring case (and Unicode look-alike forms)."""
    return unicodedata.normalize("NFKC", name.strip()).casefold()


def shown(name: str) -> str:
    """A name inside a message: it can never format or ping (section 1)."""
    return escape_mentions(escape_markdown(name))


def utc(stamp: datetime) -> datetime:
    """SQLite hands back naive datetimes; every stamp we store is UTC."""
    return stamp.replace(tzinfo=UTC) if stamp.tzinfo is None else stamp.astimezone(UTC)


@dataclass(frozen=True)
class Combat:
    """C-1: the combat of one channel."""

    id: int
    channel_id: int
    round: int


@dataclass(frozen=True)
class Event:
    """One entry of the event log."""

    id: int
    guild_id: int
    character_id: int | None
    user_id: int
    command: str
    inputs: dict
    rolls: tuple[Roll, ...]
    rules: tuple[str, ...]
    before: Sheet | None
    after: Sheet | None
    created_at: datetime
    reverted_by: int | None = None

    @property
    def reverted(self) -> bool:
        return self.reverted_by is not None
