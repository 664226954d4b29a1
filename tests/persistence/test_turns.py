"""Reads that take turns (bot/db/turns.py): inside `taking_turns`, each statement of the task's
read-only transactions waits for its turn first — on the event loop's SQLite connections, on
aiosqlite and on PostgreSQL — and nothing else does: not a write, not another task, not after
the block."""

from __future__ import annotations

import asyncio

from bot.db.database import Database
from bot.db.turns import taking_turns
from tests.persistence.helpers import GUILD, create, hit


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
