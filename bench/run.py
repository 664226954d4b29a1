"""Benchmark: the play commands end to end, against the raw-driver floor, at two scales.

    python bench/run.py --quick          # under a minute; ends with the one-line summary
    python bench/run.py                  # the full run (see bench/README.md)

PostgreSQL runs when BENCH_DATABASE_URL or TEST_DATABASE_URL names a server (a database of its
own is created there and dropped afterwards); otherwise it is left out, with a word.
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import io
import logging
import math
import os
import platform
import pstats
import sqlite3
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # `python bench/run.py` puts bench/, not the repo, on the path
    sys.path.insert(0, str(ROOT))

from bench import baseline  # noqa: E402
from bench.breakdown import breakdown  # noqa: E402
from bench.load import BotLoad, mix  # noqa: E402
from bench.stats import Figures  # noqa: E402
from bench.world import (  # noqa: E402
    World,
    postgres_database,
    postgres_server,
    restore,
    seed,
    sqlite_database,
)
from bot import loop  # noqa: E402
from bot.db.database import Database  # noqa: E402

SEED = 20261129
# --boards compares two runs this long, one without boards and one with: several of the boards'
# 2-second intervals, so that the boards are edited during the run, not only after it.
BOARD_COMMANDS = 12_000
BACKENDS = ("sqlite", "postgresql")


@dataclass
class Plan:
    backends: list[str]
    guilds: int
    concurrency: list[int]
    characters: list[int]
    commands: int
    warmup: int
    pool: int
    scale_backends: list[str]
    repeat: int = 1
    detail: bool = False
    breakdown: bool = False
    boards: bool = False
    profile: str | None = None


@dataclass
class Results:
    """Per backend: the baseline and bot runs at the headline C, and the per-scale bot runs."""

    baseline: dict[tuple[str, int], Figures] = field(default_factory=dict)
    bot: dict[tuple[str, int, int], Figures] = field(default_factory=dict)  # backend, N, C
    boards: dict[tuple[str, int, int], Figures] = field(default_factory=dict)  # the same, boards
    unboarded: dict[tuple[str, int, int], Figures] = field(default_factory=dict)  # …and without


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="the one-minute run")
    parser.add_argument("--db", choices=(*BACKENDS, "both"), default="both")
    parser.add_argument("--guilds", type=int, default=200, help="G guilds (default 200)")
    parser.add_argument(
        "--concurrency", type=int, nargs="+", help="C in flight (quick: 50; full: 1 10 50)"
    )
    parser.add_argument(
        "--characters", type=int, nargs="+", help="database sizes (default 1000 100000)"
    )
    parser.add_argument("--commands", type=int, help="commands per measured run")
    parser.add_argument("--repeat", type=int, help="runs of each, the best kept (quick 3, full 2)")
    parser.add_argument(
        "--pool", type=int, default=10, help="asyncpg pool of the PostgreSQL baseline (10)"
    )
    parser.add_argument(
        "--detail", action="store_true", help="p50 and p99 of each command of every bot run"
    )
    parser.add_argument(
        "--breakdown",
        action="store_true",
        help="also time one command at a time: Discord floor, trips to the database",
    )
    parser.add_argument(
        "--boards",
        action="store_true",
        help="also run the bot with a status board in every guild's channel, and compare",
    )
    parser.add_argument(
        "--profile",
        metavar="FILE",
        help="cProfile the first database's bot runs at the smallest size; print the top "
        "functions, save stats to FILE",
    )
    return parser.parse_args(argv)


def make_plan(args: argparse.Namespace) -> Plan:
    backends = list(BACKENDS) if args.db == "both" else [args.db]
    if args.quick:
        return Plan(
            backends=backends,
            guilds=args.guilds,
            concurrency=args.concurrency or [50],
            characters=args.characters or [1_000, 100_000],
            commands=args.commands or 800,
            warmup=200,
            pool=args.pool,
            scale_backends=backends,
            repeat=args.repeat or 3,
            detail=args.detail,
            breakdown=args.breakdown,
            boards=args.boards,
            profile=args.profile,
        )
    return Plan(
        backends=backends,
        guilds=args.guilds,
        concurrency=args.concurrency or [1, 10, 50],
        characters=args.characters or [1_000, 100_000],
        commands=args.commands or 3_000,
        warmup=500,
        pool=args.pool,
        scale_backends=backends,
        repeat=args.repeat or 2,
        detail=args.detail,
        breakdown=args.breakdown,
        boards=args.boards,
        profile=args.profile,
    )


@contextlib.asynccontextmanager
async def database(backend: str, tag: str) -> AsyncIterator[str]:
    if backend == "sqlite":
        async with sqlite_database(tag) as url:
            yield url
    else:
        server = postgres_server()
        assert server is not None
        async with postgres_database(server, tag) as url:
            yield url


async def seeded(url: str, world: World) -> None:
    db = await Database.connect(url)
    try:
        await seed(db, world)
    finally:
        await db.close()


async def restored(url: str, world: World, dirty: set[int]) -> None:
    """The characters the last run changed, back as seeded: every run starts alike."""
    if dirty:
        db = await Database.connect(url)
        try:
            await restore(db, world, dirty)
        finally:
            await db.close()
        dirty.clear()


async def bot_run(
    url: str,
    world: World,
    plan: Plan,
    backend: str,
    c: int,
    profiler: cProfile.Profile | None,
    *,
    boards: bool = False,
    commands: int | None = None,
) -> Figures:
    """One measured run of the mix at concurrency c, in a freshly started (and warmed) bot;
    with `boards`, a status board in every guild's channel."""
    load = BotLoad(url, world, SEED, boards=boards)
    await load.start()
    try:
        await load.run(plan.warmup, c, SEED + 1, "warm-up")
        loop.settle()  # as the bot does once it is ready (bot/lifecycle.py)
        label = f"bot {backend} N={world.characters} C={c}" + (" boards" if boards else "")
        if profiler is not None:
            profiler.enable()
        edits = load.board_edits()
        try:
            figures = await load.run(commands or plan.commands, c, SEED + 2 + c, label)
        finally:
            if profiler is not None:
                profiler.disable()
        figures.board_edits = load.board_edits() - edits
        return figures
    finally:
        await load.close()


async def baseline_run(url: str, world: World, plan: Plan, backend: str, c: int) -> Figures:
    if backend == "sqlite":
        return await baseline.run_sqlite(url, world, plan.commands, c, SEED + 2 + c)
    return await baseline.run_postgres(url, world, plan.commands, c, SEED + 2 + c, plan.pool)


def best(runs: list[Figures]) -> Figures:
    """The fastest of the repeats: the machine is shared, noise only ever slows a run."""
    return max(runs, key=lambda f: f.rate)


async def run(plan: Plan) -> Results:
    """Per backend: seed every size, then repeat (baseline at the first size, the bot at every
    size) `plan.repeat` times, interleaved, so that a slow spell of the machine hits all alike."""
    results = Results()
    profiler = cProfile.Profile() if plan.profile else None
    for backend in plan.backends:
        sizes = plan.characters if backend in plan.scale_backends else plan.characters[:1]
        async with contextlib.AsyncExitStack() as stack:
            urls = {}
            for n in sizes:
                urls[n] = await stack.enter_async_context(database(backend, f"{backend[:2]}{n}"))
                print(f"{backend}: seeding {n:,} characters in {plan.guilds} guilds", flush=True)
                await seeded(urls[n], World(plan.guilds, n))
            floors: dict[int, list[Figures]] = {c: [] for c in plan.concurrency}
            bots: dict[tuple[int, int], list[Figures]] = {}
            boarded: dict[tuple[int, int], list[Figures]] = {}
            unboarded: dict[tuple[int, int], list[Figures]] = {}  # the same long runs, no board
            dirty: dict[int, set[int]] = {n: set() for n in sizes}
            for _ in range(plan.repeat):
                for c in plan.concurrency:
                    world = World(plan.guilds, sizes[0])
                    await restored(urls[sizes[0]], world, dirty[sizes[0]])
                    floors[c].append(await baseline_run(urls[sizes[0]], world, plan, backend, c))
                    dirty[sizes[0]].update(baseline.indexes(world, plan.commands, SEED + 2 + c))
                    print("  " + floors[c][-1].line(), flush=True)
                    for n in sizes:
                        world = World(plan.guilds, n)
                        await restored(urls[n], world, dirty[n])
                        profiled = backend == plan.backends[0] and n == sizes[0]
                        use = profiler if profiled else None
                        figures = await bot_run(urls[n], world, plan, backend, c, use)
                        for count, seed_of in (
                            (plan.warmup, SEED + 1),
                            (plan.commands, SEED + 2 + c),
                        ):
                            dirty[n].update(i for i, _, _ in mix(world, count, seed_of))
                        bots.setdefault((n, c), []).append(figures)
                        print("  " + figures.line(), flush=True)
                        if plan.detail:
                            print("\n".join(figures.detail()), flush=True)
                    if plan.boards:
                        n = sizes[0]
                        world = World(plan.guilds, n)
                        pair = []
                        for with_boards in (False, True):
                            await restored(urls[n], world, dirty[n])
                            figures = await bot_run(
                                urls[n],
                                world,
                                plan,
                                backend,
                                c,
                                None,
                                boards=with_boards,
                                commands=BOARD_COMMANDS,
                            )
                            for count, seed_of in (
                                (plan.warmup, SEED + 1),
                                (BOARD_COMMANDS, SEED + 2 + c),
                            ):
                                dirty[n].update(i for i, _, _ in mix(world, count, seed_of))
                            pair.append(figures)
                            rate = figures.board_edits / figures.seconds
                            print(
                                f"  {figures.line()}  {figures.board_edits} board edits "
                                f"({rate:.1f}/s for {plan.guilds if with_boards else 0} boards)",
                                flush=True,
                            )
                        boarded.setdefault((n, c), []).append(pair[1])
                        unboarded.setdefault((n, c), []).append(pair[0])
            if plan.breakdown:
                world = World(plan.guilds, sizes[0])
                await restored(urls[sizes[0]], world, dirty[sizes[0]])
                for line in await breakdown(urls[sizes[0]], world, 1_000, SEED, backend):
                    print(line, flush=True)
            for c, runs in floors.items():
                results.baseline[(backend, c)] = best(runs)
            for (n, c), runs in bots.items():
                results.bot[(backend, n, c)] = best(runs)
            for (n, c), runs in boarded.items():
                results.boards[(backend, n, c)] = best(runs)
            for (n, c), runs in unboarded.items():
                results.unboarded[(backend, n, c)] = best(runs)
    if profiler is not None:
        report_profile(profiler, plan.profile, plan.backends[0])
    return results


def report_profile(profiler: cProfile.Profile, path: str | None, backend: str) -> None:
    """Where the main thread's time goes, by package, then the top functions."""
    if path:
        profiler.dump_stats(path)
    stats = pstats.Stats(profiler)
    by_package: dict[str, float] = {}
    for (filename, _line, function), (_cc, _nc, own, _cum, _callers) in stats.stats.items():  # type: ignore[attr-defined]
        key = package_of(filename, function)
        by_package[key] = by_package.get(key, 0.0) + own
    total = sum(by_package.values()) or 1.0
    print(f"\n--- profile of the {backend} bot runs (main thread), own time by package ---")
    for key, seconds in sorted(by_package.items(), key=lambda kv: -kv[1])[:15]:
        print(f"  {seconds:7.2f} s {100 * seconds / total:5.1f} %  {key}")
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(20)
    print("\n--- top functions by own time ---")
    print("\n".join(line for line in out.getvalue().splitlines()[6:] if line.strip()))


def package_of(filename: str, function: str) -> str:
    if "site-packages/" in filename:
        return filename.split("site-packages/", 1)[1].split("/", 1)[0]
    if filename.startswith(str(ROOT)):
        return "/".join(Path(filename).relative_to(ROOT).parts[:2])
    if filename == "~":  # C functions: the event loop's wait for I/O is the one that matters
        return "waiting for I/O (epoll)" if "poll" in function else "builtins"
    return "stdlib " + Path(filename).name


def machine() -> str:
    cpu = "?"
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    return (
        f"{os.cpu_count()} cores ({cpu}), Python {platform.python_version()}, "
        f"SQLite {sqlite3.sqlite_version}, {loop.name()}, load average {load}"
    )


# The 1e-9 keeps a figure that is exactly on a step (0.29 is 28.999…/100 in floating point)
# on that step.
def _down(x: float) -> str:
    return f"{math.floor(x * 100 + 1e-9) / 100:.2f}"


def _up(x: float, places: int = 2) -> str:
    return f"{math.ceil(x * 10**places - 1e-9) / 10**places:.{places}f}"


def summary(plan: Plan, results: Results) -> str:
    """The closing line: bot ÷ baseline at the headline C, the worst bot p99 there, and the
    per-command time at the largest size ÷ the smallest. Each figure is rounded away from its
    target (ratios down, p99 and scale up), so that a miss never prints as a pass."""
    c = max(plan.concurrency)
    small, large = plan.characters[0], plan.characters[-1]
    parts = []
    p99s = []
    for backend in BACKENDS:
        bot = results.bot.get((backend, small, c))
        floor = results.baseline.get((backend, c))
        if bot is None or floor is None:
            parts.append(f"{backend}=skipped")
            continue
        parts.append(f"{backend}={_down(bot.rate / floor.rate)}")
        p99s.append(bot.p99_ms)
    scale = [
        results.bot[(b, large, c)].per_command_ms / results.bot[(b, small, c)].per_command_ms
        for b in plan.scale_backends
        if (b, large, c) in results.bot and (b, small, c) in results.bot
    ]
    line = "bot/baseline " + " ".join(parts)
    line += f" p99_ms={_up(max(p99s), 0)}" if p99s else ""
    line += f" scale={_up(max(scale))}" if scale and large != small else ""
    boards = [
        results.boards[(b, small, c)].rate / results.unboarded[(b, small, c)].rate
        for b in BACKENDS
        if (b, small, c) in results.boards and (b, small, c) in results.unboarded
    ]
    line += f" boards={_down(min(boards))}" if boards else ""
    return line


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    plan = make_plan(args)
    logging.basicConfig(level=logging.WARNING)
    logging.getLogger("discord.client").setLevel(logging.ERROR)  # no voice support: not news
    if "postgresql" in plan.backends and postgres_server() is None:
        plan.backends.remove("postgresql")
        print("PostgreSQL left out: set BENCH_DATABASE_URL or TEST_DATABASE_URL to a server.")
    print(f"machine: {machine()}")
    results = loop.run(run(plan))  # the bot's own event loop, baseline and bot alike
    print(f"machine after: {machine()}")
    print(summary(plan, results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
