"""The unit of work: every repository on the one connection of one transaction."""

from __future__ import annotations

from bot.db.boards import BoardRepository
from bot.db.combat import CombatRepository
from bot.db.events import EventRepository
from bot.db.recaps import RecapRepository
from bot.db.weblinks import WebLinkRepository


class UnitOfWork(
    EventRepository, CombatRepository, BoardRepository, RecapRepository, WebLinkRepository
):
    """One command's transaction, scoped to one guild (P-2: nothing of another guild).

    Get one from `Database.transaction`; it commits when the block ends and changes nothing
    when the block raises.
    """
