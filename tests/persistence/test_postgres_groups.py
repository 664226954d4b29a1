"""PostgreSQL's hot path in groups (bot/db/postgres_path.py): the commands and looks that ask
together share a batch of loads and a batch of saves, and a group changes nothing that the same
commands alone would not — a refused batch is undone and each runs alone, a second command on a
character runs after the first, a command that waited past its budget or whose asker left is
never run."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import itertools
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import asyncpg
import pytest
from sqlalchemy import text

from bot.db import postgres_path
from bot.db.busy import Busy
from bot.db.database import Database
from bot.db.engine import create_engine
from bot.db.records import Actor
from rules.errors import RuleError
from rules.outcome import Outcome
from rules.vitality import damage
from tests.persistence.conftest import empty_database, upgraded
from tests.persistence.helpers import (
    GUILD,
    OWNER,
    Target,
    check_one_of_three_undone,
    create,
    log_of,
    refuse_events_on_postgres,
    sheet_of,
)

pytestmark = pytest.mark.postgres


@pytest.fixture
async def pg(tmp_path: Path) -> AsyncIterator[tuple[Target, Database]]:
    async with empty_database("postgresql", tmp_path) as target, upgraded(target) as db:
        yield target, db


def _damage(amount: int, decided: list[str] | None = None) -> Callable[[Actor], Outcome]:
    def decide(actor: Actor) -> Outcome:
        if actor.row is None:  # as every command's rule says it
            raise RuleError("No character by that name.")
        if decided is not None:
            decided.append(actor.row.sheet.name)
        return damage(actor.row.sheet, amount, actor.settings)

    return decide


def _refuse(actor: Actor) -> Outcome:
    raise RuleError("not now")


async def _act(
    db: Database, name: str, decide: Callable[[Actor], Outcome], command: str = "damage"
) -> Outcome:
    return await db.act(GUILD, name, OWNER, decide, command=command, inputs={})


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The hot path's calls on its asyncpg connections, by name (a round trip each)."""
    made: list[str] = []
    for name in ("fetchmany", "fetchrow", "fetchval", "execute"):
        method = getattr(asyncpg.connection.Connection, name)

        def counted(self: Any, *args: Any, _name: str = name, _m: Any = method, **kw: Any) -> Any:
            made.append(_name)
            return _m(self, *args, **kw)

        monkeypatch.setattr(asyncpg.connection.Connection, name, counted)
    return made


async def test_commands_and_looks_asked_together_share_a_batch_of_loads_and_one_of_saves(
    pg: tuple[Target, Database], calls: list[str]
) -> None:
    _, db = pg
    rows = [await create(db, name) for name in ("Ana", "Bo", "Cid", "Dee")]
    await db.read_actor(GUILD, "Ana", OWNER)  # the connection made, and warmed
    calls.clear()
    done = await asyncio.gather(
        _act(db, "Ana", _damage(1)),
        _act(db, "Bo", _refuse),
        db.read_actor(GUILD, "cid", OWNER),
        _act(db, "Dee", _damage(2)),
        return_exceptions=True,
    )
    assert calls == ["fetchmany", "fetchmany"]  # the four loads, then the two saves
    assert isinstance(done[0], Outcome) and isinstance(done[3], Outcome)
    assert isinstance(done[1], RuleError) and str(done[1]) == "not now"
    assert isinstance(done[2], Actor) and done[2].row is not None
    assert done[2].row.sheet.name == "Cid"
    vits = [(await sheet_of(db, row.id)).vit for row in rows]  # type: ignore[union-attr]
    assert vits == [9, 10, 10, 8]
    assert [len(await log_of(db, row.id)) for row in rows] == [2, 1, 1, 2]


async def test_a_look_sends_its_load_the_second_pass_of_the_event_loop_after_its_task_began(
    pg: tuple[Target, Database], calls: list[str]
) -> None:
    """The first ask of a turn starts its runner itself, whose first step claims that turn's
    asks and sends their loads: nothing waits for a start scheduled for the turn's end, which
    would make the runner only then (a pass of the loop's queue more, each command)."""
    _, db = pg
    await create(db, "Ana")
    await db.read_actor(GUILD, "Ana", OWNER)  # the connection made, and warmed
    calls.clear()
    look = asyncio.ensure_future(db.read_actor(GUILD, "ana", OWNER))
    passes = 0
    while not calls and passes < 10:
        await asyncio.sleep(0)  # one pass of the loop's queue
        passes += 1
    assert (passes, calls) == (2, ["fetchrow"])  # the look's step asks, the runner's loads
    found = await look
    assert found.row is not None and found.row.sheet.name == "Ana"


async def test_a_missing_character_in_a_group_is_refused_and_the_others_go_through(
    pg: tuple[Target, Database],
) -> None:
    _, db = pg
    ana = await create(db, "Ana")
    done = await asyncio.gather(
        _act(db, "Nobody", _damage(1)),
        db.read_actor(GUILD, "nobody", OWNER),
        _act(db, "Ana", _damage(1)),
        return_exceptions=True,
    )
    assert isinstance(done[0], RuleError) and "No character" in str(done[0])
    assert isinstance(done[1], Actor) and done[1].row is None
    assert isinstance(done[2], Outcome) and done[2].after.vit == 9
    assert (await sheet_of(db, ana.id)).vit == 9  # type: ignore[union-attr]


async def test_a_batch_the_server_refuses_is_undone_and_each_command_runs_alone(
    pg: tuple[Target, Database],
) -> None:
    """The event of "boom" is refused by a trigger: the batch of saves is one transaction, so
    nothing of it stands, and each command runs again alone — the others once each."""
    _, db = pg
    rows = [await create(db, name) for name in ("Ana", "Bo", "Cid")]
    await refuse_events_on_postgres(db, "boom")
    done = await asyncio.gather(
        _act(db, "Ana", _damage(1)),
        _act(db, "Bo", _damage(1), command="boom"),
        _act(db, "Cid", _damage(1)),
        return_exceptions=True,
    )
    await check_one_of_three_undone(db, rows, done, asyncpg.RaiseError)


async def test_a_second_command_on_a_character_of_its_group_runs_after_the_first(
    pg: tuple[Target, Database],
) -> None:
    """Not decided from the sheet the first is changing (its dice would be rolled for
    nothing): it runs after, under the row lock, from the sheet the first saved."""
    _, db = pg
    ana = await create(db, "Ana")
    decided: list[str] = []
    first, second = await asyncio.gather(
        _act(db, "Ana", _damage(1, decided)), _act(db, "ana", _damage(2, decided))
    )
    assert decided == ["Ana", "Ana"]  # each decided once
    assert (first.before.vit, first.after.vit) == (10, 9)
    assert (second.before.vit, second.after.vit) == (9, 7)
    log = await log_of(db, ana.id)
    assert [e.after.vit for e in log if e.after] == [10, 9, 7]
    assert all(b.after == a.before for b, a in itertools.pairwise(log))


@contextlib.asynccontextmanager
async def _row_held(target: Target, row_id: int) -> AsyncIterator[asyncio.Event]:
    """Another connection holds the character's row (SELECT … FOR UPDATE) until the event."""
    engine = create_engine(target.url, connect_args=target.connect_args)
    release, taken = asyncio.Event(), asyncio.Event()

    async def hold() -> None:
        async with engine.begin() as conn:
            await conn.execute(
                text("SELECT id FROM characters WHERE id = :id FOR UPDATE"), {"id": row_id}
            )
            taken.set()
            await release.wait()

    holder = asyncio.ensure_future(hold())
    await asyncio.wait_for(taken.wait(), 5)
    try:
        yield release
    finally:
        release.set()
        await holder
        await engine.dispose()


async def _until_queued(db: Database, count: int) -> None:
    hot = db._hot
    assert isinstance(hot, postgres_path.PostgresHotPath)
    for _ in range(200):
        if len(hot._waiting) >= count:
            return
        await asyncio.sleep(0.01)
    raise AssertionError("the command never queued")


async def test_a_command_left_waiting_past_its_budget_is_busy_and_never_runs(
    pg: tuple[Target, Database], monkeypatch: pytest.MonkeyPatch
) -> None:
    """One connection, its group held on a locked row: the command behind it waits its budget
    (here 0.3 s) and is refused, and is not run when the connection comes free."""
    target, db = pg
    monkeypatch.setattr(postgres_path, "POOL_SIZE", 1)
    monkeypatch.setattr(postgres_path, "deadline", lambda: time.monotonic() + 0.3)
    ana, bo = await create(db, "Ana"), await create(db, "Bo")
    async with _row_held(target, ana.id) as release:
        held = asyncio.ensure_future(_act(db, "Ana", _damage(1)))
        await asyncio.sleep(0.2)  # its group is saving, waiting for the row
        started = time.monotonic()
        with pytest.raises(Busy):
            await _act(db, "Bo", _damage(1))
        assert time.monotonic() - started < 1.0
        release.set()
        assert (await held).after.vit == 9
    assert (await sheet_of(db, bo.id)).vit == 10  # type: ignore[union-attr]
    assert len(await log_of(db, bo.id)) == 1


async def test_a_command_whose_asker_left_while_it_waited_is_never_run(
    pg: tuple[Target, Database], monkeypatch: pytest.MonkeyPatch
) -> None:
    target, db = pg
    monkeypatch.setattr(postgres_path, "POOL_SIZE", 1)
    ana, bo = await create(db, "Ana"), await create(db, "Bo")
    async with _row_held(target, ana.id) as release:
        held = asyncio.ensure_future(_act(db, "Ana", _damage(1)))
        await asyncio.sleep(0.2)
        left = asyncio.ensure_future(_act(db, "Bo", _damage(1)))
        await _until_queued(db, 1)
        left.cancel()
        release.set()
        assert (await held).after.vit == 9
    with pytest.raises(asyncio.CancelledError):
        await left
    await _act(db, "Ana", _damage(1))  # the queue moved on past it
    assert (await sheet_of(db, bo.id)).vit == 10  # type: ignore[union-attr]
    assert len(await log_of(db, bo.id)) == 1


def _asks() -> int:
    return sum(1 for o in gc.get_objects() if isinstance(o, postgres_path._Ask))


async def test_a_groups_refusals_are_freed_without_the_collector(
    pg: tuple[Target, Database],
) -> None:
    """A refusal's traceback holds its group's frames; an ask lets go of its future when it
    answers, so that nothing of the group is left in a cycle for the collector."""
    _, db = pg
    await create(db, "Ana")
    await _act(db, "Ana", _damage(1))  # the connection made, and warmed
    gc.collect()
    gc.disable()
    try:
        before = _asks()
        for _ in range(3):
            done = await asyncio.gather(
                _act(db, "Nobody", _damage(1)),
                _act(db, "Ana", _refuse),
                _act(db, "Ana", _damage(1)),
                return_exceptions=True,
            )
            assert [type(d) for d in done] == [RuleError, RuleError, Outcome]
        del done
        await asyncio.sleep(0.05)  # the runner's task and the askers' tasks ended
        assert _asks() == before, "a group's asks outlived it: a cycle"
    finally:
        gc.enable()
