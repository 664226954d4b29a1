"""The floor: the same database work as the mix's commands, with the raw driver and no ORM.

A write command's database work: in one transaction, read one character by guild and name,
write its sheet back, append one event holding the sheet before and after. A look's
(`/character show`): read the character, outside any transaction. The same commands on the same
characters as the bot's slice of the same seed (`bench.world.mix`). On SQLite that is aiosqlite:
the writes on one connection (SQLite has one writer: an asyncio lock queues the transactions, the
fastest way to share it, and BEGIN IMMEDIATE as the bot does), the looks on a second one (a WAL
reader waits for no writer, as the bot's looks do not); on PostgreSQL an asyncpg pool, the writes
with SELECT … FOR UPDATE. Same pragmas as the bot's engine.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from bench.stats import Figures, Job, closed_loop, measured, open_loop
from bench.world import World, mix, raw_dsn, sqlite_path
from rules.names import name_key

SQLITE_PRAGMAS = (
    "PRAGMA busy_timeout = 30000",
    "PRAGMA journal_mode = WAL",
    "PRAGMA synchronous = NORMAL",
    "PRAGMA foreign_keys = ON",
)
_SELECT = "SELECT id, sheet FROM characters WHERE guild_id = {0} AND name_key = {1}"
_UPDATE = (
    "UPDATE characters SET sheet = {0}, version = version + 1, updated_at = {1} WHERE id = {2}"
)
_INSERT = (
    "INSERT INTO events (guild_id, character_id, user_id, command, inputs, rolls, rules, "
    "sheet_before, sheet_after, is_change, undoable, created_at) "
    "VALUES ({0}, {1}, {2}, 'damage', '{{\"amount\": 1}}', '[]', '[\"H-1\"]', "
    "{3}, {4}, {7}, {5}, {6})"
)


LOOK = "character show"  # the mix's one command that only reads


@dataclass(frozen=True)
class Target:
    """One command of the baseline: the character it works on, who asks, whether it writes."""

    guild_id: int
    key: str
    user_id: int
    writes: bool


def indexes(world: World, count: int, seed: int) -> list[int]:
    """The characters of the `count` commands of the mix of this seed."""
    return [i for i, _, _ in mix(world, count, seed)]


def targets(world: World, count: int, seed: int) -> list[Target]:
    """The mix's `count` commands of this seed, as the baseline does them: the same characters
    and speakers as the bot's (the GM for /recover), and which of them only look."""
    picked = []
    for i, command, _ in mix(world, count, seed):
        g = world.guild_of(i)
        user = world.gm_id(g) if world.by_gm(command) else world.player_id(g, world.owner_of(i))
        picked.append(Target(world.guild_id(g), name_key(world.name(i)), user, command != LOOK))
    return picked


def _changed(text: str) -> tuple[str, str]:
    """The sheet written back: one point of VIT moved (kept within its range)."""
    sheet = json.loads(text)
    sheet["vit"] = sheet["vit"] - 1 if sheet["vit"] > 0 else sheet["vit"] + 1
    return text, json.dumps(sheet)


class Baseline:
    """The raw driver, connected once and measured in slices: `jobs(targets)` are the
    commands of one slice, for a closed or an open loop (bench/stats.py)."""

    label: str

    def jobs(self, targets: list[Target]) -> list[Job]:
        return [self._job(t) if t.writes else self._look(t) for t in targets]

    def _job(self, target: Target) -> Job:
        raise NotImplementedError

    def _look(self, target: Target) -> Job:
        raise NotImplementedError

    async def close(self) -> None:
        raise NotImplementedError


class SQLiteBaseline(Baseline):
    """aiosqlite: the writes on one connection shared through an asyncio lock (one writer at a
    time is all SQLite allows; queueing in-process is the fastest way to share it), BEGIN
    IMMEDIATE; the looks on a connection of their own, never waiting for the writes."""

    label = "baseline sqlite"

    def __init__(self, conn: Any, reader: Any) -> None:
        self._conn = conn
        self._reader = reader
        self._lock = asyncio.Lock()

    @classmethod
    async def open(cls, url: str) -> SQLiteBaseline:
        import aiosqlite

        conns = []
        for _ in range(2):
            conn = await aiosqlite.connect(sqlite_path(url), isolation_level=None)
            for pragma in SQLITE_PRAGMAS:
                await conn.execute(pragma)
            conns.append(conn)
        return cls(*conns)

    def _look(self, target: Target) -> Job:
        reader, select = self._reader, _SELECT.format("?", "?")
        guild_id, key = target.guild_id, target.key

        async def run() -> None:
            async with reader.execute(select, (guild_id, key)) as cursor:
                found = await cursor.fetchone()
            assert found is not None
            json.loads(found[1])

        return run

    def _job(self, target: Target) -> Job:
        conn, lock = self._conn, self._lock
        guild_id, key, user_id = target.guild_id, target.key, target.user_id
        select = _SELECT.format("?", "?")
        update = _UPDATE.format("?", "?", "?")
        insert = _INSERT.format("?", "?", "?", "?", "?", "?", "?", "1")

        async def run() -> None:
            async with lock:
                await conn.execute("BEGIN IMMEDIATE")
                try:
                    async with conn.execute(select, (guild_id, key)) as cursor:
                        found = await cursor.fetchone()
                    assert found is not None
                    row_id, text = found
                    before, after = _changed(text)
                    now = datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S.%f")
                    await conn.execute(update, (after, now, row_id))
                    await conn.execute(insert, (guild_id, row_id, user_id, before, after, 1, now))
                    await conn.execute("COMMIT")
                except BaseException:
                    await conn.execute("ROLLBACK")
                    raise

        return run

    async def close(self) -> None:
        await self._conn.close()
        await self._reader.close()


class PostgresBaseline(Baseline):
    """An asyncpg pool (the bot engine's size): a write SELECT … FOR UPDATE, UPDATE, INSERT in
    a transaction; a look one SELECT."""

    def __init__(self, pool: Any, size: int) -> None:
        self._pool = pool
        self.label = f"baseline postgresql pool={size}"

    @classmethod
    async def open(cls, url: str, pool_size: int) -> PostgresBaseline:
        import asyncpg

        pool = await asyncpg.create_pool(
            raw_dsn(url), min_size=pool_size, max_size=pool_size, reset=_kept_as_left
        )
        return cls(pool, pool_size)

    def _look(self, target: Target) -> Job:
        pool, select = self._pool, _SELECT.format("$1", "$2")
        guild_id, key = target.guild_id, target.key

        async def run() -> None:
            found = await pool.fetchrow(select, guild_id, key)
            assert found is not None
            json.loads(found[1])

        return run

    def _job(self, target: Target) -> Job:
        pool = self._pool
        guild_id, key, user_id = target.guild_id, target.key, target.user_id
        select = _SELECT.format("$1", "$2") + " FOR UPDATE"
        update = _UPDATE.format("$1", "$2", "$3")
        insert = _INSERT.format("$1", "$2", "$3", "$4", "$5", "$6", "$7", "TRUE")

        async def run() -> None:
            async with pool.acquire() as conn, conn.transaction():
                row_id, text = await conn.fetchrow(select, guild_id, key)
                before, after = _changed(text)
                now = datetime.now(UTC)
                await conn.execute(update, after, now, row_id)
                await conn.execute(insert, guild_id, row_id, user_id, before, after, True, now)

        return run

    async def close(self) -> None:
        await self._pool.close()


async def _kept_as_left(_conn: Any) -> None:
    """No reset query on release (asyncpg's default is a round trip more a command)."""


async def open_baseline(url: str, backend: str, pool_size: int) -> Baseline:
    if backend == "sqlite":
        return await SQLiteBaseline.open(url)
    return await PostgresBaseline.open(url, pool_size)


async def run_closed(
    baseline: Baseline, world: World, count: int, concurrency: int, seed: int
) -> Figures:
    """One closed-loop slice of `count` commands with `concurrency` in flight."""
    jobs = baseline.jobs(targets(world, count, seed))
    return await measured(f"{baseline.label} C={concurrency}", closed_loop(jobs, concurrency))


async def run_open(
    baseline: Baseline, world: World, arrivals: list[float], seed: int, label: str
) -> Figures:
    """One open-loop slice: a command at each of `arrivals`."""
    jobs = baseline.jobs(targets(world, len(arrivals), seed))
    return await measured(f"{baseline.label} {label}", open_loop(jobs, arrivals))
