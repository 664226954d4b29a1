"""Database.act / read_actor (bot/db/hotpath.py): the driver-level path of a command on one
character writes exactly what the unit of work writes (every column, as stored), refuses what
it refuses, and reads alike."""

from __future__ import annotations

import asyncio
import itertools
import random
import sqlite3
import threading
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Table, text

from bot.db.database import Database
from bot.db.records import Actor
from bot.db.tables import characters, events
from bot.services import play
from bot.services.base import run_character_action
from bot.services.context import ActionContext, Permission
from bot.services.sheet import create_character, edit_character, show_character
from rules.dice import ScriptedRandom
from rules.errors import RuleError
from rules.models import GuildSettings
from rules.outcome import Outcome
from rules.rolls import NarateerRoll, NumericRoll
from rules.vitality import damage
from tests.persistence.conftest import empty_database, upgraded
from tests.persistence.helpers import (
    GUILD,
    OWNER,
    Target,
    caller,
    check_one_of_three_undone,
    count_begins,
    create,
    hit,
    log_of,
    sheet_of,
)

# Microseconds included: the stored text of a timestamp is compared too.
FIXED = datetime(2026, 11, 30, 12, 34, 56, 789012, tzinfo=UTC)


# Non-ASCII text kept as it is, a variation selector left out of the name key (section 1).
RENAMED = "Adélheid \u2764\ufe0f"


def fixed_clock() -> datetime:
    return FIXED


# --- the same rows, whichever path writes them --------------------------------------------------


def _as_stored(table: Table, postgres: bool) -> str:
    """Every column but the id, as the database holds it: PostgreSQL's text of the value,
    SQLite's quote() (its value and type: 1 and '1' differ)."""
    names = [c.name for c in table.columns if c.name != "id"]
    shown = [f"CAST({n} AS TEXT)" if postgres else f"quote({n})" for n in names]
    return f"SELECT {', '.join(shown)} FROM {table.name} ORDER BY id"


async def _stored(db: Database, table: Table) -> list[dict[str, Any]]:
    names = [c.name for c in table.columns if c.name != "id"]
    async with db.engine.connect() as conn:
        rows = (await conn.execute(text(_as_stored(table, db.postgres)))).all()
    return [dict(zip(names, row, strict=True)) for row in rows]


async def _script(db: Database) -> list[str]:
    """One sequence of commands, each through Database.act but the creations and the undo
    (the unit of work in both): what each command did, for the two runs to agree on."""
    gm = caller(gm=True)
    said: list[str] = []

    async def run(what: str, command: Callable[[], Awaitable[Any]]) -> None:
        try:
            result = await command()
        except RuleError as refused:
            said.append(f"{what}: refused: {refused}")
        else:
            outcome = getattr(result, "outcome", None)
            said.append(f"{what}: {outcome.headline if outcome else result}")

    ada = await create_character(db, caller(), "Ada", res=3)
    bea = await create_character(db, caller(user_id=8), "Bea")
    await run(
        "heal at full VIT",
        lambda: play.heal(db, caller(), random.Random(1), amount=1, character="ada"),
    )
    await run(
        "damage", lambda: play.damage(db, caller(), random.Random(1), amount=4, character="ADA")
    )
    await run(
        "push",
        lambda: play.push(
            db,
            caller(),
            random.Random(4),
            amount=2,
            character=ada.id,
            roll="2d20+1",
            target=15,
            what="the wall «ouch»",
        ),
    )
    await run("rename", lambda: edit_character(db, caller(), random.Random(1), "Ada", name=RENAMED))
    await run(
        "rename onto a taken name",
        lambda: edit_character(db, caller(), random.Random(1), RENAMED, name="BEA"),
    )
    await run(
        "spend too much",
        lambda: play.spend(db, caller(), random.Random(1), amount=9, reason="x", character=None),
    )
    await run(
        "damage the active one",
        lambda: play.damage(db, caller(), random.Random(1), amount=8, character=None),
    )
    await run(
        "recover",
        lambda: play.recover(db, gm, ScriptedRandom.faces("C"), character=ada.id, faces=None),
    )
    await run(
        "react",
        lambda: play.react(
            db, caller(user_id=8), random.Random(1), character="bea", what="a parry"
        ),
    )
    await run("turn", lambda: play.turn(db, caller(user_id=8), random.Random(1), character=bea.id))
    async with db.transaction(GUILD) as uow:
        outcome, _ = await uow.undo(ada.id, 7)
        said.append(f"undo: {outcome.headline}")
    return said


@pytest.mark.parametrize(
    "backend", ["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)]
)
async def test_both_paths_write_identical_rows_in_every_column(
    backend: str, tmp_path: Path
) -> None:
    """Issue 8 item 1: one write path per table. The same commands with a fixed clock, once
    through the driver-level path and once through the unit of work: every column of every
    row of characters and events, as stored, is the same (ids aside)."""
    results = {}
    for hot_path in (True, False):
        async with (
            empty_database(backend, tmp_path) as target,
            upgraded(target, clock=fixed_clock, hot_path=hot_path) as db,
        ):
            assert (db._hot is not None) is hot_path  # the path under test really runs
            said = await _script(db)
            results[hot_path] = (
                said,
                await _stored(db, characters),
                await _stored(db, events),
            )
    (said, chars, logged), (said_uow, chars_uow, logged_uow) = results[True], results[False]
    assert said == said_uow
    assert [line.split(":")[0] for line in said if ": refused:" in line] == [
        "rename onto a taken name",
        "spend too much",
    ]
    assert "nothing was spent" in said[5], said[5]  # refused after the load, by the rule
    assert len(chars) == 2 and len(logged) == 2 + 8 + 1  # creations, commands, the undo
    for kind, fast, slow in (("characters", chars, chars_uow), ("events", logged, logged_uow)):
        for n, (a, b) in enumerate(zip(fast, slow, strict=True)):
            differ = {k: (a[k], b[k]) for k in a if a[k] != b[k]}
            assert not differ, f"{kind} row {n + 1}: fast path vs unit of work: {differ}"
    # What the rows hold: the outcomes of the script.
    assert [row["state"].strip("'") for row in chars] == ["Critical", "Up"]
    flags = [(row["is_change"], row["undoable"]) for row in logged]
    no, yes = ("0", "1") if backend == "sqlite" else ("false", "true")
    assert flags[2] == (no, no)  # the heal that changed nothing: bookkeeping, not undoable
    assert flags[5] == (yes, yes)  # the rename: a change (U-2)
    assert flags[9] == (no, no)  # the turn: bookkeeping only


async def test_the_fast_paths_rows_read_back_whole(target: Target) -> None:
    """The rows the fast path wrote, read through the unit of work: sheets, dice with their
    bonuses, rules, the change marker, the rename, the clock's time."""
    async with upgraded(target, clock=fixed_clock) as db:
        await _script(db)
        async with db.transaction(GUILD, read_only=True) as uow:
            ada = await uow.character("ADÉLHEID \u2764")  # the key: no case, no selector
            assert ada is not None and ada.sheet.name == RENAMED
            assert await uow.character("Ada") is None
            log = list(reversed(await uow.history(ada.id, 100, bookkeeping=True)))
    commands = [event.command for event in log]
    assert commands == [
        "character create",
        "heal",
        "damage",
        "push",
        "character edit",
        "damage",
        "recover",
        "undo",
    ]
    push = log[3]
    (check,) = push.rolls
    assert isinstance(check, NumericRoll) and check.bonuses[0] == ("push", 2)
    assert check.total == check.value + sum(amount for _, amount in check.bonuses)
    assert isinstance(log[6].rolls[0], NarateerRoll) and log[6].rolls[0].faces == ("C",)
    assert [event.is_change for event in log] == [True, False, True, True, True, True, True, True]
    assert log[4].before.name == "Ada" and log[4].after.name == RENAMED
    assert {event.created_at for event in log} == {FIXED}
    assert log[7].inputs == {"event_id": log[6].id, "command": "recover"}


@pytest.mark.parametrize("hot_path", [True, False])
async def test_a_change_of_owner_alone_reaches_its_column(target: Target, hot_path: bool) -> None:
    """A save SETs the indexed name key and owner only when they change (bot/db/writes.py:
    SQLite rewrites an index for every column SET): a new owner with the same name must still
    reach its column, on both paths."""
    async with upgraded(target, hot_path=hot_path) as db:
        row = await create(db, "Ada")

        def transfer(actor: Actor) -> Outcome:
            assert actor.row is not None
            sheet = actor.row.sheet
            return Outcome(action="edit", before=sheet, after=sheet.update(owner_id=4242))

        await db.act(GUILD, row.id, OWNER, transfer, command="character edit", inputs={})
        async with db.engine.connect() as conn:
            stored = (
                await conn.execute(
                    text("SELECT owner_id, name_key FROM characters WHERE id = :id"), {"id": row.id}
                )
            ).one()
        async with db.transaction(GUILD, read_only=True) as uow:
            found = await uow.character_by_id(row.id, lock=False)
    assert tuple(stored) == (4242, "ada")
    assert found is not None and found.sheet.owner_id == 4242


# --- the hot path's own behaviour ---------------------------------------------------------------


async def test_undo_reverts_a_hot_path_change(db: Database) -> None:
    row = await create(db, "Ada")
    await hit(db, "Ada", 3)
    async with db.transaction(GUILD) as uow:
        undone, reverted = await uow.undo(row.id, 7)
    assert undone.after == row.sheet and await sheet_of(db, row.id) == row.sheet
    log = await log_of(db, row.id)
    assert [e.command for e in log] == ["character create", "damage", "undo"]
    assert log[1].reverted_by == log[2].id and reverted.id == log[1].id


async def test_a_rename_onto_a_taken_name_is_refused_and_changes_nothing(db: Database) -> None:
    await create(db, "Alba")
    bea = await create(db, "Bea")
    rng = random.Random(1)
    with pytest.raises(RuleError, match="already has a character named ALBA"):
        await edit_character(db, caller(), rng, "Bea", name="ALBA")
    with pytest.raises(RuleError, match="already has a character named"):
        await edit_character(db, caller(), rng, "Bea", name="\uff21\uff2c\uff22\uff21")  # ＡＬＢＡ
    assert await sheet_of(db, bea.id) == bea.sheet
    assert len(await log_of(db, bea.id)) == 1
    renamed = await edit_character(db, caller(), rng, "bea", name="Beatrix")
    assert renamed.outcome.after.name == "Beatrix" and renamed.outcome.is_change
    assert (await show_character(db, caller(), "BEATRIX")).id == bea.id
    with pytest.raises(RuleError, match="No character named Bea"):
        await show_character(db, caller(), "Bea")


async def test_read_actor_finds_the_active_character_its_combat_and_the_settings(
    target: Target,
) -> None:
    async with upgraded(target) as db, upgraded(target, hot_path=False) as plain:
        row = await create(db, "Cy")
        async with db.transaction(GUILD) as uow:
            await uow.save_settings(GuildSettings(emotion_threshold=6))
            await uow.set_active(7, row.id)
            combat = await uow.start_combat(55, round_number=2)
            await uow.add_member(combat.id, row.id)
        for each in (db, plain):
            for who in (None, "CY", row.id):
                actor = await each.read_actor(GUILD, who, 7)
                assert actor.row is not None and actor.row.id == row.id
                assert actor.row.sheet == row.sheet
                assert actor.settings.emotion_threshold == 6
                assert actor.combat == combat
            nobody = await each.read_actor(GUILD, None, 8)
            assert nobody.row is None and nobody.settings.emotion_threshold == 6
            assert (await each.read_actor(GUILD + 1, "Cy", 7)).row is None  # P-2


async def test_a_sqlite_look_reads_on_the_loops_writing_connection(tmp_path: Path) -> None:
    """A look between the writes reads on the event loop's one connection, whose page cache the
    writes leave whole (a connection of its own would drop it after every write), and sees the
    last command's sheet."""
    from bot.db import hotpath

    async with empty_database("sqlite", tmp_path) as target, upgraded(target) as db:
        await create(db, "Cy")
        hot = db._hot
        assert isinstance(hot, hotpath.SQLiteHotPath)
        await play.damage(db, caller(), random.Random(1), amount=3, character="Cy")
        load = hot._load
        used: list[sqlite3.Connection] = []

        def recorded(conn: sqlite3.Connection, *args: Any) -> Any:
            used.append(conn)
            return load(conn, *args)

        hot._load = recorded  # type: ignore[method-assign]
        actor = await db.read_actor(GUILD, "Cy", OWNER)
        assert used == [hot._loop_conn] and used[0] is not None
        assert actor.row is not None and actor.row.sheet.vit == 7
        assert not used[0].in_transaction


async def test_a_sqlite_read_that_would_wait_goes_to_the_reader_thread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A look is read on the event loop's own connection; one that would wait for a lock (its
    busy timeout 0: SQLITE_BUSY at once) is read on the reader thread instead, whole. Any
    other error is the read's own."""
    from bot.db import hotpath

    async with empty_database("sqlite", tmp_path) as target, upgraded(target) as db:
        row = await create(db, "Cy")
        hot = db._hot
        assert isinstance(hot, hotpath.SQLiteHotPath)
        load = hot._load
        on_loop: list[bool] = []

        def busy_on_the_loop(conn: sqlite3.Connection, *args: Any) -> Any:
            on_loop.append(threading.current_thread() is threading.main_thread())
            if on_loop[-1]:
                raise sqlite3.OperationalError("database is locked")
            return load(conn, *args)

        monkeypatch.setattr(hot, "_load", busy_on_the_loop)
        actor = await db.read_actor(GUILD, "Cy", 7)
        assert actor.row is not None and actor.row.sheet == row.sheet
        assert on_loop == [True, False]  # tried on the loop, made on the thread

        def broken(conn: sqlite3.Connection, *args: Any) -> Any:
            raise sqlite3.OperationalError("no such table: characters")

        monkeypatch.setattr(hot, "_load", broken)
        with pytest.raises(sqlite3.OperationalError, match="no such table"):
            await db.read_actor(GUILD, "Cy", 7)


async def test_the_state_column_follows_the_sheet_on_both_paths(target: Target) -> None:
    async with upgraded(target) as db, upgraded(target, hot_path=False) as plain:
        rows = [await create(db, name, res=2) for name in ("Up", "Down")]
        for each, row in zip((db, plain), rows, strict=True):
            await hit(each, row.sheet.name, 11)  # VIT -1, RES 2: Critical
        async with db.engine.connect() as conn:
            states = (await conn.execute(text("SELECT state FROM characters ORDER BY id"))).all()
        assert states == [("Critical",), ("Critical",)]
        async with db.transaction(GUILD, read_only=True) as uow:
            living, count = await uow.living(10)
        assert count == 2 and [row.sheet.name for row in living] == ["Down", "Up"]


@pytest.mark.parametrize("backend", [pytest.param("postgresql", marks=pytest.mark.postgres)])
async def test_a_lost_race_on_postgresql_runs_again_under_the_row_lock(target: Target) -> None:
    """The optimistic path: another command saves the character between the load and the
    save; the save at the old version writes nothing, and the command runs again, locked,
    from the new sheet. Nothing is lost, nothing applied twice, the log chains."""
    # (SQLite has no such race: its writer holds the write lock from the load on.)
    async with upgraded(target) as db:
        row = await create(db, "Raced", max_vit=50, vit=50)
        seen: list[int] = []

        def other_command() -> None:  # a command of another connection, committed meanwhile
            async def write() -> None:
                async with upgraded(target, hot_path=False) as other:
                    await hit(other, "Raced", 10)

            asyncio.run(write())

        def decide(actor: Actor) -> Outcome:
            assert actor.row is not None
            seen.append(actor.row.sheet.vit)
            if len(seen) == 1:
                thread = threading.Thread(target=other_command)
                thread.start()
                thread.join()
            return damage(actor.row.sheet, 1, actor.settings)

        outcome = await db.act(GUILD, "raced", 7, decide, command="damage", inputs={"amount": 1})
        assert seen == [50, 40]  # decided again, from the sheet the other command saved
        assert outcome.before.vit == 40 and outcome.after.vit == 39
        log = await log_of(db, row.id)
        assert [e.after.vit for e in log if e.after] == [50, 40, 39]
        assert all(b.after == a.before for b, a in itertools.pairwise(log))


async def test_the_sqlite_writer_holds_the_write_lock_only_inside_a_command(
    sqlite_db: Database,
) -> None:
    row = await create(sqlite_db, "Lock")
    await hit(sqlite_db, "Lock", 1)
    other = sqlite3.connect(sqlite_db.engine.url.database, timeout=0, isolation_level=None)
    try:
        other.execute("BEGIN IMMEDIATE")  # free between commands
        other.execute("ROLLBACK")
    finally:
        other.close()
    sheet = await sheet_of(sqlite_db, row.id)
    assert sheet is not None and sheet.vit == 9


async def test_a_database_that_cannot_be_opened_fails_each_command_and_closes(
    tmp_path: Path,
) -> None:
    db = await Database.connect(f"sqlite+aiosqlite:///{tmp_path / 'missing' / 'x.db'}")
    try:
        for _ in range(2):  # the writer thread stays up and tries again
            with pytest.raises(sqlite3.OperationalError, match="unable to open"):
                await hit(db, "Nobody", 1)
        with pytest.raises(sqlite3.OperationalError, match="unable to open"):
            await show_character(db, caller(), "Nobody")
    finally:
        await db.close()


async def test_whatever_decide_raises_propagates_and_nothing_is_written(db: Database) -> None:
    row = await create(db, "Dax")

    def broken(ctx: ActionContext) -> Outcome:
        raise KeyError("a bug in a rule")

    with pytest.raises(KeyError, match="a bug in a rule"):
        await run_character_action(
            db,
            caller(),
            command="x",
            inputs={},
            target="Dax",
            permission=Permission.ANYONE,
            apply=broken,
            rng=random.Random(1),
        )
    assert await sheet_of(db, row.id) == row.sheet and len(await log_of(db, row.id)) == 1
    assert (await hit(db, "Dax", 1)).after.vit == 9  # and the path is free again


# --- SQLite's group commit: commands queued together share one transaction ------------------


def _damage(actor: Actor) -> Outcome:
    assert actor.row is not None
    return damage(actor.row.sheet, 1, actor.settings)


def _refuse(actor: Actor) -> Outcome:
    raise RuleError("not now")


async def _queued_behind_a_held_writer(
    db: Database, acts: list[tuple[str, str, Callable[[Actor], Outcome]]]
) -> list[Outcome | BaseException]:
    """Each (name, command, decide) through Database.act, all queued on the writer thread
    while it is held, then let go at once: they reach it together."""
    from bot.db import hotpath

    await create(db, "Warm")
    await hit(db, "Warm", 1)  # the writer thread is up
    hot = db._hot
    assert isinstance(hot, hotpath.SQLiteHotPath) and hot._writer is not None
    writer = hot._writer
    held, gate = threading.Event(), threading.Event()

    def hold(_conn: sqlite3.Connection) -> None:
        held.set()
        gate.wait(10)

    writer.post(hold)
    assert await asyncio.to_thread(held.wait, 10)  # the thread is in it: the acts queue
    tasks = [
        asyncio.ensure_future(
            db.act(GUILD, name, OWNER, decide, command=command, inputs={"amount": 1})
        )
        for name, command, decide in acts
    ]
    for _ in range(500):
        if writer._jobs.qsize() >= len(acts):
            break
        await asyncio.sleep(0.01)
    assert writer._jobs.qsize() == len(acts)
    gate.set()
    return await asyncio.gather(*tasks, return_exceptions=True)


async def test_commands_queued_together_commit_in_one_transaction_a_refusal_apart(
    sqlite_db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    rows = [await create(sqlite_db, name) for name in ("Ana", "Bo", "Cid")]
    begins = count_begins(monkeypatch)
    done = await _queued_behind_a_held_writer(
        sqlite_db,
        [("Ana", "damage", _damage), ("Bo", "damage", _refuse), ("Cid", "damage", _damage)],
    )
    assert begins == [False, True]  # the warm-up on the loop, then the three on the thread
    assert isinstance(done[0], Outcome) and isinstance(done[2], Outcome)
    assert isinstance(done[1], RuleError)
    vits = [(await sheet_of(sqlite_db, row.id)).vit for row in rows]  # type: ignore[union-attr]
    assert vits == [9, 10, 9]
    assert [len(await log_of(sqlite_db, row.id)) for row in rows] == [2, 1, 2]


async def test_a_command_failing_after_its_save_undoes_the_group_and_each_runs_alone(
    sqlite_db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The event of "boom" cannot be logged (a trigger refuses it) after its sheet was saved:
    its save must not commit, so the group's transaction is rolled back and each command runs
    again in a transaction of its own. The others commit once each; "boom" changes nothing."""
    rows = [await create(sqlite_db, name) for name in ("Ana", "Bo", "Cid")]
    raw = sqlite3.connect(sqlite_db.engine.url.database, isolation_level=None)
    try:
        raw.execute(
            "CREATE TRIGGER boom BEFORE INSERT ON events WHEN NEW.command = 'boom' "
            "BEGIN SELECT RAISE(ABORT, 'no event for boom'); END"
        )
    finally:
        raw.close()
    begins = count_begins(monkeypatch)
    done = await _queued_behind_a_held_writer(
        sqlite_db, [("Ana", "damage", _damage), ("Bo", "boom", _damage), ("Cid", "damage", _damage)]
    )
    # The warm-up on the loop; on the thread the group undone, then each alone.
    assert begins == [False] + [True] * (1 + 3)
    await check_one_of_three_undone(sqlite_db, rows, done, sqlite3.IntegrityError)
