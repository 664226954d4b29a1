"""The two sides of a slice: the raw baseline does the database work of the bot's slice of the
same seed (the same commands on the same characters, the looks, `/character show`, as reads,
the rest as writes), and the bot's slice answers every command; each counts its CPU."""

from __future__ import annotations

import sqlite3

from bench import baseline
from bench.load import BotLoad
from bench.run import seeded
from bench.world import World, mix, sqlite_database, sqlite_path

WORLD = World(guilds=4, characters=40)
COUNT, SEED = 60, 7


def test_the_targets_are_the_mix_s_commands_of_the_seed() -> None:
    planned = mix(WORLD, COUNT, SEED)
    targets = baseline.targets(WORLD, COUNT, SEED)
    assert [t.writes for t in targets] == [c != "character show" for _, c, _ in planned]
    assert baseline.indexes(WORLD, COUNT, SEED) == [i for i, _, _ in planned]
    recover = next(n for n, (_, c, _) in enumerate(planned) if c == "recover")
    g = WORLD.guild_of(planned[recover][0])
    assert targets[recover].user_id == WORLD.gm_id(g)  # the GM calls for it


async def test_a_slice_writes_one_event_a_write_and_none_a_look() -> None:
    writes = sum(c != "character show" for _, c, _ in mix(WORLD, COUNT, SEED))
    assert 0 < writes < COUNT  # the seed gives both kinds
    async with sqlite_database("baseline-test") as url:
        await seeded(url, WORLD)
        base = await baseline.open_baseline(url, "sqlite", pool_size=1)
        try:
            figures = await baseline.run_closed(base, WORLD, COUNT, 8, SEED)
        finally:
            await base.close()
        with sqlite3.connect(sqlite_path(url)) as conn:
            (events,) = conn.execute("SELECT count(*) FROM events").fetchone()
    assert figures.commands == COUNT
    assert events == WORLD.characters + writes  # the seeded creations, then one a write


async def test_a_bot_slice_answers_every_command_and_counts_the_process_s_cpu() -> None:
    """The bot's side of a slice: the mix through the command tree, every command answered,
    and the CPU the process spent on it (printed beside the baseline's)."""
    async with sqlite_database("bot-load-test") as url:
        await seeded(url, WORLD)
        load = BotLoad(url, WORLD, SEED)
        await load.start()
        try:
            figures = await load.run(COUNT, 8, SEED, "bot")
        finally:
            await load.close()
    assert figures.commands == COUNT and figures.errors == 0
    assert figures.cpu_seconds is not None and figures.cpu_seconds > 0
    assert sum(len(x) for x in figures.by_command.values()) == COUNT
