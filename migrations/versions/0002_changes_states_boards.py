"""Events marked as changes or bookkeeping, each character's state beside its sheet, the
status boards; stored sheets brought within the ranges of the character sheet.

- events.is_change (U-2): computed for every event from its sheets, as the bot now does.
- characters.state: the state of each sheet (V-1..V-5, E-7), for lists and boards.
- boards: one status board per channel.
- events.undoable (U-3): only a change (is_change) stays undoable. The old code marked any two
  different sheets undoable, so /undo would have reverted old bookkeeping (a /turn resetting
  the reaction count) instead of the latest change.
- Sheets, in characters and in the log, are brought within the ranges the rules now enforce
  (VIT ≥ -10,000, Stress ≤ 10,000, names without control or invisible characters); name keys
  are computed anew (invisible characters and variation selectors left out), and a name that
  would now clash with another of its guild gets a number (" (2)", or the first number free).
  The one that keeps its name: the character whose key stays as it was (what players typed
  still finds it), else the one created first. No event is removed.
- Each such renaming is logged, so that the character's log still leads to its sheet (U-1):
  a "character edit" (the bot's own rename) with inputs {"name", "reason"}, by user 0 (nobody:
  the upgrade did it, not a member of the guild), created at the time of the upgrade, a change
  (is_change) but not undoable: undoing it would give back a name another character has, which
  the unique key refuses, and would leave the character's /undo stuck on it for good.

The downgrade removes the new columns and table only: the repaired sheets and names, and the
renamings' events, stay (they are true of the sheets that stay).

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-30
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any, NamedTuple

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
# What /history shows of a renaming by this upgrade ("for “…”").
RENAMED_BECAUSE = "the same name as another character, once invisible characters are left out"


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


class _Row(NamedTuple):  # not a dataclass: alembic loads this file outside sys.modules
    id: int
    guild_id: int
    old_key: str
    sheet: dict[str, Any]  # repaired; its name may still get a number

    @property
    def key(self) -> str:
        return _key(self.sheet["name"])


def _numbered(row: _Row, taken: set[str]) -> dict[str, Any]:
    """The sheet with the first name `Name (n)` whose key nobody of its guild has."""
    base, number = row.sheet["name"], 2
    while True:
        suffix = f" ({number})"
        name = base[: MAX_NAME - len(suffix)].rstrip() + suffix
        if _key(name) not in taken:
            return {**row.sheet, "name": name}
        number += 1


def _repair_characters(conn: sa.Connection) -> list[tuple[_Row, dict[str, Any]]]:
    """Every character repaired, with its state and a key of its own; returns the ones renamed
    (the row as repaired, and its sheet with the number)."""
    rows = [
        _Row(row_id, guild_id, old_key, _repair(_parse(text) or {}, row_id))
        for row_id, guild_id, old_key, text in conn.execute(
            sa.text(
                f"SELECT id, guild_id, name_key, {_as_text('sheet')} FROM characters ORDER BY id"
            )
        ).all()
    ]
    # Every new key is decided before any is written: first the keys that stay as they were,
    # then the others in the order of creation; whoever finds its key taken gets a number that
    # no name of its guild has (not even one that comes later in id order, like "Kai (2)").
    taken: dict[int, set[str]] = {}
    clashing: list[_Row] = []
    for row in sorted(rows, key=lambda r: (r.key != r.old_key, r.id)):
        keys = taken.setdefault(row.guild_id, set())
        if row.key in keys:
            clashing.append(row)
        else:
            keys.add(row.key)
    renamed = []
    sheets = {row.id: row.sheet for row in rows}
    for row in sorted(clashing, key=lambda r: r.id):
        sheets[row.id] = _numbered(row, taken[row.guild_id])
        taken[row.guild_id].add(_key(sheets[row.id]["name"]))
        renamed.append((row, sheets[row.id]))
    # The new keys are unique, but written one row at a time a new key can meet an old one not
    # yet rewritten (UNIQUE (guild_id, name_key) refuses it): so every key that changes is
    # first set aside. "Upgrading <id>": unique, and no name's key, since keys are casefolded.
    moving = [row for row in rows if _key(sheets[row.id]["name"]) != row.old_key]
    if moving:
        conn.execute(
            sa.text("UPDATE characters SET name_key = :key WHERE id = :id"),
            [{"key": f"Upgrading {row.id}", "id": row.id} for row in moving],
        )
    if rows:
        conn.execute(
            sa.text(
                "UPDATE characters SET sheet = :sheet, name_key = :key, state = :state "
                "WHERE id = :id"
            ).bindparams(sa.bindparam("sheet", type_=sa.JSON)),
            [
                {"sheet": sheet, "key": _key(sheet["name"]), "state": _state(sheet), "id": row_id}
                for row_id, sheet in sheets.items()
            ],
        )
    return renamed


def _mark_events(conn: sa.Connection) -> None:
    rows = conn.execute(
        sa.text(
            f"SELECT id, character_id, {_as_text('sheet_before')}, {_as_text('sheet_after')}, "
            "undoable FROM events ORDER BY id"
        )
    ).all()
    update = sa.text(
        "UPDATE events SET sheet_before = :before, sheet_after = :after, is_change = :change, "
        "undoable = :undoable WHERE id = :id"
    ).bindparams(
        sa.bindparam("before", type_=sa.JSON(none_as_null=True)),
        sa.bindparam("after", type_=sa.JSON(none_as_null=True)),
        sa.bindparam("change", type_=sa.Boolean()),
        sa.bindparam("undoable", type_=sa.Boolean()),
    )
    values = []
    for event_id, character_id, before_text, after_text, undoable in rows:
        row_id = character_id or 0
        before, after = _parse(before_text), _parse(after_text)
        before = None if before is None else _repair(before, row_id)
        after = None if after is None else _repair(after, row_id)
        change = _is_change(before, after)
        # U-3: undo reverts the latest change, never bookkeeping. The old mark (not an undo,
        # two sheets that differ) is kept only where the event is a change.
        values.append(
            {
                "before": before,
                "after": after,
                "change": change,
                "undoable": bool(undoable) and change,
                "id": event_id,
            }
        )
    if values:
        conn.execute(update, values)


def _log_renames(conn: sa.Connection, renamed: list[tuple[_Row, dict[str, Any]]]) -> None:
    """One event per character renamed above (see the module's docstring)."""
    if not renamed:
        return
    now = datetime.now(UTC)
    conn.execute(
        sa.text(
            "INSERT INTO events (guild_id, character_id, user_id, command, inputs, rolls, rules, "
            "sheet_before, sheet_after, is_change, undoable, reverted_by, created_at) VALUES "
            "(:guild_id, :character_id, 0, 'character edit', :inputs, :rolls, :rules, :before, "
            ":after, :change, :undoable, NULL, :now)"
        ).bindparams(
            *(sa.bindparam(n, type_=sa.JSON) for n in ("inputs", "rolls", "rules")),
            *(sa.bindparam(n, type_=sa.JSON(none_as_null=True)) for n in ("before", "after")),
            *(sa.bindparam(n, type_=sa.Boolean()) for n in ("change", "undoable")),
            sa.bindparam("now", type_=sa.DateTime(timezone=True)),
        ),
        [
            {
                "guild_id": row.guild_id,
                "character_id": row.id,
                "inputs": {"name": sheet["name"], "reason": RENAMED_BECAUSE},
                "rolls": [],
                "rules": [],
                "before": row.sheet,
                "after": sheet,
                "change": True,
                "undoable": False,
                "now": now,
            }
            for row, sheet in renamed
        ],
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
    renamed = _repair_characters(conn)
    _mark_events(conn)
    _log_renames(conn, renamed)  # after: they are marked as they are written
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
