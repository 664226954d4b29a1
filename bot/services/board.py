"""Use cases of the status board: start and stop it (GM), and what it shows now."""

from __future__ import annotations

from dataclasses import dataclass

from bot.db.database import Database
from bot.db.records import Board, CharacterRow, Combat
from bot.db.uow import UnitOfWork
from bot.services.base import require_gm
from bot.services.context import Caller
from rules.condition import RollDue, roll_due
from rules.errors import RuleError
from rules.models import GuildSettings, Sheet, State

MAX_LINES = 25  # then "and N more"
_ROLL_ORDER = {State.DYING: 0, State.CRITICAL: 1, State.UNCONSCIOUS: 2}


@dataclass(frozen=True)
class BoardView:
    """What a channel's board shows: its combat's members, or the guild's living characters."""

    guild_id: int
    channel_id: int
    combat: Combat | None
    sheets: list[Sheet]  # in the order the table reads them, at most MAX_LINES
    more: int  # how many more there are
    settings: GuildSettings
    latest_event: int  # the guild's newest event when this was read
    ids: tuple[int, ...] = ()  # each sheet's character id, in the same order (the web page's)


def _order(rows: list[CharacterRow], in_combat: bool) -> list[CharacterRow]:
    """Whose roll waits first (now, or on the GM's call outside combat; the Last Gasp before
    the others), then by name (R-8)."""

    def key(row: CharacterRow) -> tuple[int, int, str]:
        sheet = row.sheet
        due = roll_due(sheet, in_combat=in_combat)
        waits = due is not None and due is not RollDue.NEXT_ROUND
        return (0 if waits else 1, _ROLL_ORDER.get(sheet.state, 9), sheet.name.casefold())

    return sorted(rows, key=key)


async def board_view(db: Database, guild_id: int, channel_id: int) -> BoardView:
    async with db.transaction(guild_id, read_only=True) as uow:
        return await read_board(uow, channel_id, await uow.settings())


async def live_board_view(db: Database, guild_id: int, channel_id: int) -> BoardView | None:
    """board_view for the campaign page's live board: None once the channel has no board (the
    GM stopped it, or its message is gone)."""
    async with db.transaction(guild_id, read_only=True) as uow:
        if await uow.board(channel_id) is None:
            return None
        return await read_board(uow, channel_id, await uow.settings())


async def read_board(uow: UnitOfWork, channel_id: int, settings: GuildSettings) -> BoardView:
    """board_view's reading, in a transaction that has read the settings already."""
    combat = await uow.combat(channel_id)
    if combat is not None:
        rows = await uow.members(combat.id)
        total = len(rows)
        shown = _order(rows, in_combat=True)[:MAX_LINES]
    else:
        living, total = await uow.living(MAX_LINES)
        shown = _order(living, in_combat=False)
    latest = await uow.latest_event()
    sheets = [row.sheet for row in shown]
    more = total - len(sheets)
    ids = tuple(row.id for row in shown)
    return BoardView(uow.guild_id, channel_id, combat, sheets, more, settings, latest, ids)


async def check_gm(db: Database, caller: Caller) -> None:
    """P-3: boards are the GM's."""
    async with db.transaction(caller.guild_id, read_only=True) as uow:
        await require_gm(uow, caller)


async def start_board(db: Database, caller: Caller, message_id: int) -> Board | None:
    """The channel's board is now `message_id`; returns the board it replaces, if any."""
    async with db.transaction(caller.guild_id) as uow:
        await require_gm(uow, caller)
        old = await uow.board(caller.channel_id)
        await uow.set_board(caller.channel_id, message_id)
        await uow.log(None, caller.user_id, "board start", {"channel_id": caller.channel_id})
    return old


async def stop_board(db: Database, caller: Caller) -> Board:
    async with db.transaction(caller.guild_id) as uow:
        await require_gm(uow, caller)
        board = await uow.board(caller.channel_id)
        if board is None:
            raise RuleError("There is no status board in this channel: /board start posts one.")
        await uow.end_board(caller.channel_id)
        await uow.log(None, caller.user_id, "board stop", {"channel_id": caller.channel_id})
    return board


async def replace_board(db: Database, board: Board, message_id: int) -> bool:
    """An older board (not built from layout components) is now `message_id`: only if it is
    still that board's message (a /board start meanwhile wins)."""
    async with db.transaction(board.guild_id) as uow:
        current = await uow.board(board.channel_id)
        if current is None or current.message_id != board.message_id:
            return False
        await uow.set_board(board.channel_id, message_id)
    return True


async def end_board(db: Database, board: Board) -> None:
    """A board whose message or channel is gone ends (only if it is still that message)."""
    async with db.transaction(board.guild_id) as uow:
        await uow.end_board(board.channel_id, board.message_id)
