"""`/recap`: the story of a period from the event log (U-1), in one transaction; and a recap
told before, told again the same (the campaign page's recaps).

Anyone in the server may ask: it reads the table's public events of this guild only (P-2). The
recap is logged as the guild's own bookkeeping (no character, U-2), so that the next
`since:session` starts where this one ended; that one write makes it a writing transaction.
Its inputs remember the period it told (`after` < event id ≤ `through`, logged at `start` or
later for the periods of hours), so that it can be told again exactly; a recap logged before
they did has its period found again from the log (`remembered`).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from bot.db.database import Database
from bot.db.guilds import FIRST_DAY
from bot.db.recaps import Marker
from bot.db.uow import UnitOfWork
from bot.services.context import Caller
from rules import recap as rules
from rules.models import GuildSettings
from rules.recap import FIRST_RECAP_HOURS, HOURS_DEFAULT, Recap, Since

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
class Span:
    """The events a recap reads: `after` < id ≤ `through`, and logged at `since` or later
    (the periods of hours look back in time; the others start after an event, whatever its
    clock)."""

    after: int
    through: int
    since: datetime | None = None


@dataclass(frozen=True)
class Told:
    recap: Recap
    window: Window
    settings: GuildSettings


@dataclass(frozen=True)
class Remembered:
    """A recap told before, as its marker remembers it: when, by whom, its period, the events
    it read and how many."""

    id: int
    created_at: datetime
    user_id: int
    window: Window
    span: Span
    read: int


def _span(window: Window, after: int, through: int) -> Span:
    return Span(after, through, window.start if window.hours is not None else None)


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
        return Window(since, marker.created_at), _ended(marker)
    assert hours is not None  # rules.recap.period gives since:hours its hours
    return Window(since, now - timedelta(hours=hours), hours=hours), 0


def _ended(marker: Marker) -> int:
    """The last event a recap read: the next since:session starts after it."""
    through = marker.inputs.get("through")
    return through if isinstance(through, int) else marker.id


def _logged(window: Window, span: Span, read: int) -> dict[str, object]:
    """What a recap logs: its period and what it read, enough to tell it again exactly."""
    inputs: dict[str, object] = {
        "since": window.since.value,
        "after": span.after,
        "through": span.through,
        "read": read,
    }
    if window.hours is not None:
        inputs["hours"] = window.hours
    if window.day is not None:
        inputs["day"] = window.day
    if window.start is not None:
        inputs["start"] = window.start.isoformat()
    return inputs


async def recap(db: Database, caller: Caller, since: str | None, hours: int | None) -> Told:
    """U-1: the period's changes (those that stand, U-3), told by rules.recap; the recap
    logged as bookkeeping (U-2), remembering its period and the last event it read."""
    kind, hours = rules.period(since, hours)
    now = db.clock()
    async with db.transaction(caller.guild_id) as uow:
        settings = await uow.settings()
        through = await uow.latest_event()
        window, after = await _window(uow, kind, hours, now)
        span = _span(window, after, through)
        steps = await uow.recap_steps(span.after, span.through, span.since)
        await uow.log(None, caller.user_id, RECAP, _logged(window, span, len(steps)))
    # Told once committed: the rule needs no lock, and the table's writers wait no longer.
    return Told(rules.tell(steps), window, settings)


# --- a recap told before -------------------------------------------------------------------


def _int(inputs: dict[str, object], key: str) -> int | None:
    value = inputs.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _stamp(inputs: dict[str, object]) -> datetime | None:
    value = inputs.get("start")
    try:
        return datetime.fromisoformat(value) if isinstance(value, str) else None
    except ValueError:
        return None


def _since(inputs: dict[str, object]) -> Since:
    try:
        return Since(str(inputs.get("since", Since.SESSION.value)))
    except ValueError:
        return Since.SESSION


async def remembered(uow: UnitOfWork, marker: Marker) -> Remembered:
    """The period a logged recap told. Its inputs say it since they hold `after`; before
    that, it is found again as `/recap` found it then: the latest marker before this one
    (the previous recap, or the `/day` of since:day), and the hours back from the moment it
    was logged (exact to the few milliseconds between the bot's clock and its logging)."""
    inputs = marker.inputs
    since = _since(inputs)
    hours, through, after = _int(inputs, "hours"), _int(inputs, "through"), _int(inputs, "after")
    through = marker.id - 1 if through is None else through
    start = _stamp(inputs)
    if after is not None:  # logged with its whole period
        day = (_int(inputs, "day") or FIRST_DAY) if since is Since.DAY else None
        first = since is Since.SESSION and hours is not None  # it found no recap before it
        window = Window(since, start, hours=hours, day=day, first=first)
        return _remember(marker, window, after, through)
    if since is Since.DAY:
        began = await uow.marker(DAY, before=marker.id)
        day = _int(began.inputs, "day") if began is not None else None
        window = Window(since, began.created_at if began else None, day=day or FIRST_DAY)
        return _remember(marker, window, began.id if began else 0, through)
    if since is Since.SESSION and hours is None:
        previous = await uow.marker(RECAP, before=marker.id)
        if previous is not None:
            window = Window(since, previous.created_at)
            return _remember(marker, window, _ended(previous), through)
    # Hours back from when it was told: since:hours, or a since:session that found no recap
    first = since is Since.SESSION
    hours = hours or (FIRST_RECAP_HOURS if first else HOURS_DEFAULT)
    window = Window(since, marker.created_at - timedelta(hours=hours), hours=hours, first=first)
    return _remember(marker, window, 0, through)


def _remember(marker: Marker, window: Window, after: int, through: int) -> Remembered:
    read = _int(marker.inputs, "read") or 0
    span = _span(window, after, through)
    return Remembered(marker.id, marker.created_at, marker.user_id, window, span, read)


async def retell(uow: UnitOfWork, told: Remembered, settings: GuildSettings) -> Told:
    """The story a recap told, read again from the log: the same events (what was undone
    after it still counts, as it did then: bot/db/recaps.py), so the same story. Writes
    nothing: no new marker."""
    span = told.span
    steps = await uow.recap_steps(span.after, span.through, span.since)
    return Told(rules.tell(steps), told.window, settings)
