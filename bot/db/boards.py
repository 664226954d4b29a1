"""The status boards: one per channel, the bot's message there (kept across restarts)."""

from __future__ import annotations

from sqlalchemy import bindparam, delete, select

from bot.db.records import Board
from bot.db.session import Session
from bot.db.tables import boards

# Built once (session.py says why): every view of a board's page reads them.
_BOARD = select(boards.c.message_id, boards.c.layout).where(
    boards.c.guild_id == bindparam("guild_id"), boards.c.channel_id == bindparam("channel_id")
)
_GUILD_BOARDS = select(boards.c.channel_id, boards.c.message_id, boards.c.layout).where(
    boards.c.guild_id == bindparam("guild_id")
)


class BoardRepository(Session):
    async def board(self, channel_id: int) -> Board | None:
        row = (await self.conn.execute(_BOARD, self._of(channel_id=channel_id))).one_or_none()
        return None if row is None else Board(self.guild_id, channel_id, row[0], bool(row[1]))

    async def guild_boards(self) -> list[Board]:
        rows = (await self.conn.execute(_GUILD_BOARDS, self._of())).all()
        return [Board(self.guild_id, c, m, bool(layout)) for c, m, layout in rows]

    async def set_board(self, channel_id: int, message_id: int) -> None:
        """The channel's board is now this message (a second start moves it)."""
        self._writable()
        stmt = self._insert(boards).values(
            channel_id=channel_id,
            guild_id=self.guild_id,
            message_id=message_id,
            created_at=self._now(),
            layout=True,  # every board posted now is built from layout components
        )
        await self.conn.execute(
            stmt.on_conflict_do_update(
                index_elements=[boards.c.channel_id],
                set_={"message_id": message_id, "guild_id": self.guild_id, "layout": True},
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
