"""The benchmark's put-back (bench/world.py's `restore`): the characters a slice changed are
their seeded selves again before the next slice, and each version moves on, never back."""

from __future__ import annotations

import contextlib
import json
import sqlite3

from bench import baseline
from bench.run import seeded
from bench.world import World, restore, sqlite_database, sqlite_path
from bot.db.database import Database

WORLD = World(guilds=4, characters=40)
COUNT, SEED = 60, 7


def _rows(url: str) -> dict[int, tuple[dict[str, object], str, int]]:
    with contextlib.closing(sqlite3.connect(sqlite_path(url))) as conn:
        found = conn.execute("SELECT id, sheet, state, version FROM characters").fetchall()
    return {row_id: (json.loads(sheet), state, version) for row_id, sheet, state, version in found}


async def test_the_put_back_restores_the_seeded_sheets_and_moves_every_version_on() -> None:
    touched = set(baseline.indexes(WORLD, COUNT, SEED))
    async with sqlite_database("world-test") as url:
        await seeded(url, WORLD)
        as_seeded = _rows(url)
        base = await baseline.open_baseline(url, "sqlite", pool_size=1)
        try:
            await baseline.run_closed(base, WORLD, COUNT, 8, SEED)
        finally:
            await base.close()
        played = _rows(url)
        db = await Database.connect(url, hot_path=False)
        try:
            await restore(db, WORLD, touched)
        finally:
            await db.close()
        put_back = _rows(url)
    changed = [i for i in touched if played[i + 1][0] != as_seeded[i + 1][0]]
    assert changed  # the slice changed sheets: the put-back has something to undo
    for i in touched:
        sheet, state, version = put_back[i + 1]
        assert (sheet, state) == as_seeded[i + 1][:2]
        assert version == played[i + 1][2] + 1  # on from where the slice left it, never back
    untouched = set(range(WORLD.characters)) - touched
    assert untouched and all(put_back[i + 1] == played[i + 1] for i in untouched)
