"""Every roll is a change (U-2, revised): the events of rolls are marked as changes.

A recovery roll, a Last Gasp, a Medicine check, a check or a situational breakdown is a change
even when its result changes nothing a player sees (it used the round's roll, R-8). The bot
marked such an event bookkeeping when only the round's flag moved, or nothing did (the GM's roll
outside combat): /history left it out, and /undo passed over it to the change before, reverting
the damage while the round's roll stayed used.

- events.is_change: true for every event whose `rolls` is not empty.
- events.undoable (U-3): such an event becomes undoable, as the bot now marks one (a change of
  an existing sheet, not an undo), unless an undo logged after it passed over it (it reverted an
  older event of the same character). /undo walks back from the newest change: undoing that roll
  now would revert it after a change older than it, out of order, so it stays as it was
  (shown by /history, not undoable).

No row is added or removed and no sheet changes. The downgrade marks the events of rolls, and
the undos, as 0002 computed them: a change only when a field a player sees differs (the bot of
0002 refuses to undo a roll that changed nothing, and would stop at it for good).

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-02
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# Frozen here as 0002 read them: the counters of the turn and the round, never a change.
_BOOKKEEPING = {"reactions_taken", "early_this_round", "recovered_this_round", "spent_this_round"}


def _as_text(column: str) -> str:
    # PostgreSQL's driver would decode JSON (and fail on a number too long for Python).
    return f"CAST({column} AS TEXT)" if op.get_bind().dialect.name == "postgresql" else column


def _rolled(text: str | None) -> bool:
    """Whether the stored `rolls` hold a roll: any non-empty list (`[]` as any writer spaced
    it is none)."""
    if text is None:
        return False
    value = json.loads(text)
    return isinstance(value, list) and bool(value)


def _parse(text: str | None) -> dict[str, Any] | None:
    if text is None:
        return None
    value = json.loads(text, parse_int=lambda digits: digits)  # compared, never computed
    return value if isinstance(value, dict) else None


def _visible_change(before: dict[str, Any] | None, after: dict[str, Any] | None) -> bool:
    """0002's rule: a creation, a deletion, or a field other than bookkeeping differs."""
    if before is None or after is None:
        return before is not after
    keys = (set(before) | set(after)) - _BOOKKEEPING
    return any(before.get(key) != after.get(key) for key in keys)


def _mark(conn: sa.Connection, values: list[dict[str, Any]]) -> None:
    if values:
        conn.execute(
            sa.text(
                "UPDATE events SET is_change = :change, undoable = :undoable WHERE id = :id"
            ).bindparams(
                sa.bindparam("change", type_=sa.Boolean()),
                sa.bindparam("undoable", type_=sa.Boolean()),
            ),
            values,
        )


def upgrade() -> None:
    conn = op.get_bind()
    candidates = conn.execute(
        sa.text(
            f"SELECT id, character_id, command, {_as_text('rolls')}, "
            "sheet_before IS NOT NULL AND sheet_after IS NOT NULL FROM events "
            "WHERE is_change = :no ORDER BY id"
        ).bindparams(sa.bindparam("no", type_=sa.Boolean())),
        {"no": False},
    ).all()
    rolls = [row for row in candidates if _rolled(row[3])]
    if not rolls:
        return
    # (reverted event, its undo) by character: an undo passed over every event between them.
    undone: dict[int, list[tuple[int, int]]] = {}
    for character_id, event_id, undo_id in conn.execute(
        sa.text("SELECT character_id, id, reverted_by FROM events WHERE reverted_by IS NOT NULL")
    ).all():
        undone.setdefault(character_id, []).append((event_id, undo_id))

    def passed_over(character_id: int | None, event_id: int) -> bool:
        pairs = undone.get(character_id, []) if character_id is not None else []
        return any(older < event_id < undo for older, undo in pairs)

    _mark(
        conn,
        [
            {
                "change": True,
                "undoable": command != "undo"
                and bool(sheets)  # sheets: a SQL boolean (0/1 on SQLite)
                and not passed_over(character_id, event_id),
                "id": event_id,
            }
            for event_id, character_id, command, _, sheets in rolls
        ],
    )


def downgrade() -> None:
    conn = op.get_bind()
    rows = conn.execute(
        sa.text(
            f"SELECT id, command, {_as_text('rolls')}, {_as_text('sheet_before')}, "
            f"{_as_text('sheet_after')} FROM events WHERE is_change = :yes ORDER BY id"
        ).bindparams(sa.bindparam("yes", type_=sa.Boolean())),
        {"yes": True},
    ).all()
    values = []
    for event_id, command, rolls, before, after in rows:
        if command != "undo" and not _rolled(rolls):
            continue
        if _visible_change(_parse(before), _parse(after)):
            continue
        values.append({"change": False, "undoable": False, "id": event_id})
    _mark(conn, values)
