"""What the data layer hands back: plain, immutable records (no rows, no sessions)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from rules.models import GuildSettings, Sheet
from rules.rolls import Roll


def utc(stamp: datetime) -> datetime:
    """SQLite hands back naive datetimes; every stamp we store is UTC."""
    return stamp.replace(tzinfo=UTC) if stamp.tzinfo is None else stamp.astimezone(UTC)


@dataclass(frozen=True)
class CharacterRow:
    """A character of one guild: its row id (kept by its event log after a deletion) and
    its sheet."""

    id: int
    guild_id: int
    sheet: Sheet


@dataclass(frozen=True)
class Combat:
    """C-1: the combat of one channel."""

    id: int
    channel_id: int
    round: int


@dataclass(frozen=True)
class Actor:
    """What a command on one character needs, loaded (and locked) in one round trip."""

    settings: GuildSettings
    row: CharacterRow | None
    combat: Combat | None


@dataclass(frozen=True)
class Event:
    """One entry of the event log (U-1)."""

    id: int
    guild_id: int
    character_id: int | None
    user_id: int
    command: str
    inputs: dict[str, Any]
    rolls: tuple[Roll, ...]
    rules: tuple[str, ...]
    before: Sheet | None
    after: Sheet | None
    is_change: bool
    created_at: datetime
    reverted_by: int | None = None

    @property
    def reverted(self) -> bool:
        return self.reverted_by is not None


@dataclass(frozen=True)
class Board:
    """The status board of one channel: the bot's message there."""

    guild_id: int
    channel_id: int
    message_id: int
    layout: bool = True  # its message is built from layout components (an older one: replaced)
