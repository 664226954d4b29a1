"""The campaign page's links (`/web`): each member's generation of links, per guild."""

from __future__ import annotations

from sqlalchemy import bindparam, select

from bot.db.guilds import SETTINGS, GuildRepository, settings_from
from bot.db.tables import web_links
from rules.models import GuildSettings

# Built once (session.py says why): the campaign page's every view asks them.
_GENERATION = (
    select(web_links.c.generation)
    .where(
        web_links.c.guild_id == bindparam("guild_id"), web_links.c.user_id == bindparam("user_id")
    )
    .scalar_subquery()
)
_LINK_GENERATION = select(_GENERATION)
_LINK_GENERATION_AND_SETTINGS = select(_GENERATION, SETTINGS.scalar_subquery())


class WebLinkRepository(GuildRepository):
    async def link_generation(self, user_id: int) -> int:
        """The generation a link of this member must carry to be valid now (0: never revoked)."""
        result = await self.conn.execute(_LINK_GENERATION, self._of(user_id=user_id))
        return result.scalar_one_or_none() or 0

    async def link_generation_and_settings(self, user_id: int) -> tuple[int, GuildSettings]:
        """The same and the guild's settings, in one query (the campaign page's every view)."""
        result = await self.conn.execute(_LINK_GENERATION_AND_SETTINGS, self._of(user_id=user_id))
        row = result.one()
        return row[0] or 0, settings_from(row[1])

    async def revoke_links(self, user_id: int) -> int:
        """Every link made for this member so far ends: the generation moves on. Returns the
        new generation (the one the member's next link carries)."""
        self._writable()
        insert = self._insert(web_links).values(
            guild_id=self.guild_id, user_id=user_id, generation=1, revoked_at=self._now()
        )
        stmt = insert.on_conflict_do_update(
            index_elements=[web_links.c.guild_id, web_links.c.user_id],
            set_={"generation": web_links.c.generation + 1, "revoked_at": self._now()},
        ).returning(web_links.c.generation)
        return int((await self.conn.execute(stmt)).scalar_one())
