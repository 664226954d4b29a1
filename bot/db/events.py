"""The append-only event log, and history and undo read from it."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Row, select, update

from bot.db.characters import CharacterRepository
from bot.db.records import Event, shown, utc
from bot.db.tables import events
from rules.models import Sheet
from rules.outcome import NarateerRoll, NumericRoll, Outcome, Roll, RuleError

UNDO = "undo"
_ROLL_KINDS: dict[str, type[NarateerRoll] | type[NumericRoll]] = {
    "narateer": NarateerRoll,
    "numeric": NumericRoll,
}


def dump_roll(roll: Roll) -> dict[str, Any]:
    kind = "narateer" if isinstance(roll, NarateerRoll) else "numeric"
    return {"kind": kind, **roll.model_dump(mode="json")}


def load_roll(data: dict[str, Any]) -> Roll:
    fields = dict(data)
    return _ROLL_KINDS[fields.pop("kind")].model_validate(fields)


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
        created_at=utc(record.created_at),
        reverted_by=record.reverted_by,
    )


class EventRepository(CharacterRepository):
    async def log(
        self,
        character_id: int | None,
        user_id: int,
        command: str,
        inputs: dict,
        outcome: Outcome | None = None,
        before: Sheet | None = None,
        after: Sheet | None = None,
    ) -> int:
        """Append one event; the outcome, when given, supplies before, after, dice and rules.
        Returns the event id."""
        self._writable()
        if outcome is not None:
            before, after = outcome.before, outcome.after
        stmt = events.insert().values(
            guild_id=self.guild_id,
            character_id=character_id,
            user_id=user_id,
            command=command,
            inputs=inputs,
            rolls=[dump_roll(roll) for roll in outcome.rolls] if outcome else [],
            rules=list(outcome.rules) if outcome else [],
            sheet_before=None if before is None else before.model_dump(mode="json"),
            sheet_after=None if after is None else after.model_dump(mode="json"),
            undoable=command != UNDO and None not in (before, after) and before != after,
            created_at=self._now(),
        )
        # The key without RETURNING: lastrowid on SQLite, one trip fewer to its thread.
        return (await self.conn.execute(stmt)).inserted_primary_key[0]

    async def history(self, character_id: int, limit: int = 10) -> list[Event]:
        """The character's latest events, newest first."""
        stmt = (
            select(events)
            .where(events.c.guild_id == self.guild_id, events.c.character_id == character_id)
            .order_by(events.c.id.desc())
            .limit(limit)
        )
        return [_event(record) for record in (await self.conn.execute(stmt)).all()]

    async def undo(self, character_id: int, user_id: int) -> Outcome:
        """Revert the latest change not yet reverted: the sheet becomes exactly its `before`,
        the reverted event is marked, and the undo is logged like any change."""
        self._writable()
        row = await self.character_by_id(character_id, lock=True)
        target = None
        if row is not None:
            stmt = (
                select(events.c.id, events.c.command, events.c.sheet_before)
                .where(
                    events.c.guild_id == self.guild_id,
                    events.c.character_id == character_id,
                    events.c.undoable.is_(True),
                    events.c.reverted_by.is_(None),
                )
                .order_by(events.c.id.desc())
                .limit(1)
            )
            target = (await self.conn.execute(stmt)).first()
        if row is None or target is None:
            raise RuleError(f"Nothing to undo for {shown(await self._name_of(character_id))}.")
        restored = Sheet.model_validate(target.sheet_before)
        outcome = Outcome(
            action=UNDO,
            before=row.sheet,
            after=restored,
            notes=(f"Reverted /{target.command} (event {target.id}).",),
        )
        await self.save_character(character_id, restored)
        undo_id = await self.log(
            character_id, user_id, UNDO, {"event_id": target.id, "command": target.command}, outcome
        )
        await self.conn.execute(
            update(events).where(events.c.id == target.id).values(reverted_by=undo_id)
        )
        return outcome

    async def _name_of(self, character_id: int) -> str:
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
        return sheet["name"] if sheet else f"character {character_id}"
