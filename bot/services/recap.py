"""`/recap`: the story of a period from the event log (U-1), in one transaction.

Anyone in the server may ask: it reads the table's public events of this guild only (P-2). The
recap is logged as the guild's own bookkeeping (no character, U-2), so that the next
`since:session` starts where this one ended; that one write makes it a writing transaction.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from bot.db.database import Database
from bot.db.uow import UnitOfWork
from bot.services.context import Caller
from rules import recap as rules
from rules.models import GuildSettings
from rules.recap import FIRST_RECAP_HOURS, Recap, Since

RECAP = "recap"
DAY = "day"


@dataclass(frozen=True)
class Window:
    """The period told. `start`: when it began (None: with the server's first change);
    `hours`: how many hours it looks back (since:hours, and a first since:session); `day`: the
    in-game day of since:day; `first`: since:session on a server that never had a recap."""

    since: Since
    start: datetime | None
    hours: int | None = None
    day: int | None = None
    first: bool = False


@dataclass(frozen=True)
class Told:
    recap: Recap
    window: Window
    settings: GuildSettings


async def _window(
    uow: UnitOfWork, since: Since, hours: int | None, now: datetime
) -> tuple[Window, int]:
    """The period and the id of the last event before it (0: none)."""
    if since is Since.DAY:  # C-4: the guild's latest /day; none yet: its whole log
        day = await uow.day(lock=False)
        marker = await uow.marker(DAY)
        if marker is None:
            return Window(since, None, day=day), 0
        return Window(since, marker.created_at, day=day), marker.id
    if since is Since.SESSION:
        marker = await uow.marker(RECAP)
        if marker is None:
            start = now - timedelta(hours=FIRST_RECAP_HOURS)
            return Window(since, start, hours=FIRST_RECAP_HOURS, first=True), 0
        through = marker.inputs.get("through")
        return Window(since, marker.created_at), through if isinstance(through, int) else marker.id
    assert hours is not None  # rules.recap.period gives since:hours its hours
    return Window(since, now - timedelta(hours=hours), hours=hours), 0


async def recap(db: Database, caller: Caller, since: str | None, hours: int | None) -> Told:
    """U-1: the period's changes (those that stand, U-3), told by rules.recap; the recap
    logged as bookkeeping (U-2), remembering the last event it read."""
    kind, hours = rules.period(since, hours)
    now = db.clock()
    async with db.transaction(caller.guild_id) as uow:
        settings = await uow.settings()
        through = await uow.latest_event()
        window, after = await _window(uow, kind, hours, now)
        # Hours look back in time; the other periods start after an event, whatever its clock.
        start = window.start if window.hours is not None else None
        steps = await uow.recap_steps(after, through, start)
        inputs: dict[str, object] = {"since": kind.value, "through": through, "read": len(steps)}
        if window.hours is not None:
            inputs["hours"] = window.hours
        await uow.log(None, caller.user_id, RECAP, inputs)
    # Told once committed: the rule needs no lock, and the table's writers wait no longer.
    return Told(rules.tell(steps), window, settings)
