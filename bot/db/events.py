"""The append-only event log (U-1), and history and undo read from it (U-2, U-3)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Row, Select, bindparam, func, select, text, update

from bot.db.characters import CharacterRepository
from bot.db.codec import load_roll
from bot.db.records import Event, utc
from bot.db.tables import DELETIONS, characters, events
from bot.db.turns import rows
from bot.db.writes import LOG_EVENT, UNDO, event_values
from rules import history
from rules.errors import RuleError
from rules.models import Sheet
from rules.names import name_key
from rules.outcome import Outcome
from rules.rolls import Roll


def _history(bookkeeping: bool, paged: bool) -> Select[Any]:
    stmt = select(events).where(
        events.c.guild_id == bindparam("guild_id"), events.c.character_id == bindparam("character")
    )
    if not bookkeeping:
        stmt = stmt.where(events.c.is_change.is_(True))
    if paged:
        stmt = stmt.where(events.c.id < bindparam("before"))
    return stmt.order_by(events.c.id.desc()).limit(bindparam("limit"))


# Built once (session.py says why): a history's four shapes, the newest event's id.
_HISTORY = {(b, p): _history(b, p) for b in (False, True) for p in (False, True)}
_LATEST = select(func.max(events.c.id)).where(events.c.guild_id == bindparam("guild_id"))
# A guild's deletions of characters gone since, newest first. Read through their own index
# (tables.py), which a statement serves only if it names the deletion as a literal.
DELETED = (
    select(events.c.character_id, events.c.sheet_before)
    .where(
        events.c.guild_id == bindparam("guild_id"),
        text(DELETIONS),
        events.c.character_id.not_in(select(characters.c.id)),
    )
    .order_by(events.c.id.desc())
)


def _sheet(data: dict[str, Any] | None) -> Sheet | None:
    return None if data is None else Sheet.model_validate(data)


def _event(record: Row[Any]) -> Event:
    return Event(
        id=record.id,
        guild_id=record.guild_id,
        character_id=record.character_id,
        user_id=record.user_id,
        command=record.command,
        inputs=record.inputs,
        rolls=tuple(load_roll(roll) for roll in record.rolls),
        rules=tuple(record.rules),
        before=_sheet(record.sheet_before),
        after=_sheet(record.sheet_after),
        is_change=record.is_change,
        created_at=utc(record.created_at),
        reverted_by=record.reverted_by,
    )


class EventRepository(CharacterRepository):
    async def log(
        self,
        character_id: int | None,
        user_id: int,
        command: str,
        inputs: dict[str, Any],
        *,
        before: Sheet | None = None,
        after: Sheet | None = None,
        rolls: Sequence[Roll] = (),
        rules: Sequence[str] = (),
    ) -> int:
        """Append one event (writes.LOG_EVENT, the one way an event is written); its id."""
        self._writable()
        values = event_values(
            guild_id=self.guild_id,
            character_id=character_id,
            user_id=user_id,
            command=command,
            inputs=inputs,
            before=before,
            after=after,
            rolls=rolls,
            rules=rules,
            now=self._now(),
        )
        result = await self.conn.execute(LOG_EVENT, values)
        # The key without RETURNING on SQLite: lastrowid, one trip fewer to its thread.
        inserted = result.inserted_primary_key
        assert inserted is not None
        return int(inserted[0])

    async def log_outcome(
        self,
        character_id: int,
        user_id: int,
        command: str,
        inputs: dict[str, Any],
        outcome: Outcome,
    ) -> int:
        return await self.log(
            character_id,
            user_id,
            command,
            inputs,
            before=outcome.before,
            after=outcome.after,
            rolls=outcome.rolls,
            rules=outcome.rules,
        )

    async def history(
        self,
        character_id: int,
        limit: int = 10,
        *,
        bookkeeping: bool = False,
        before: int | None = None,
    ) -> list[Event]:
        """The character's latest events, newest first: its changes (U-2), and its
        bookkeeping too when asked; with `before`, those older than that event (the next page
        of the campaign page's history, stable while new events arrive)."""
        stmt = _HISTORY[bookkeeping, before is not None]
        values = {"character": character_id, "before": before, "limit": limit}
        return await rows(self.conn, await self.conn.execute(stmt, self._of(**values)), _event)

    async def undo(self, character_id: int, user_id: int) -> tuple[Outcome, Event]:
        """U-3: revert the latest change not yet reverted, field by field (rules.history);
        the reverted event is marked, and the undo is logged like any change. Bookkeeping is
        never reverted (U-2): the event must be a change, whatever its `undoable` says (rows
        written before is_change existed were marked undoable by a looser rule)."""
        self._writable()
        row = await self.character_by_id(character_id, lock=True)
        target = None
        if row is not None:
            stmt = (
                select(events)
                .where(
                    events.c.guild_id == self.guild_id,
                    events.c.character_id == character_id,
                    events.c.is_change.is_(True),
                    events.c.undoable.is_(True),
                    events.c.reverted_by.is_(None),
                )
                .order_by(events.c.id.desc())
                .limit(1)
            )
            record = (await self.conn.execute(stmt)).first()
            target = None if record is None else _event(record)
        if row is None or target is None or target.before is None or target.after is None:
            name = row.sheet.name if row else await self.name_of(character_id)
            raise RuleError("Nothing to undo for {name}.", name=name)
        outcome = history.revert(
            row.sheet, target.before, target.after, target.command, rolled=bool(target.rolls)
        )
        await self.save_character(character_id, outcome.after)
        inputs = {"event_id": target.id, "command": target.command}
        undo_id = await self.log_outcome(character_id, user_id, UNDO, inputs, outcome)
        await self.conn.execute(
            update(events).where(events.c.id == target.id).values(reverted_by=undo_id)
        )
        return outcome, target

    async def latest_event(self) -> int:
        """The id of the guild's newest event (0: none): what changed since is newer."""
        return (await self.conn.execute(_LATEST, self._of())).scalar_one_or_none() or 0

    async def deleted(self) -> list[tuple[int, Sheet]]:
        """The guild's deleted characters (their log stays): id and last sheet, newest first."""
        found: dict[int, Sheet] = {}
        for character_id, data in (await self.conn.execute(DELETED, self._of())).all():
            if character_id not in found and data is not None:
                found[character_id] = Sheet.model_validate(data)
        return list(found.items())

    async def deleted_named(self, name: str) -> tuple[int, Sheet] | None:
        key = name_key(name)
        return next(((i, s) for i, s in await self.deleted() if name_key(s.name) == key), None)

    async def name_of(self, character_id: int) -> str:
        """The name, even of a deleted character: from its latest event."""
        row = await self.character_by_id(character_id, lock=False)
        if row is not None:
            return row.sheet.name
        stmt = (
            select(events.c.sheet_after, events.c.sheet_before)
            .where(events.c.guild_id == self.guild_id, events.c.character_id == character_id)
            .order_by(events.c.id.desc())
            .limit(1)
        )
        record = (await self.conn.execute(stmt)).first()
        sheet = None if record is None else (record[0] or record[1])
        return str(sheet["name"]) if sheet else f"character {character_id}"
