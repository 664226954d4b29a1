"""Events marked as changes or bookkeeping, each character's state beside its sheet, the
status boards; stored sheets brought within the ranges of the character sheet.

- events.is_change (U-2): computed for every event from its sheets, as the bot now does.
- characters.state: the state of each sheet (V-1..V-5, E-7), for lists and boards.
- boards: one status board per channel.
- Sheets, in characters and in the log, are brought within the ranges the rules now enforce
  (VIT ≥ -10,000, Stress ≤ 10,000, names without control or invisible characters); name keys
  are computed anew (invisible characters and variation selectors left out), and a name that
  would now clash with another of its guild gets a number (" (2)"). No event is removed.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-30
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# Frozen here as this revision defines them: a migration must not change with later code.
MIN_VIT, MAX_STRESS, MAX_REACTIONS, MAX_NAME, MAX_KEY = -10_000, 10_000, 100, 32, 128
_FORBIDDEN = {"Cc", "Cf", "Zl", "Zp", "Cs"}
_INVISIBLE = set("\u115f\u1160\u3164\uffa0\u2800\u034f\u17b4\u17b5\u180b\u180c\u180d\u180f")
_SELECTORS = {chr(c) for c in [*range(0xFE00, 0xFE10), *range(0xE0100, 0xE01F0)]}
_BOOKKEEPING = {"reactions_taken", "early_this_round", "recovered_this_round"}


def _invisible(char: str) -> bool:
    return char in _INVISIBLE or unicodedata.category(char) in _FORBIDDEN


def _key(name: str) -> str:
    kept = "".join(c for c in name if not _invisible(c) and c not in _SELECTORS)
    return unicodedata.normalize("NFKC", kept).casefold().strip()


def _big(digits: str) -> int:
    """json's parse_int: numbers too long for Python (4,300 digits) become merely large."""
    if len(digits.lstrip("-")) > 18:
        return -(10**18) if digits.startswith("-") else 10**18
    return int(digits)


def _parse(text: str | None) -> dict[str, Any] | None:
    if text is None:
        return None
    value = json.loads(text, parse_int=_big)
    return value if isinstance(value, dict) else None


def _repair(sheet: dict[str, Any], row_id: int) -> dict[str, Any]:
    sheet = dict(sheet)
    name = "".join(c for c in str(sheet.get("name", "")) if not _invisible(c)).strip()
    if not _key(name) or len(name) > MAX_NAME or len(_key(name)) > MAX_KEY:
        name = f"Character {row_id}"
    sheet["name"] = name
    sheet["vit"] = max(MIN_VIT, int(sheet.get("vit", 0)))
    sheet["stress"] = min(MAX_STRESS, int(sheet.get("stress", 0)))
    sheet["reactions_taken"] = min(MAX_REACTIONS, int(sheet.get("reactions_taken", 0)))
    return sheet


def _state(sheet: dict[str, Any]) -> str:
    if sheet.get("dead"):
        return "Dead"
    if sheet.get("retired"):
        return "Retired"
    vit, res = sheet["vit"], sheet.get("res", 2)
    if vit > 0:
        return "Up"
    if res + vit <= 0:
        return "Dying"
    return "Unconscious" if vit == 0 else "Critical"


def _is_change(before: dict[str, Any] | None, after: dict[str, Any] | None) -> bool:
    if before is None or after is None:
        return before is not after
    keys = (set(before) | set(after)) - _BOOKKEEPING
    return any(before.get(key) != after.get(key) for key in keys)


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _as_text(column: str) -> str:
    # PostgreSQL's driver would decode JSON (and fail on a number too long for Python).
    return f"CAST({column} AS TEXT)" if op.get_bind().dialect.name == "postgresql" else column


def _repair_characters(conn: sa.Connection) -> None:
    rows = conn.execute(
        sa.text(f"SELECT id, guild_id, {_as_text('sheet')} FROM characters ORDER BY id")
    ).all()
    taken: dict[int, set[str]] = {}
    for row_id, guild_id, text in rows:
        sheet = _repair(_parse(text) or {}, row_id)
        keys = taken.setdefault(guild_id, set())
        base, number = sheet["name"], 2
        while _key(sheet["name"]) in keys:
            suffix = f" ({number})"
            sheet["name"] = base[: MAX_NAME - len(suffix)].rstrip() + suffix
            number += 1
        keys.add(_key(sheet["name"]))
        conn.execute(
            sa.text(
                "UPDATE characters SET sheet = :sheet, name_key = :key, state = :state "
                "WHERE id = :id"
            ).bindparams(sa.bindparam("sheet", type_=sa.JSON)),
            {"sheet": sheet, "key": _key(sheet["name"]), "state": _state(sheet), "id": row_id},
        )


def _mark_events(conn: sa.Connection) -> None:
    rows = conn.execute(
        sa.text(
            f"SELECT id, character_id, {_as_text('sheet_before')}, {_as_text('sheet_after')} "
            "FROM events ORDER BY id"
        )
    ).all()
    update = sa.text(
        "UPDATE events SET sheet_before = :before, sheet_after = :after, is_change = :change "
        "WHERE id = :id"
    ).bindparams(
        sa.bindparam("before", type_=sa.JSON(none_as_null=True)),
        sa.bindparam("after", type_=sa.JSON(none_as_null=True)),
    )
    for event_id, character_id, before_text, after_text in rows:
        row_id = character_id or 0
        before, after = _parse(before_text), _parse(after_text)
        before = None if before is None else _repair(before, row_id)
        after = None if after is None else _repair(after, row_id)
        conn.execute(
            update,
            {"before": before, "after": after, "change": _is_change(before, after), "id": event_id},
        )


def upgrade() -> None:
    # Plain ALTER TABLE ADD COLUMN with a constant default: on SQLite a copy-and-move of the
    # characters table would drop it, and ON DELETE CASCADE would empty the tables that refer
    # to it. The defaults are overwritten at once below.
    op.add_column(
        "characters", sa.Column("state", sa.String(length=16), nullable=False, server_default="Up")
    )
    op.add_column(
        "events", sa.Column("is_change", sa.Boolean(), nullable=False, server_default="0")
    )
    conn = op.get_bind()
    _repair_characters(conn)
    _mark_events(conn)
    op.create_table(
        "boards",
        sa.Column("channel_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column("message_id", sa.BigInteger(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("channel_id", name=op.f("pk_boards")),
    )
    op.create_index(op.f("ix_boards_guild_id"), "boards", ["guild_id"])


def downgrade() -> None:
    op.drop_table("boards")
    op.drop_column("events", "is_change")  # SQLite 3.35+ drops a column in place
    op.drop_column("characters", "state")
