"""What `/recap` reads of the event log (U-1): the guild's own markers (the latest `day`, the
latest `recap`, the recaps told so far) and a period's changes, as rules.recap's plain steps.

A night can hold 10,000 events: only what the story needs is read. The database picks the few
fields a `Snapshot` has out of each logged sheet (decoding 20,000 whole sheets in Python took a
second): PostgreSQL parses each sheet once into typed columns (`json_to_record`; its `->`
parses the text again at every field), SQLite into one short JSON array a row. The dice are read
only of the recovery rolls.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Boolean, Integer, Select, Text, case, column, func, or_, select, true

from bot.db.codec import load_roll
from bot.db.records import utc
from bot.db.session import Session
from bot.db.tables import characters, events
from rules.models import Emotion
from rules.recap import RECOVER, UNDO, Snapshot, Step
from rules.rolls import NarateerRoll

_EMOTIONS = {emotion.value: emotion for emotion in Emotion}
# A Snapshot's fields, as the database reads them out of a sheet, in this order.
FIELDS = (
    ("name", Text),
    ("vit", Integer),
    ("max_vit", Integer),
    ("res", Integer),
    ("stamina", Integer),
    ("stress", Integer),
    ("breakdown", Text),
    ("dead", Boolean),
    ("retired", Boolean),
)


@dataclass(frozen=True)
class Marker:
    """One of the guild's own events (no character): where a period may start."""

    id: int
    created_at: datetime
    inputs: dict[str, Any]
    user_id: int = 0  # who asked for it


def snapshot(picked: Sequence[Any]) -> Snapshot | None:
    """A logged sheet's FIELDS, as the database picked them (nulls: no sheet). The sheet was
    valid when it was logged; a field an older sheet lacks takes its default."""
    if not picked or picked[0] is None:
        return None
    name, vit, max_vit, res, stamina, stress, breakdown, dead, retired = picked
    return Snapshot(
        str(name),
        int(vit),
        10 if max_vit is None else int(max_vit),
        2 if res is None else int(res),
        int(stamina or 0),
        int(stress or 0),
        _EMOTIONS.get(breakdown) if isinstance(breakdown, str) else None,
        bool(dead),
        bool(retired),
    )


class _Snapshots(dict[tuple[Any, ...], Snapshot | None]):
    """Each distinct sheet made once: an event's sheet after is the next one's sheet before."""

    def __missing__(self, key: tuple[Any, ...]) -> Snapshot | None:
        made = self[key] = snapshot(key)
        return made


def _roll(command: str, rolls: list[dict[str, Any]] | None) -> NarateerRoll | None:
    """The Narateer dice of a recovery roll or a Last Gasp (R-1..R-5)."""
    if command != RECOVER or not rolls:
        return None
    roll = load_roll(rolls[0])
    return roll if isinstance(roll, NarateerRoll) else None


_WIDTH = len(FIELDS)
_ROLLS = case((events.c.command == RECOVER, events.c.rolls), else_=None)


def _postgres_query() -> Select[Any]:
    """Each sheet parsed once into FIELDS' typed columns (a missing sheet: nulls)."""

    def fields(sheet: Any, name: str) -> Any:
        record = func.json_to_record(sheet).table_valued(*(column(n, t) for n, t in FIELDS))
        return record.render_derived(name=name, with_types=True).lateral()

    before, after = fields(events.c.sheet_before, "b"), fields(events.c.sheet_after, "a")
    picked = [before.c[n] for n, _ in FIELDS] + [after.c[n] for n, _ in FIELDS]
    head = (events.c.id, events.c.character_id, events.c.command, _ROLLS)
    joined = events.outerjoin(before, true()).outerjoin(after, true())
    return select(*head, *picked).select_from(joined)


def _sqlite_query() -> Select[Any]:
    """Each sheet's FIELDS as one JSON array; both sheets' in one text a row."""

    def fields(sheet: Any) -> Any:
        return func.json_extract(sheet, *(f"$.{name}" for name, _ in FIELDS))

    both = func.json_array(fields(events.c.sheet_before), fields(events.c.sheet_after), type_=Text)
    return select(events.c.id, events.c.character_id, events.c.command, _ROLLS, both)


def _steps(rows: Iterable[Sequence[Any]], *, postgres: bool) -> list[Step]:
    made = _Snapshots()
    steps = []
    for row in rows:
        event_id, character_id, command, rolls = row[:4]
        if postgres:
            before, after = tuple(row[4 : 4 + _WIDTH]), tuple(row[4 + _WIDTH :])
        else:
            pair = json.loads(row[4])
            before, after = tuple(pair[0] or ()), tuple(pair[1] or ())
        roll = _roll(command, rolls)
        steps.append(Step(event_id, character_id, command, made[before], made[after], roll))
    return steps


def _marker(record: Any) -> Marker:
    return Marker(record.id, utc(record.created_at), dict(record.inputs or {}), record.user_id)


class RecapRepository(Session):
    def _markers(self, command: str) -> Select[Any]:
        """The guild's own events (no character) of `command`, newest first."""
        return (
            select(events.c.id, events.c.created_at, events.c.inputs, events.c.user_id)
            .where(
                events.c.guild_id == self.guild_id,
                events.c.character_id.is_(None),
                events.c.command == command,
            )
            .order_by(events.c.id.desc())
        )

    async def marker(self, command: str, *, before: int | None = None) -> Marker | None:
        """The guild's latest own event of `command` (`day`, `recap`), or None; with `before`,
        the latest older than that event (where an earlier recap's period began)."""
        stmt = self._markers(command)
        if before is not None:
            stmt = stmt.where(events.c.id < before)
        record = (await self.conn.execute(stmt.limit(1))).first()
        return None if record is None else _marker(record)

    async def markers(self, command: str, limit: int, *, before: int | None = None) -> list[Marker]:
        """The guild's latest `limit` own events of `command`, newest first; with `before`,
        those older than that event (the next page, stable while new ones arrive)."""
        stmt = self._markers(command)
        if before is not None:
            stmt = stmt.where(events.c.id < before)
        return [_marker(r) for r in (await self.conn.execute(stmt.limit(limit))).all()]

    async def marker_by_id(self, command: str, event_id: int) -> Marker | None:
        """The guild's own event of `command` with that id: None for any other (another
        guild's, a character's, another command's; P-2)."""
        stmt = self._markers(command).where(events.c.id == event_id)
        record = (await self.conn.execute(stmt)).first()
        return None if record is None else _marker(record)

    async def present(self, character_ids: Iterable[int]) -> set[int]:
        """Which of these are the guild's characters now (the others were deleted)."""
        wanted = set(character_ids)
        if not wanted:
            return set()
        stmt = select(characters.c.id).where(
            characters.c.guild_id == self.guild_id, characters.c.id.in_(wanted)
        )
        return set((await self.conn.execute(stmt)).scalars())

    async def recap_steps(
        self, after: int, through: int, since: datetime | None = None
    ) -> list[Step]:
        """The guild's changes to its characters with `after` < id ≤ `through` (and logged at
        `since` or later), oldest first, leaving out what the story leaves out (rules.recap:
        bookkeeping, what was undone, the undos) before reading it. Undone means undone by
        `through`: an undo logged later is no part of this period, so a period read again
        later (the campaign page's recap) tells what it told then."""
        stmt = (_postgres_query() if self.postgres else _sqlite_query()).where(
            events.c.guild_id == self.guild_id,
            events.c.id > after,
            events.c.id <= through,
            events.c.character_id.is_not(None),
            events.c.is_change.is_(True),
            or_(events.c.reverted_by.is_(None), events.c.reverted_by > through),
            events.c.command != UNDO,
        )
        if since is not None:
            stmt = stmt.where(events.c.created_at >= since)
        result = await self.conn.execute(stmt.order_by(events.c.id))
        return _steps(result, postgres=self.postgres)
