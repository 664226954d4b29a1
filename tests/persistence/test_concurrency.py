"""Concurrent commands on one hot character: nothing lost, nothing applied twice."""

from __future__ import annotations

import asyncio
import itertools
import time

from bot.db.database import Database
from rules.errors import RuleError
from tests.persistence.helpers import GUILD, caller, create, hit, log_of, replay, sheet_of


async def test_100_concurrent_damage_commands_lose_nothing(db: Database) -> None:
    row = await create(db, "Hot", max_vit=999, vit=999)
    started = time.monotonic()
    outcomes = await asyncio.gather(*(hit(db, "hot", 1 + i % 3) for i in range(100)))
    elapsed = time.monotonic() - started

    total = sum(1 + i % 3 for i in range(100))
    sheet = await sheet_of(db, row.id)
    assert sheet is not None and sheet.vit == 999 - total  # H-1: exact, no lost update
    events = await log_of(db, row.id)
    damage_events = [event for event in events if event.command == "damage"]
    assert len(damage_events) == 100
    assert [event.command for event in events] == ["character create"] + ["damage"] * 100
    # 100 chained events: each starts exactly where the previous one ended, in the order of
    # the saves, and the last is the sheet.
    for previous, event in itertools.pairwise(events):
        assert event.before == previous.after, f"event {event.id} does not chain"
    assert [event.id for event in events] == sorted(event.id for event in events)
    assert replay(events) == sheet
    assert all(event.is_change for event in damage_events)
    # Every command saw a distinct VIT: serialised, none read a stale sheet.
    assert len({outcome.before.vit for outcome in outcomes}) == 100
    # A hot row is a queue, not a storm of retries.
    assert elapsed < 20, f"100 commands took {elapsed:.1f}s"


async def test_concurrent_commands_on_different_guilds_stay_apart(db: Database) -> None:
    rows = [await create(db, "Twin", guild_id=guild) for guild in (1, 2)]

    await asyncio.gather(*(hit(db, "twin", 1, who=caller(guild_id=1 + i % 2)) for i in range(20)))
    for guild, row in zip((1, 2), rows, strict=True):
        sheet = await sheet_of(db, row.id, guild)
        assert sheet is not None and sheet.vit == 0
        assert len(await log_of(db, row.id, guild)) == 11


async def test_concurrent_creations_of_one_name_let_exactly_one_through(db: Database) -> None:
    results = await asyncio.gather(
        *(create(db, name) for name in ("Same", "SAME", "same", "Same ", "sAme")),
        return_exceptions=True,
    )
    created = [result for result in results if not isinstance(result, BaseException)]
    refused = [result for result in results if isinstance(result, RuleError)]
    assert (len(created), len(refused)) == (1, 4), results
    async with db.transaction(GUILD, read_only=True) as uow:
        assert [row.id for row in await uow.characters()] == [created[0].id]


async def test_concurrent_new_days_each_count(db: Database) -> None:
    async def next_day() -> None:
        async with db.transaction(GUILD) as uow:
            await uow.set_day(await uow.day() + 1)  # C-4: day() locks the guild's row

    await asyncio.gather(*(next_day() for _ in range(10)))
    async with db.transaction(GUILD, read_only=True) as uow:
        assert await uow.day() == 11


async def test_concurrent_next_rounds_each_count(db: Database) -> None:
    """C-1: three GMs' "Next round" at once make three rounds, never the same round three times
    (the combat's row is locked before its round is read, on PostgreSQL as SQLite's writer
    lock serialises it)."""
    from bot.services import table as service

    gm = caller(gm=True)
    row = await create(db, "Hot")
    await service.start_combat(db, gm)
    await service.join_combat(db, gm, "Hot")
    results = await asyncio.gather(*(service.next_round(db, gm) for _ in range(3)))
    assert sorted(result.combat.round for result in results) == [2, 3, 4]
    async with db.transaction(GUILD, read_only=True) as uow:
        combat = await uow.combat_of(row.id)
    assert combat is not None and combat.round == 4
