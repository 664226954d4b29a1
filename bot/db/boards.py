"""The status boards: one per channel, the bot's message there (kept across restarts)."""

from __future__ import annotations

from sqlalchemy import delete, select

from bot.db.records import Board
from bot.db.session import Session
from bot.db.tables import boards


class BoardRepository(Session):
    async def board(self, channel_id: int) -> Board | None:
        stmt = select(boards.c.message_id).where(
            boards.c.guild_id == self.guild_id, boards.c.channel_id == channel_id
        )
        message_id = (await self.conn.execute(stmt)).scalar_one_or_none()
        return None if message_id is None else Board(self.guild_id, channel_id, message_id)

    async def guild_boards(self) -> list[Board]:
        stmt = select(boards.c.channel_id, boards.c.message_id).where(
            boards.c.guild_id == self.guild_id
        )
        return [Board(self.guild_id, c, m) for c, m in (await self.conn.execute(stmt)).all()]

    async def set_board(self, channel_id: int, message_id: int) -> None:
        """The channel's board is now this message (a second start moves it)."""
        self._writable()
        stmt = self._insert(boards).values(
            channel_id=channel_id,
            guild_id=self.guild_id,
            message_id=message_id,
            created_at=self._now(),
        )
        await self.conn.execute(
            stmt.on_conflict_do_update(
                index_elements=[boards.c.channel_id],
                set_={"message_id": message_id, "guild_id": self.guild_id},
            )
        )

    async def end_board(self, channel_id: int, message_id: int | None = None) -> bool:
        """The board ends (only if it is still that message, when one is named)."""
        self._writable()
        stmt = delete(boards).where(
            boards.c.guild_id == self.guild_id, boards.c.channel_id == channel_id
        )
        if message_id is not None:
            stmt = stmt.where(boards.c.message_id == message_id)
        return bool((await self.conn.execute(stmt)).rowcount)
