"""Shared by the persistence tests and their worker processes: create, damage, check the log."""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass, field
from typing import Any

from alembic import command as alembic_command
from sqlalchemy import text

from bot.db.codec import Clock
from bot.db.database import Database
from bot.db.migrate import alembic_config
from bot.db.records import CharacterRow, Event
from bot.db.tables import metadata
from bot.services.base import run_character_action
from bot.services.context import ActionContext, Caller, Permission
from bot.services.context import Target as Who
from rules import history
from rules.models import GuildSettings, Sheet
from rules.outcome import Outcome
from rules.vitality import damage, heal

GUILD = 1001
OWNER = 7


@dataclass(frozen=True)
class Target:
    """How to reach a test's database, also from another process."""

    url: str
    connect_args: dict[str, Any] = field(default_factory=dict)

    @property
    def postgres(self) -> bool:
        return self.url.startswith("postgresql")

    async def connect(self, *, clock: Clock | None = None, hot_path: bool = True) -> Database:
        if clock is None:
            return await Database.connect(
                self.url, connect_args=self.connect_args, hot_path=hot_path
            )
        return await Database.connect(
            self.url, connect_args=self.connect_args, clock=clock, hot_path=hot_path
        )


def caller(guild_id: int = GUILD, user_id: int = OWNER, *, gm: bool = False) -> Caller:
    return Caller(guild_id=guild_id, channel_id=55, user_id=user_id, manage_guild=gm)


async def create(
    db: Database, name: str, *, guild_id: int = GUILD, owner_id: int = OWNER, **fields: object
) -> CharacterRow:
    """As /character create does: add the sheet and log its creation."""
    sheet = Sheet(name=name, owner_id=owner_id, **fields)
    async with db.transaction(guild_id) as uow:
        row = await uow.add_character(sheet)
        await uow.log(row.id, owner_id, "character create", {"name": name}, after=sheet)
    return row


async def hit(db: Database, name: Who, amount: int, *, who: Caller | None = None) -> Outcome:
    """/damage through the shared runner (Database.act)."""

    def apply(ctx: ActionContext) -> Outcome:
        return damage(ctx.sheet, amount, ctx.settings)

    acted = await run_character_action(
        db,
        who or caller(),
        command="damage",
        inputs={"amount": amount},
        target=name,
        permission=Permission.OWNER_OR_GM,
        apply=apply,
        rng=random.Random(0),
    )
    return acted.outcome


async def log_of(db: Database, character_id: int, guild_id: int = GUILD) -> list[Event]:
    """The character's whole event log, bookkeeping included, oldest first."""
    async with db.transaction(guild_id, read_only=True) as uow:
        return list(reversed(await uow.history(character_id, 1_000_000, bookkeeping=True)))


async def sheet_of(db: Database, character_id: int, guild_id: int = GUILD) -> Sheet | None:
    async with db.transaction(guild_id, read_only=True) as uow:
        row = await uow.character_by_id(character_id, lock=False)
    return None if row is None else row.sheet


def replay(events: list[Event], settings: GuildSettings | None = None) -> Sheet | None:
    """Rebuild a sheet from its log, re-applying every rule from its inputs, and check that
    each event starts where the one before it ended (the events chain: no gap, nothing lost,
    nothing applied twice)."""
    settings = settings or GuildSettings()
    by_id = {event.id: event for event in events}
    sheet: Sheet | None = None
    for event in events:
        if event.before is None and event.after is None:
            continue  # no sheet (a selection)
        assert event.before == sheet, f"event {event.id} does not start where the last ended"
        if event.command in ("character create", "character import"):
            expected = event.after
        elif event.command == "damage":
            expected = damage(sheet, event.inputs["amount"], settings).after
        elif event.command == "heal":
            expected = heal(sheet, event.inputs["amount"], settings).after
        elif event.command == "undo":  # U-3: the fields the change changed, and only those
            undone = by_id[event.inputs["event_id"]]
            assert sheet is not None and undone.before is not None and undone.after is not None
            expected = history.revert(
                sheet, undone.before, undone.after, undone.command, rolled=bool(undone.rolls)
            ).after
        else:
            expected = event.after
        assert event.after == expected, f"event {event.id} ({event.command}) does not replay"
        sheet = event.after
    return sheet


def count_begins(monkeypatch: Any) -> list[bool]:
    """Each BEGIN of SQLite's hot path from now on (bot/db/hotpath.py's `_begin`): whether it
    could wait (the writer thread) or not (the event loop)."""
    from bot.db import hotpath

    begins: list[bool] = []
    original = hotpath._begin

    def counted(conn: Any, until: float, *, wait: bool = True) -> None:
        begins.append(wait)
        original(conn, until, wait=wait)

    monkeypatch.setattr(hotpath, "_begin", counted)
    return begins


async def check_one_of_three_undone(
    db: Database, rows: list[CharacterRow], done: list[Any], refused: type[BaseException]
) -> None:
    """Three damages of 1 where the second's event was refused: the first and third applied
    once each, the second not at all, and each log chains."""
    assert isinstance(done[0], Outcome) and isinstance(done[2], Outcome)
    assert isinstance(done[1], refused) and "no event for boom" in str(done[1])
    vits = [(await sheet_of(db, row.id)).vit for row in rows]  # type: ignore[union-attr]
    assert vits == [9, 10, 9]
    logs = [await log_of(db, row.id) for row in rows]
    assert [len(log) for log in logs] == [2, 1, 2]
    assert all(b.after == a.before for log in logs for b, a in itertools.pairwise(log))


async def refuse_events_on_postgres(db: Database, command: str | None = None) -> None:
    """A trigger that refuses to log the events of `command` (of every command with None): a
    save that the server refuses after the sheet was written."""
    only = "" if command is None else f"WHEN (NEW.command = '{command}') "
    async with db.engine.begin() as conn:
        await conn.execute(
            text(
                "CREATE FUNCTION no_event() RETURNS trigger LANGUAGE plpgsql AS $$ "
                f"BEGIN RAISE EXCEPTION 'no event for {command or 'any command'}'; END $$"
            )
        )
        await conn.execute(
            text(
                f"CREATE TRIGGER no_event BEFORE INSERT ON events FOR EACH ROW {only}"
                "EXECUTE FUNCTION no_event()"
            )
        )


async def migrate(db: Database, how: str, revision: str) -> None:
    """Alembic's `upgrade` or `downgrade` to `revision`, in one transaction."""
    async with db.engine.begin() as conn:
        await conn.run_sync(
            lambda c: getattr(alembic_command, how)(alembic_config(connection=c), revision)
        )


async def every_row(db: Database, *, leaving_out: tuple[str, ...] = ()) -> dict[str, list[Any]]:
    """Every row of every table of the models but those left out, in key order."""
    found = {}
    async with db.engine.connect() as conn:
        for table in metadata.sorted_tables:
            if table.name in leaving_out:
                continue
            key = ", ".join(c.name for c in table.primary_key.columns)
            result = await conn.execute(text(f"SELECT * FROM {table.name} ORDER BY {key}"))
            found[table.name] = [tuple(row) for row in result.all()]
    return found
