"""Migration 0002 on a populated database: from the schema of 0001, with rows written the way
the code of that time wrote them, to the newest, losing nothing (issue 10).

The old code wrote every JSON column through SQLAlchemy's default serializer (`json.dumps`:
spaced, non-ASCII escaped), except the sheets of its driver-level path (pydantic's
`model_dump_json`: compact, non-ASCII kept); a missing sheet as JSON `null`; numeric rolls as
`{"kind": "numeric", …, "modifier": m, "total": t}` (no `value`, no `bonuses`); and
`undoable` = "not an undo, and the sheets differ". The rows below are written that way, by
hand (this test does not need the old code), plus hostile data the old code let through.
"""

from __future__ import annotations

import contextlib
import json
import unicodedata
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import Boolean, DateTime, bindparam, text
from sqlalchemy.ext.asyncio import AsyncConnection

from bot.db.codec import load_roll
from bot.db.database import Database
from bot.db.engine import create_engine
from bot.db.migrate import upgrade_engine
from bot.db.tables import metadata
from rules.models import Sheet
from rules.names import name_key
from rules.rolls import NarateerRoll, NumericRoll
from tests.persistence.conftest import empty_database
from tests.persistence.helpers import Target, caller, hit, log_of, replay

G1, G2 = 1001, 2002
ZWSP = "\u200b"
HUGE = "9" * 4301  # one digit more than Python 3.11 reads by default: written under 3.10
FAR_BELOW = -987654321  # stands for -HUGE in a sheet until it is written out

# The old Sheet's fields, in its order, with its defaults (rules/models.py at revision 0001).
OLD_DEFAULTS: dict[str, Any] = {
    "max_vit": 10,
    "vit": 10,
    "res": 2,
    "con_base": 8,
    "con_wounds": 0,
    "stamina": 8,
    "humility": 0,
    "composure": 0,
    "insight": 0,
    "threshold": 4,
    "anger": 0,
    "fear": 0,
    "sadness": 0,
    "guilt": 0,
    "stress": 0,
    "breakdown": None,
    "dead": False,
    "retired": False,
    "advantage": False,
    "relief_used_today": False,
    "daily_bonus": False,
    "reactions_taken": 0,
    "early_this_round": False,
    "recovered_this_round": False,
}


def old_sheet(name: str, owner_id: int = 7, **fields: Any) -> dict[str, Any]:
    return {"name": name, "owner_id": owner_id, **OLD_DEFAULTS, **fields}


def spaced(value: Any) -> str:
    """SQLAlchemy's default JSON serializer: what the old unit of work wrote."""
    return json.dumps(value)


def compact(value: Any) -> str:
    """pydantic's model_dump_json: the sheets of the old driver-level path."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).replace(
        str(FAR_BELOW), f"-{HUGE}"
    )


def old_key(name: str) -> str:
    """The name key of revision 0001: NFKC and casefold of the stripped name, nothing left out."""
    return unicodedata.normalize("NFKC", name.strip()).casefold()


@dataclass
class Expected:
    """What the upgrade must give, written by hand from the rules (not from the migration)."""

    # event id -> (is_change, sheet_before, sheet_after) as dicts after the repair
    events: dict[int, tuple[bool, dict[str, Any] | None, dict[str, Any] | None]] = field(
        default_factory=dict
    )
    # character id -> (guild, name, state)
    characters: dict[int, tuple[int, str, str]] = field(default_factory=dict)
    ids: dict[str, int] = field(default_factory=dict)  # by a label of the test's own
    deleted: int = 0
    roll_events: list[int] = field(default_factory=list)


class OldBot:
    """Writes rows as the code of revision 0001 did, straight in SQL."""

    def __init__(self, conn: AsyncConnection, postgres: bool) -> None:
        self.conn = conn
        self.postgres = postgres
        self.clock = datetime(2026, 11, 29, 10, 0, tzinfo=UTC)

    def _json(self, name: str) -> str:
        # PostgreSQL's json type keeps the text as written (spaces, long numbers, \u0000).
        return f"CAST(CAST(:{name} AS TEXT) AS JSON)" if self.postgres else f":{name}"

    def _now(self) -> datetime:
        self.clock += timedelta(seconds=1, microseconds=1234)
        return self.clock

    async def _insert(self, sql: str, values: dict[str, Any]) -> int:
        stmt = text(sql + " RETURNING id").bindparams(
            *(
                bindparam(n, type_=DateTime(timezone=True))
                for n in ("created_at", "updated_at", "started_at")
                if n in values
            ),
            *(bindparam(n, type_=Boolean()) for n in ("undoable",) if n in values),
        )
        return int((await self.conn.execute(stmt, values)).scalar_one())

    async def guild(self, guild_id: int, settings: str, day: int) -> None:
        await self.conn.execute(
            text(
                f"INSERT INTO guilds (guild_id, settings, day) VALUES (:g, {self._json('s')}, :d)"
            ),
            {"g": guild_id, "s": settings, "d": day},
        )

    async def character(
        self, guild_id: int, sheet: dict[str, Any], *, version: int = 1, key: str | None = None
    ) -> int:
        now = self._now()
        return await self._insert(
            "INSERT INTO characters (guild_id, name_key, owner_id, sheet, version, created_at, "
            f"updated_at) VALUES (:guild_id, :name_key, :owner_id, {self._json('sheet')}, "
            ":version, :created_at, :updated_at)",
            {
                "guild_id": guild_id,
                "name_key": old_key(sheet["name"]) if key is None else key,
                "owner_id": sheet["owner_id"],
                "sheet": compact(sheet),
                "version": version,
                "created_at": now,
                "updated_at": now,
            },
        )

    async def event(
        self,
        guild_id: int,
        character_id: int,
        command: str,
        inputs: dict[str, Any],
        before: dict[str, Any] | str | None,
        after: dict[str, Any] | str | None,
        *,
        style: Any = compact,
        rolls: list[dict[str, Any]] | None = None,
        rules: list[str] | None = None,
        user_id: int = 7,
    ) -> int:
        """`before`/`after`: a sheet, None (written as JSON null, as the old code did) or
        "NULL" (SQL NULL)."""

        def sheet(value: Any) -> str | None:
            return None if value == "NULL" else style(value) if value is not None else "null"

        undoable = (
            command != "undo"
            and isinstance(before, dict)
            and isinstance(after, dict)
            and before != after
        )
        return await self._insert(
            "INSERT INTO events (guild_id, character_id, user_id, command, inputs, rolls, rules, "
            "sheet_before, sheet_after, undoable, reverted_by, created_at) VALUES (:guild_id, "
            f":character_id, :user_id, :command, {self._json('inputs')}, {self._json('rolls')}, "
            f"{self._json('rules')}, {self._json('before')}, {self._json('after')}, :undoable, "
            "NULL, :created_at)",
            {
                "guild_id": guild_id,
                "character_id": character_id,
                "user_id": user_id,
                "command": command,
                "inputs": spaced(inputs),
                "rolls": spaced(rolls or []),
                "rules": spaced(rules or []),
                "before": sheet(before),
                "after": sheet(after),
                "undoable": undoable,
                "created_at": self._now(),
            },
        )

    async def reverted(self, event_id: int, by: int) -> None:
        await self.conn.execute(
            text("UPDATE events SET reverted_by = :by WHERE id = :id"), {"by": by, "id": event_id}
        )

    async def combat(self, guild_id: int, channel_id: int, members: list[int]) -> int:
        combat_id = await self._insert(
            "INSERT INTO combats (guild_id, channel_id, round, started_at) "
            "VALUES (:g, :c, 2, :started_at)",
            {"g": guild_id, "c": channel_id, "started_at": self._now()},
        )
        for member in members:
            await self.conn.execute(
                text("INSERT INTO combat_members (character_id, combat_id) VALUES (:m, :c)"),
                {"m": member, "c": combat_id},
            )
        return combat_id

    async def active(self, guild_id: int, user_id: int, character_id: int) -> None:
        await self.conn.execute(
            text(
                "INSERT INTO active_characters (guild_id, user_id, character_id) "
                "VALUES (:g, :u, :c)"
            ),
            {"g": guild_id, "u": user_id, "c": character_id},
        )


def repaired(sheet: dict[str, Any], **changes: Any) -> dict[str, Any]:
    return {**sheet, **changes}


async def populate(old: OldBot) -> Expected:
    """A table of a few sessions: every kind of event the old bot logged, and hostile data."""
    x = Expected()

    async def log(
        guild: int,
        who: int,
        command: str,
        inputs: dict[str, Any],
        before: Any,
        after: Any,
        change: bool,
        fixed_before: Any = "same",
        fixed_after: Any = "same",
        **kw: Any,
    ) -> int:
        event_id = await old.event(guild, who, command, inputs, before, after, **kw)

        def expected(value: Any, fixed: Any) -> Any:
            if fixed != "same":
                return fixed
            return value if isinstance(value, dict) else None

        x.events[event_id] = (change, expected(before, fixed_before), expected(after, fixed_after))
        return event_id

    # The settings of that time (no last_gasp_advantage, dying_damage, rule_ids yet).
    settings = {
        "gm_role_id": None,
        "die_faces": "MMMHHC",
        "death_rule": "thresholds",
        "critical_bleed": "all_miss",
        "reaction_reset": "turn",
        "reaction_die": "1d10",
        "emotion_threshold": 6,
    }
    await old.guild(G1, spaced(settings), 3)
    await old.guild(G2, "{}", 1)

    # Ada: a whole session, both old styles of sheet, old dice, an undo, bookkeeping.
    s0 = old_sheet("Ada", res=3)
    s1 = repaired(s0, vit=6)
    s2 = repaired(s1, stamina=6)
    s3 = repaired(s2, vit=-2)
    s4 = repaired(s3, vit=0)
    s5 = repaired(s3, stamina=5, reactions_taken=1)
    s6 = repaired(s5, reactions_taken=0)
    ada = await old.character(G1, s6, version=8)
    x.ids["Ada"] = ada
    await log(G1, ada, "character create", {"name": "Ada"}, None, s0, True, style=spaced)
    await log(G1, ada, "damage", {"amount": 4}, s0, s1, True, rules=["H-1", "H-3"])
    numeric = {
        "kind": "numeric",
        "label": "Check",
        "expression": "2d20",
        "dice": [8, 19],
        "kept": [True, True],
        "modifier": -1,
        "total": 26,
        "target": 15,
        "manual": False,
    }
    pushed = await log(
        G1,
        ada,
        "push",
        {"amount": 2, "roll": "2d20", "target": 15},
        s1,
        s2,
        True,
        rolls=[numeric],
        rules=["S-6", "H-3"],
    )
    await log(G1, ada, "damage", {"amount": 8}, s2, s3, True, rules=["H-1", "V-3", "V-7"])
    narateer = {
        "kind": "narateer",
        "label": "Critical recovery roll",
        "faces": ["C"],
        "rerolls": [],
        "manual": False,
    }
    recovered = await log(
        G1, ada, "recover", {}, s3, s4, True, rolls=[narateer], rules=["D-1", "R-3", "V-2", "V-7"]
    )
    x.roll_events = [pushed, recovered]
    await log(G1, ada, "character select", {"character": "Ada"}, None, None, False)
    undo = await log(
        G1, ada, "undo", {"event_id": recovered, "command": "recover"}, s4, s3, True, style=spaced
    )
    await old.reverted(recovered, undo)
    await log(G1, ada, "react", {"what": None}, s3, s5, True, rules=["S-5"])
    await log(G1, ada, "turn", {}, s5, s6, False, rules=["C-3", "S-5"])  # bookkeeping only
    await log(G1, ada, "round", {}, s6, s6, False, rules=["C-1"])  # nothing changed
    x.characters[ada] = (G1, "Ada", "Critical")

    # The same name with and without a zero-width space: one key now; the later gets " (2)".
    roryn = await old.character(G1, old_sheet("Roryn", 8))
    await log(
        G1,
        roryn,
        "character create",
        {"name": "Roryn"},
        "NULL",
        old_sheet("Roryn", 8),
        True,
        style=spaced,
        user_id=8,
    )
    x.characters[roryn] = (G1, "Roryn", "Up")
    hidden = old_sheet("Roryn" + ZWSP, 9)
    twin = await old.character(G1, repaired(hidden, vit=8), version=2)
    await log(
        G1,
        twin,
        "character create",
        {"name": "Roryn" + ZWSP},
        None,
        hidden,
        True,
        fixed_after=old_sheet("Roryn", 9),
        style=spaced,
        user_id=9,
    )
    await log(
        G1,
        twin,
        "damage",
        {"amount": 2},
        hidden,
        repaired(hidden, vit=8),
        True,
        fixed_before=old_sheet("Roryn", 9),
        fixed_after=old_sheet("Roryn", 9, vit=8),
        user_id=9,
    )
    x.characters[twin] = (G1, "Roryn (2)", "Up")
    x.ids["Roryn"], x.ids["twin"] = roryn, twin

    # A NUL in a name (PostgreSQL's text cannot hold one: there only the JSON carries it).
    nul = old_sheet("Nu\x00ll")
    nul_id = await old.character(G1, nul, key="null" if old.postgres else None)
    await log(
        G1,
        nul_id,
        "character create",
        {"name": "Null"},
        None,
        nul,
        True,
        fixed_after=old_sheet("Null"),
    )
    x.characters[nul_id] = (G1, "Null", "Up")

    # A VIT of 4,301 digits, imported from a file under Python 3.10; Stress above 10,000.
    abyss = old_sheet("Abyss", vit=FAR_BELOW)
    abyss_id = await old.character(G1, abyss)
    await log(
        G1,
        abyss_id,
        "character import",
        {"name": "Abyss"},
        None,
        abyss,
        True,
        fixed_after=old_sheet("Abyss", vit=-10_000),
    )
    x.characters[abyss_id] = (G1, "Abyss", "Dying")
    stressed = old_sheet("Stressed")
    stressed_id = await old.character(G1, repaired(stressed, stress=25_000), version=2)
    await log(G1, stressed_id, "character create", {"name": "Stressed"}, None, stressed, True)
    await log(
        G1,
        stressed_id,
        "character set",
        {"stress": 25_000},
        stressed,
        repaired(stressed, stress=25_000),
        True,
        fixed_after=repaired(stressed, stress=10_000),
        style=spaced,
    )
    x.characters[stressed_id] = (G1, "Stressed", "Up")

    # Every state; a name whose key loses its variation selector; a name of nothing visible.
    for name, fields, state in (
        ("Ghost", {"dead": True, "vit": -3}, "Dead"),
        ("Rex", {"retired": True, "stress": 9, "vit": 9}, "Retired"),
        ("Una", {"vit": 0}, "Unconscious"),
        ("Dee", {"vit": -2}, "Dying"),
        ("\uff3a\uff45\uff44", {}, "Up"),  # Ｚｅｄ: NFKC already
        ("Love\u2764\ufe0f", {}, "Up"),
    ):
        sheet = old_sheet(name, 7, **fields)
        row = await old.character(G1, sheet)
        await log(G1, row, "character create", {"name": name}, None, sheet, True, style=spaced)
        x.characters[row] = (G1, name, state)
        x.ids[name] = row
    blank = old_sheet(ZWSP)
    blank_id = await old.character(G1, blank)
    await log(
        G1,
        blank_id,
        "character create",
        {"name": ZWSP},
        None,
        blank,
        True,
        fixed_after=old_sheet(f"Character {blank_id}"),
    )
    x.characters[blank_id] = (G1, f"Character {blank_id}", "Up")

    # A deleted character: its log stays, with no row.
    gone_sheet = old_sheet("Gone")
    gone = await old.character(G1, gone_sheet)
    await log(
        G1, gone, "character create", {"name": "Gone"}, "NULL", gone_sheet, True, style=spaced
    )
    await log(G1, gone, "damage", {"amount": 1}, gone_sheet, repaired(gone_sheet, vit=9), True)
    await log(
        G1,
        gone,
        "character delete",
        {"character": "Gone"},
        repaired(gone_sheet, vit=9),
        None,
        True,
        style=spaced,
    )
    await old.conn.execute(text("DELETE FROM characters WHERE id = :id"), {"id": gone})
    x.deleted = gone

    # Another guild: the same name is no clash there.
    other = await old.character(G2, old_sheet("Roryn", 7))
    await log(G2, other, "character create", {"name": "Roryn"}, None, old_sheet("Roryn", 7), True)
    x.characters[other] = (G2, "Roryn", "Up")
    x.ids["other"] = other

    await old.combat(G1, 55, [ada, twin])
    await old.combat(G2, 66, [other])
    for guild, user, row in ((G1, 7, ada), (G1, 8, twin), (G1, 9, roryn), (G2, 7, other)):
        await old.active(guild, user, row)
    return x


# --- reading back, as stored -------------------------------------------------------------------

EVENT_KEPT = (
    "id",
    "guild_id",
    "character_id",
    "user_id",
    "command",
    "inputs",
    "rolls",
    "rules",
    # not `undoable`: a migration may compute it anew from is_change (U-3); checked apart
    "reverted_by",
    "created_at",
)


def _as_text(column: str, postgres: bool) -> str:
    return f"CAST({column} AS TEXT)" if postgres else column


async def _rows(
    conn: AsyncConnection, postgres: bool, table: str, columns: tuple[str, ...], order: str
) -> list[tuple[Any, ...]]:
    shown = ", ".join(_as_text(c, postgres) for c in columns)
    return [
        tuple(r)
        for r in (await conn.execute(text(f"SELECT {shown} FROM {table} ORDER BY {order}"))).all()
    ]


def _true(value: Any) -> bool:
    """A boolean as read back: SQLite's 0/1, PostgreSQL's text of it."""
    return value in (1, True, "true")


def _loads(value: str | None) -> Any:
    return None if value is None else json.loads(value)


@dataclass
class Upgraded:
    target: Target
    expected: Expected
    before: dict[str, list[tuple[Any, ...]]]
    # character id -> the events the upgrade logged for it (a renaming)
    renamings: dict[int, list[int]] = field(default_factory=dict)


SNAPSHOT = {
    "events": (EVENT_KEPT, "id"),
    "combat_members": (("character_id", "combat_id"), "character_id"),
    "active_characters": (("guild_id", "user_id", "character_id"), "guild_id, user_id"),
    "combats": (("id", "guild_id", "channel_id", "round", "started_at"), "id"),
    "guilds": (("guild_id", "settings", "day"), "guild_id"),
    # Every column of a character but the repaired ones (sheet, name_key) and the new state.
    "characters": (
        ("id", "guild_id", "owner_id", "version", "created_at", "updated_at"),
        "id",
    ),
}


async def _snapshot(target: Target) -> dict[str, list[tuple[Any, ...]]]:
    engine = create_engine(target.url, connect_args=target.connect_args)
    try:
        async with engine.connect() as conn:
            return {
                table: await _rows(conn, target.postgres, table, columns, order)
                for table, (columns, order) in SNAPSHOT.items()
            }
    finally:
        await engine.dispose()


@contextlib.asynccontextmanager
async def engine_of(target: Target) -> AsyncIterator[AsyncConnection]:
    engine = create_engine(target.url, connect_args=target.connect_args)
    try:
        async with engine.connect() as conn:
            yield conn
    finally:
        await engine.dispose()


async def build_old(target: Target) -> Expected:
    """A database at revision 0001, populated by the old bot."""
    engine = create_engine(target.url, connect_args=target.connect_args)
    try:
        await upgrade_engine(engine, "0001")
        async with engine.begin() as conn:
            return await populate(OldBot(conn, target.postgres))
    finally:
        await engine.dispose()


@pytest.fixture
async def upgraded_old(backend: str, tmp_path: Path) -> AsyncIterator[Upgraded]:
    async with empty_database(backend, tmp_path) as target:
        expected = await build_old(target)
        before = await _snapshot(target)
        database = await target.connect()
        try:
            await database.upgrade()
        finally:
            await database.close()
        upgraded = Upgraded(target, expected, before)
        added = set(_renamings(upgraded, await _snapshot(target)))
        for row in (await _snapshot(target))["events"]:
            if int(row[0]) in added:
                upgraded.renamings.setdefault(int(row[2]), []).append(int(row[0]))
        yield upgraded


async def _version(db: Database) -> str | None:
    async with db.engine.connect() as conn:
        return await conn.run_sync(lambda c: MigrationContext.configure(c).get_current_revision())


# --- the tests ---------------------------------------------------------------------------------


async def test_not_a_single_event_is_lost_and_each_is_marked(upgraded_old: Upgraded) -> None:
    target, expected = upgraded_old.target, upgraded_old.expected
    after = await _snapshot(target)
    # Every event, every field but the repaired sheets, exactly as it was; after them, only
    # the renaming of the one character whose name now clashes (test_a_renaming_…).
    old = upgraded_old.before["events"]
    added = set(_renamings(upgraded_old, after))
    assert [r for r in after["events"] if int(r[0]) not in added] == old
    assert len(old) == len(expected.events) == 28
    assert added == {i for ids in upgraded_old.renamings.values() for i in ids}
    assert min(added) > max(int(r[0]) for r in old)  # logged after every old event
    db = await target.connect()
    try:
        assert await _version(db) == "0007"  # head: 0003 to 0007 change no row of these
        async with db.engine.connect() as conn:
            rows = await _rows(
                conn,
                target.postgres,
                "events",
                ("id", "is_change", "undoable", "command", "sheet_before", "sheet_after"),
                "id",
            )
    finally:
        await db.close()
    for event_id, is_change, undoable, command, before, after_text in rows:
        if int(event_id) not in expected.events:
            continue  # a renaming by the upgrade: test_a_renaming_…
        change, want_before, want_after = expected.events[int(event_id)]
        assert _true(is_change) is change, f"event {event_id}: is_change"
        if _true(undoable):  # U-3: only a change of an existing sheet, never an undo
            assert command != "undo" and None not in (_loads(before), _loads(after_text))
            assert change, f"event {event_id}: bookkeeping stays undoable"
        assert _loads(before) == want_before, f"event {event_id}: sheet_before"
        assert _loads(after_text) == want_after, f"event {event_id}: sheet_after"
        for sheet in (before, after_text):
            if sheet is not None and _loads(sheet) is not None:
                Sheet.model_validate(_loads(sheet))  # every sheet of the log loads


async def test_each_character_gets_its_state_a_fresh_key_and_a_unique_name(
    upgraded_old: Upgraded,
) -> None:
    target, expected = upgraded_old.target, upgraded_old.expected
    db = await target.connect()
    try:
        async with db.engine.connect() as conn:
            rows = await _rows(
                conn,
                target.postgres,
                "characters",
                ("id", "guild_id", "name_key", "state", "sheet"),
                "id",
            )
    finally:
        await db.close()
    assert {int(row[0]) for row in rows} == set(expected.characters)
    for row_id, guild_id, key, state, text_ in rows:
        guild, name, want_state = expected.characters[int(row_id)]
        sheet = Sheet.model_validate(json.loads(text_))  # loads under the new ranges
        assert (int(guild_id), sheet.name, state) == (guild, name, want_state), row_id
        assert sheet.state.value == state  # the column agrees with the sheet
        assert key == name_key(sheet.name), f"{row_id}: the key is computed anew"
    keys = [(int(r[1]), r[2]) for r in rows]
    assert len(set(keys)) == len(keys)
    love = expected.ids["Love\u2764\ufe0f"]
    assert next(r[2] for r in rows if int(r[0]) == love) == "love\u2764"  # no selector in the key


async def test_every_command_that_reads_works_on_the_old_rows(upgraded_old: Upgraded) -> None:
    target, expected = upgraded_old.target, upgraded_old.expected
    db = await target.connect()
    try:
        for guild in (G1, G2):
            async with db.transaction(guild, read_only=True) as uow:
                rows = await uow.characters()
                names = {row.sheet.name for row in rows}
                assert names == {n for g, n, _ in expected.characters.values() if g == guild}
                _, count = await uow.living(50)
                assert count == len(
                    [
                        s
                        for g, _, s in expected.characters.values()
                        if g == guild and s not in ("Dead", "Retired")
                    ]
                )
                for row in rows:
                    log = await uow.history(row.id, 1000, bookkeeping=True)
                    assert {e.id for e in log} == _events_of(upgraded_old, row.id)
                found = {row.sheet.name for row in await uow.search_characters("ror", 7)}
                assert found == ({"Roryn", "Roryn (2)"} if guild == G1 else {"Roryn"})
            for row in rows:  # the driver-level path parses the stored text itself
                actor = await db.read_actor(guild, row.id, 7)
                assert actor.row is not None and actor.row.sheet == row.sheet
        async with db.transaction(G1, read_only=True) as uow:
            assert (await uow.settings()).emotion_threshold == 6 and await uow.day() == 3
            assert [i for i, _ in await uow.deleted()] == [expected.deleted]
            gone = await uow.history(expected.deleted, 10)
            assert [e.command for e in gone] == ["character delete", "damage", "character create"]
            ada = expected.ids["Ada"]
            log = await uow.history(ada, 100)  # changes only
            assert [e.command for e in log][:2] == ["react", "undo"]
            pushed, recovered = expected.roll_events
            by_id = {e.id: e for e in await uow.history(ada, 100, bookkeeping=True)}
            (check,) = by_id[pushed].rolls
            assert isinstance(check, NumericRoll)
            assert (check.value, check.bonuses, check.total) == (27, (("modifier", -1),), 26)
            (dice,) = by_id[recovered].rolls
            assert isinstance(dice, NarateerRoll) and dice.faces == ("C",)
            assert by_id[recovered].reverted
            assert await uow.character("roryn (2)") is not None
            assert (await uow.character("Roryn" + ZWSP)).id == expected.ids["Roryn"]
            assert (await uow.character("Ｒｏｒｙｎ")).id == expected.ids["Roryn"]
    finally:
        await db.close()
    # Every stored roll through codec.load_roll, and the old numeric shape in particular.
    async with engine_of(target) as conn:
        stored = await _rows(conn, target.postgres, "events", ("rolls",), "id")
    loaded = [load_roll(roll) for (text_,) in stored for roll in json.loads(text_)]
    assert [type(roll) for roll in loaded] == [NumericRoll, NarateerRoll]
    old = {
        "kind": "numeric",
        "label": "Check",
        "expression": "2d20",
        "dice": [8, 19],
        "kept": [True, True],
        "modifier": -1,
        "total": 26,
        "target": 15,
        "manual": False,
    }
    roll = load_roll(old)
    assert isinstance(roll, NumericRoll) and roll.modifier == -1 and roll.success is True


def _events_of(upgraded: Upgraded, character_id: int) -> set[int]:
    """The character's events before the upgrade, and its renaming by the upgrade if any."""
    rows = upgraded.before["events"]
    kept = {int(r[0]) for r in rows if r[2] is not None and int(r[2]) == character_id}
    return kept | set(upgraded.renamings.get(character_id, ()))


def _renamings(upgraded: Upgraded, after: dict[str, list[tuple[Any, ...]]]) -> list[int]:
    """The ids of the events the upgrade added (one per character it renamed)."""
    old = {r[0] for r in upgraded.before["events"]}
    return [int(r[0]) for r in after["events"] if r[0] not in old]


async def test_combat_members_and_active_characters_are_kept(upgraded_old: Upgraded) -> None:
    """No copy-and-move of the characters table: ON DELETE CASCADE would have emptied these."""
    target, expected = upgraded_old.target, upgraded_old.expected
    after = await _snapshot(target)
    for table in ("combat_members", "active_characters", "combats", "guilds"):
        assert after[table] == upgraded_old.before[table], table
        assert after[table], table
    db = await target.connect()
    try:
        async with db.transaction(G1, read_only=True) as uow:
            combat = await uow.combat(55)
            assert combat is not None and combat.round == 2
            members = {row.sheet.name for row in await uow.members(combat.id)}
            assert members == {"Ada", "Roryn (2)"}
            assert (await uow.active_character(8)).sheet.name == "Roryn (2)"
            assert (await uow.active_character(7)).id == expected.ids["Ada"]
    finally:
        await db.close()


async def test_commands_carry_on_after_the_upgrade(upgraded_old: Upgraded) -> None:
    target, expected = upgraded_old.target, upgraded_old.expected
    db = await target.connect()
    try:
        await db.upgrade()  # a restart: nothing to do
        assert (await hit(db, None, 1)).after.vit == -3  # Ada, the active one, on the hot path
        assert (await hit(db, "Roryn (2)", 1, who=caller(user_id=9))).after.vit == 7
        acted = await hit(db, "Stressed", 1)
        assert acted.after.retired  # E-7: Stress 10,000 ≥ VIT 9
        async with db.engine.connect() as conn:

            def differences(sync: Any) -> list[Any]:
                context = MigrationContext.configure(sync, opts={"compare_type": True})
                return compare_metadata(context, metadata)

            assert await conn.run_sync(differences) == []
    finally:
        await db.close()
    assert expected.ids["twin"]


async def test_undo_after_the_upgrade_reverts_the_latest_change_not_old_bookkeeping(
    upgraded_old: Upgraded,
) -> None:
    """U-3 on old rows: Ada's last events are a react (a change), then a turn that only reset
    the reaction count (bookkeeping, which the old code marked undoable)."""
    target, expected = upgraded_old.target, upgraded_old.expected
    db = await target.connect()
    try:
        async with db.transaction(G1) as uow:
            outcome, reverted = await uow.undo(expected.ids["Ada"], 7)
        assert reverted.command == "react"
        assert outcome.after.stamina == 6
    finally:
        await db.close()


async def test_a_renaming_by_the_upgrade_is_logged_as_a_change_undo_passes_over(
    upgraded_old: Upgraded,
) -> None:
    """The twin ("Roryn" + a zero-width space) became "Roryn (2)": one event says so, by user 0
    (the upgrade, nobody of the guild), so that its log still leads to its sheet; /undo
    passes over it (undoing it would give back a name Roryn has) to the change before."""
    target, expected = upgraded_old.target, upgraded_old.expected
    twin = expected.ids["twin"]
    assert list(upgraded_old.renamings) == [twin]
    (renaming,) = upgraded_old.renamings[twin]
    db = await target.connect()
    try:
        log = await log_of(db, twin)
        event = log[-1]
        assert event.id == renaming and event.command == "character edit"
        assert (event.user_id, event.is_change, event.reverted) == (0, True, False)
        assert event.before is not None and event.after is not None
        assert (event.before.name, event.after.name) == ("Roryn", "Roryn (2)")
        assert event.before.model_copy(update={"name": "Roryn (2)"}) == event.after
        assert event.inputs["name"] == "Roryn (2)" and event.inputs["reason"]
        async with db.transaction(G1, read_only=True) as uow:
            row = await uow.character_by_id(twin, lock=False)
            assert [e.id for e in await uow.history(twin, 1)] == [renaming]  # a change (U-2)
        assert row is not None and replay(log) == row.sheet
        async with db.engine.connect() as conn:
            (undoable,) = (
                await conn.execute(
                    text("SELECT undoable FROM events WHERE id = :id"), {"id": renaming}
                )
            ).one()
        assert not _true(undoable)
        async with db.transaction(G1) as uow:
            outcome, reverted = await uow.undo(twin, 9)
        assert reverted.command == "damage"
        assert (outcome.after.name, outcome.after.vit) == ("Roryn (2)", 10)
    finally:
        await db.close()


async def test_downgrade_to_0001_keeps_every_row(upgraded_old: Upgraded) -> None:
    from alembic import command

    from bot.db.migrate import alembic_config

    target = upgraded_old.target
    db = await target.connect()
    try:
        async with db.engine.begin() as conn:
            await conn.run_sync(lambda c: command.downgrade(alembic_config(connection=c), "0001"))
    finally:
        await db.close()
    after = await _snapshot(target)
    renamings = {i for ids in upgraded_old.renamings.values() for i in ids}
    kept = [row for row in after["events"] if int(row[0]) not in renamings]
    assert {**after, "events": kept} == upgraded_old.before
    assert len(after["events"]) == len(kept) + len(renamings)  # the renamings stay too


# --- names that clash only once their keys are computed anew ------------------------------------


@pytest.mark.parametrize(
    ("names", "renamed"),
    [
        # Whose key stays as it was keeps its name (what players typed still finds it), else
        # the one created first; a number is the first that nobody has, in any row order.
        pytest.param(["Mira" + ZWSP, "Mira"], ["Mira (2)", "Mira"], id="the-hidden-one-first"),
        pytest.param(
            ["Kai", "Kai" + ZWSP, "Kai (2)"], ["Kai", "Kai (3)", "Kai (2)"], id="the-number-taken"
        ),
        pytest.param(
            ["Love\u2764\ufe0f", "Love\u2764"],
            ["Love\u2764\ufe0f (2)", "Love\u2764"],
            id="a-selector-first",
        ),
    ],
)
async def test_names_that_now_clash_all_get_a_name_of_their_own(
    backend: str, tmp_path: Path, names: list[str], renamed: list[str]
) -> None:
    async with empty_database(backend, tmp_path) as target:
        engine = create_engine(target.url, connect_args=target.connect_args)
        try:
            await upgrade_engine(engine, "0001")
            async with engine.begin() as conn:
                old = OldBot(conn, target.postgres)
                for name in names:
                    row = await old.character(G1, old_sheet(name))
                    await old.event(
                        G1, row, "character create", {"name": name}, None, old_sheet(name)
                    )
            await upgrade_engine(engine)
        finally:
            await engine.dispose()
        db = await target.connect()
        try:
            async with db.transaction(G1, read_only=True) as uow:
                rows = sorted(await uow.characters(), key=lambda row: row.id)
            logs = [await log_of(db, row.id, G1) for row in rows]
        finally:
            await db.close()
        found = [row.sheet.name for row in rows]
        assert len(found) == len(names) == len({name_key(n) for n in found})
        assert {name_key(n) for n in names} <= {name_key(n) for n in found}  # one keeps each
        assert found == renamed
        for row, log in zip(rows, logs, strict=True):
            assert replay(log) == row.sheet  # the log still leads to the sheet (U-1)
            if row.sheet.name.endswith(")") and row.sheet.name not in names:
                assert [e.command for e in log] == ["character create", "character edit"]
                assert (log[-1].user_id, log[-1].inputs["name"]) == (0, row.sheet.name)
            else:
                assert [e.command for e in log] == ["character create"]
