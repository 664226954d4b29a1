"""The benchmark's world: guilds, players, characters, seeded straight into the bot's tables.

Seeding goes through the persistence layer's own schema (`bot.db.tables`, migrated by
`Database.upgrade`) with bulk inserts: 100,000 characters through one command each would take
minutes and measure nothing we want.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import random
import tempfile
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import bindparam, delete, update
from sqlalchemy.engine import make_url

from bot.db.database import Database
from bot.db.tables import boards, characters, events, guilds
from rules.models import GuildSettings, Sheet
from rules.names import name_key

GUILD_BASE = 900_000_000_000_000_000
USER_BASE = 800_000_000_000_000_000
PLAYERS = 5  # a table of five, plus its GM
DOWN_EVERY = 4  # every 4th character starts Unconscious (VIT 0), so /recover has work to do
CHUNK = 5_000


@dataclass(frozen=True)
class World:
    """N characters over G guilds: character i lives in guild i % G, owned by one of its
    players. Every id and name is computed, so the load needs no lookup."""

    guilds: int
    characters: int

    def guild_id(self, g: int) -> int:
        return GUILD_BASE + g

    def player_id(self, g: int, p: int) -> int:
        return USER_BASE + g * 16 + p

    def gm_id(self, g: int) -> int:
        return USER_BASE + g * 16 + 15

    def guild_of(self, i: int) -> int:
        return i % self.guilds

    def owner_of(self, i: int) -> int:
        return (i // self.guilds) % PLAYERS

    @staticmethod
    def name(i: int) -> str:
        return f"Hero {i:06d}"

    @staticmethod
    def down(i: int) -> bool:
        return i % DOWN_EVERY == 0

    @staticmethod
    def by_gm(command: str) -> bool:
        """Who sends a command of the mix: the GM for /recover (outside combat only the GM calls
        for it, R-8), the character's owner for the rest."""
        return command == "recover"


# The play commands and their share of the load (of 100).
MIX: tuple[tuple[str, int], ...] = (
    ("damage", 20),
    ("heal", 15),
    ("recover", 10),
    ("react", 15),
    ("push", 10),
    ("emotion", 10),
    ("character show", 20),
)
EMOTIONS = ("anger", "fear", "sadness", "guilt")


def mix(world: World, count: int, seed: int) -> list[tuple[int, str, dict[str, Any]]]:
    """`count` commands of the mix: (character index, command, options), each on a character
    drawn uniformly; /recover on one of those that start Unconscious (World.down), by the GM
    (outside combat only the GM calls for it, R-8), the others by the character's owner."""
    rng = random.Random(seed)
    names = [name for name, _ in MIX]
    weights = [weight for _, weight in MIX]
    down = math.ceil(world.characters / DOWN_EVERY)
    planned = []
    for command in rng.choices(names, weights, k=count):
        if command == "recover":
            i = DOWN_EVERY * rng.randrange(down)
        else:
            i = rng.randrange(world.characters)
        options: dict[str, Any] = {"character": world.name(i)}
        if command in ("damage", "heal", "push"):
            options["amount"] = 1
        elif command == "react":
            options["what"] = "dodge"
        elif command == "emotion":
            options.update(emotion=rng.choice(EMOTIONS), stages=1)
        planned.append((i, command, options))
    return planned


def _sheet_template() -> dict[str, Any]:
    return Sheet(name="x", owner_id=1).model_dump(mode="json")


async def seed(db: Database, world: World) -> None:
    """Migrate, then insert the guilds, the characters and one creation event each."""
    await db.upgrade()
    now = datetime.now(UTC)
    template = _sheet_template()
    settings = GuildSettings().model_dump(mode="json")
    async with db.engine.begin() as conn:
        await conn.execute(
            guilds.insert(),
            [
                {"guild_id": world.guild_id(g), "settings": settings, "day": 1}
                for g in range(world.guilds)
            ],
        )
    for start in range(0, world.characters, CHUNK):
        rows, logs = [], []
        for i in range(start, min(start + CHUNK, world.characters)):
            g = world.guild_of(i)
            owner = world.player_id(g, world.owner_of(i))
            sheet = {
                **template,
                "name": world.name(i),
                "owner_id": owner,
                "vit": 0 if world.down(i) else template["vit"],
            }
            rows.append(
                {
                    "id": i + 1,
                    "guild_id": world.guild_id(g),
                    "name_key": name_key(world.name(i)),
                    "owner_id": owner,
                    "sheet": sheet,
                    "state": "Unconscious" if world.down(i) else "Up",
                    "version": 1,
                    "created_at": now,
                    "updated_at": now,
                }
            )
            logs.append(
                {
                    "guild_id": world.guild_id(g),
                    "character_id": i + 1,
                    "user_id": owner,
                    "command": "character create",
                    "inputs": {"name": world.name(i)},
                    "rolls": [],
                    "rules": [],
                    "sheet_before": None,
                    "sheet_after": sheet,
                    "is_change": True,
                    "undoable": False,
                    "reverted_by": None,
                    "created_at": now,
                }
            )
        async with db.engine.begin() as conn:
            await conn.execute(characters.insert(), rows)
            await conn.execute(events.insert(), logs)
    if db.postgres:  # explicit ids above: move the sequence past them, then fresh statistics
        async with db.engine.begin() as conn:
            await conn.exec_driver_sql(
                f"SELECT setval(pg_get_serial_sequence('characters', 'id'), {world.characters + 1})"
            )
            await conn.exec_driver_sql("ANALYZE")
            # Its housekeeping between the slices instead (settle): see there.
            for table in BENCH_TABLES:
                await conn.exec_driver_sql(f"ALTER TABLE {table} SET (autovacuum_enabled = off)")


BENCH_TABLES = (characters.name, events.name, boards.name)  # what the slices and restore write


async def settle(db: Database) -> None:
    """PostgreSQL's housekeeping done before a slice, not during one: the rows the last slices
    left dead vacuumed (autovacuum is off for these tables) and the server's dirty pages
    written (a checkpoint). Both sides meet the same server: its housekeeping is part of
    neither, and would otherwise fall on whichever slice met it (bench/README.md, "What each
    change bought")."""
    if not db.postgres:
        return
    async with db.engine.connect() as conn:
        await conn.execution_options(isolation_level="AUTOCOMMIT")
        await conn.exec_driver_sql(f"VACUUM {', '.join(BENCH_TABLES)}")
        await conn.exec_driver_sql("CHECKPOINT")


async def restore(db: Database, world: World, indexes: set[int]) -> None:
    """Put these characters back as seeded, so that every run starts from the same state
    (a long load would otherwise drain Stamina and make later runs cheaper refusals). Each
    version moves on, as a save's does: a version never comes back with another sheet, so
    nothing the bot keeps by version is made stale without its version telling."""
    template = _sheet_template()
    stmt = (
        update(characters)
        .where(characters.c.id == bindparam("row_id"))
        .values(
            sheet=bindparam("fresh"),
            state=bindparam("fresh_state"),
            version=characters.c.version + 1,
        )
    )
    rows = []
    for i in sorted(indexes):
        g = world.guild_of(i)
        owner = world.player_id(g, world.owner_of(i))
        vit = 0 if world.down(i) else template["vit"]
        sheet = {**template, "name": world.name(i), "owner_id": owner, "vit": vit}
        state = "Unconscious" if world.down(i) else "Up"
        rows.append({"row_id": i + 1, "fresh": sheet, "fresh_state": state})
    async with db.engine.begin() as conn:
        for start in range(0, len(rows), CHUNK):
            await conn.execute(stmt, rows[start : start + CHUNK])


async def end_boards(db: Database) -> None:
    """No board of an earlier bot left: its boards are in channels of that bot's driver, and
    the next bot would resume them and spend its board edits finding them gone. Before a bot
    starts, not before each slice: a bot's own boards (the campaign page's, `--views`) last
    its whole run."""
    async with db.engine.begin() as conn:
        await conn.execute(delete(boards))


# --- where the databases live ------------------------------------------------------------------


def postgres_server() -> str | None:
    """The PostgreSQL server to use: BENCH_DATABASE_URL, else TEST_DATABASE_URL, else none."""
    return os.environ.get("BENCH_DATABASE_URL") or os.environ.get("TEST_DATABASE_URL") or None


@contextlib.asynccontextmanager
async def sqlite_database(tag: str) -> AsyncIterator[str]:
    """A fresh SQLite file in a temporary directory, removed afterwards."""
    with tempfile.TemporaryDirectory(prefix=f"lastgasp-bench-{tag}-") as folder:
        yield f"sqlite+aiosqlite:///{Path(folder) / 'bench.db'}"


@contextlib.asynccontextmanager
async def postgres_database(server_url: str, tag: str) -> AsyncIterator[str]:
    """A database of its own on the server (never the tests' database), dropped afterwards."""
    import asyncpg

    url = make_url(server_url)
    name = f"lastgasp_bench_{os.getpid()}_{tag}"
    admin = await asyncpg.connect(raw_dsn(server_url))
    try:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}"')
        await admin.execute(f'CREATE DATABASE "{name}"')
        try:
            yield url.set(database=name).render_as_string(hide_password=False)
        finally:
            await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        await admin.close()


def raw_dsn(url: str) -> str:
    """The SQLAlchemy URL as a plain libpq DSN for asyncpg."""
    parsed = make_url(url).set(drivername="postgresql")
    return parsed.render_as_string(hide_password=False)


def sqlite_path(url: str) -> str:
    return make_url(url).database or ""


def sheet_json(sheet: dict[str, Any]) -> str:
    return json.dumps(sheet, separators=(",", ":"))
