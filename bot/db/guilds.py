"""Guild settings (section 10) and the in-game day (C-4)."""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

from sqlalchemy import bindparam, select

from bot.db.session import Session
from bot.db.tables import guilds
from rules.models import GuildSettings

FIRST_DAY = 1
# Built once (session.py says why): the settings, read by every board and page view.
SETTINGS = select(guilds.c.settings).where(guilds.c.guild_id == bindparam("guild_id"))
_SETTINGS_LOCKED = SETTINGS.with_for_update()


@lru_cache(maxsize=1024)
def _parse_settings(text: str) -> GuildSettings:
    # Validation parses the reaction die: cached, since every command reads the settings.
    return GuildSettings.model_validate_json(text)


def settings_from(data: dict[str, Any] | None) -> GuildSettings:
    if not data:
        return GuildSettings()
    return _parse_settings(json.dumps(data, sort_keys=True))


def settings_from_text(text: str | None) -> GuildSettings:
    """The same from the stored JSON text, as the driver returns it (the hot path)."""
    if text is None or text in ("{}", "null"):
        return GuildSettings()
    return _parse_settings(text)


class GuildRepository(Session):
    async def settings(self, *, lock: bool = False) -> GuildSettings:
        """lock=True before a read-modify-write of the settings (PostgreSQL row lock)."""
        if lock:
            await self._ensure_guild()
        stmt = _SETTINGS_LOCKED if self._locks(lock) else SETTINGS
        return settings_from((await self.conn.execute(stmt, self._of())).scalar_one_or_none())

    async def save_settings(self, settings: GuildSettings) -> None:
        self._writable()
        data = settings.model_dump(mode="json")
        stmt = self._insert(guilds).values(guild_id=self.guild_id, settings=data, day=FIRST_DAY)
        await self.conn.execute(
            stmt.on_conflict_do_update(index_elements=[guilds.c.guild_id], set_={"settings": data})
        )

    async def day(self, *, lock: bool = True) -> int:
        """C-4. Locked by default: the caller usually writes day + 1 next."""
        if lock and not self.read_only:
            await self._ensure_guild()
        stmt = self._locked(select(guilds.c.day).where(guilds.c.guild_id == self.guild_id), lock)
        day = (await self.conn.execute(stmt)).scalar_one_or_none()
        return FIRST_DAY if day is None else day

    async def set_day(self, day: int) -> None:
        self._writable()
        stmt = self._insert(guilds).values(guild_id=self.guild_id, settings={}, day=day)
        await self.conn.execute(
            stmt.on_conflict_do_update(index_elements=[guilds.c.guild_id], set_={"day": day})
        )

    async def _ensure_guild(self) -> None:
        # A row to lock, so that two first-ever read-modify-writes cannot both miss it.
        if self.postgres:
            stmt = self._insert(guilds).values(guild_id=self.guild_id, settings={}, day=FIRST_DAY)
            await self.conn.execute(stmt.on_conflict_do_nothing(index_elements=[guilds.c.guild_id]))
