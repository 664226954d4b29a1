"""Reads that take turns (bot/db/turns.py): inside `taking_turns`, each statement of the task's
read-only transactions waits for its turn first, and many rows are read in pieces with a turn
between — on the event loop's SQLite connections, on aiosqlite and on PostgreSQL — and nothing
else does: not a write, not another task, not after the block."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

import bot.db.turns as turns_module
from bot.db.database import Database
from bot.db.turns import taking_turns
from tests.persistence.helpers import GUILD, create, hit


@pytest.fixture(autouse=True)
def rows_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """A statement's rows in one piece however slow the machine (the rows' test sets its own)."""
    monkeypatch.setattr(turns_module, "PIECE_S", 60.0)


class Turns:
    """A turn that logs itself; `log` also gets each statement the reads run."""

    def __init__(self) -> None:
        self.log: list[str] = []

    async def __call__(self) -> None:
        self.log.append("turn")
        await asyncio.sleep(0)


async def _read(db: Database, turns: Turns) -> None:
    async with db.transaction(GUILD, read_only=True) as uow:
        turns.log.append("statement")
        assert (await uow.character("cy", lock=False)) is not None
        turns.log.append("statement")
        await uow.characters_page(0, 25)  # two statements: the page, the count
        turns.log.append("statement")
        await uow.settings()


async def test_each_statement_of_a_read_waits_for_its_turn(db: Database) -> None:
    await create(db, "Cy")
    turns = Turns()
    with taking_turns(turns):
        await _read(db, turns)
    assert turns.log == ["statement", "turn", "statement", "turn", "turn", "statement", "turn"]


async def test_only_the_reads_of_the_task_in_the_block_take_turns(db: Database) -> None:
    await create(db, "Cy")
    turns, elsewhere = Turns(), Turns()
    other = asyncio.create_task(asyncio.sleep(0.01))  # made before the block: not in it
    with taking_turns(turns):
        await hit(db, "Cy", 1)  # a write: never waits for a page's turn
        await other
    assert turns.log == []
    await _read(db, elsewhere)  # after the block
    assert elsewhere.log == ["statement", "statement", "statement"]


async def test_a_read_in_another_task_does_not_take_this_ones_turns(db: Database) -> None:
    await create(db, "Cy")
    turns, other = Turns(), Turns()
    started = asyncio.Event()
    release = asyncio.Event()

    async def taking() -> None:
        with taking_turns(turns):
            started.set()
            await release.wait()

    task = asyncio.create_task(taking())
    await started.wait()
    try:
        await _read(db, other)  # while the other task is inside its block
    finally:
        release.set()
        await task
    assert turns.log == [] and "turn" not in other.log


async def test_many_rows_are_read_in_pieces_with_a_turn_between(
    db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A history, a page of cards, the board's characters: read with a turn after each piece
    of PIECE_S (here after every row), and the same rows as read at once."""
    cy = (await create(db, "Cy")).id
    for name in ("Ada", "Bo"):
        await create(db, name)
    for _ in range(4):
        await hit(db, "Cy", 1)

    async def read(uow: Any) -> tuple[Any, ...]:
        return (
            await uow.history(cy, 10),
            await uow.characters_page(0, 25),
            await uow.living(25),
        )

    async with db.transaction(GUILD, read_only=True) as uow:
        at_once = await read(uow)
    monkeypatch.setattr(turns_module, "PIECE_S", 0.0)
    turns = Turns()
    with taking_turns(turns):
        async with db.transaction(GUILD, read_only=True) as uow:
            in_pieces = await read(uow)
    assert in_pieces == at_once
    events, (cards, _), (living, _) = at_once
    assert len(events) == 5 and len(cards) == 3 and len(living) == 3
    # A turn before each of the five statements, and one after each of the 11 rows.
    assert turns.log == ["turn"] * (5 + 11)
    written = Turns()
    with taking_turns(written):
        async with db.transaction(GUILD) as uow:  # a write transaction: its lock is held
            assert await read(uow) == at_once
    assert written.log == []
