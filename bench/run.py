"""Benchmark: the play commands end to end, against the raw driver, in paired slices.

    python bench/run.py --quick          # a few minutes; ends with the one-line summary
    python bench/run.py                  # more and longer slices (see bench/README.md)

PostgreSQL runs when BENCH_DATABASE_URL or TEST_DATABASE_URL names a server (a database of its
own is created there and dropped afterwards); otherwise it is left out, with a word.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import cProfile
import functools
import io
import json
import logging
import pstats
import signal
import statistics
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # `python bench/run.py` puts bench/, not the repo, on the path
    sys.path.insert(0, str(ROOT))

from bench import baseline, disk, hop, layout_cost, machine  # noqa: E402
from bench.baseline import Baseline, open_baseline  # noqa: E402
from bench.breakdown import NOOP, breakdown, noop_command  # noqa: E402
from bench.hop import awake, thread_hop_us  # noqa: E402
from bench.load import BotLoad  # noqa: E402
from bench.stats import (  # noqa: E402
    Figures,
    Paired,
    poisson_arrivals,
    pooled_interval,
    pooled_p99_ratio,
    round_down,
    round_up,
)
from bench.world import (  # noqa: E402
    World,
    end_boards,
    mix,
    postgres_database,
    postgres_server,
    restore,
    seed,
    settle,
    sqlite_database,
)
from bot import loop  # noqa: E402
from bot.db.database import Database  # noqa: E402
from bot.health import HealthServer  # noqa: E402

SEED = 20261129
BACKENDS = ("sqlite", "postgresql")
# The targets of issue 19 (on 2-core machines, Intel and AMD alike): a figure prints its
# verdict beside it.
TARGETS = {
    "throughput": ("≥", 0.6),
    "limit": ("≤", 1.25),
    "p99_ratio": ("≤", 1.25),
    "open_p99_ratio": ("≤", 1.5),
    "scale": ("≤", 1.15),
}


@dataclass
class Plan:
    backends: list[str]
    guilds: int
    small: int  # characters of the database every ratio is measured on
    large: int  # …and of the one the scale compares it with
    concurrency: int  # C of the throughput and p99 slices
    rounds: int  # paired rounds of each kind
    slice_commands: int  # commands of a C = 50 slice
    single_commands: int  # commands of a C = 1 slice
    open_seconds: float  # length of an open-loop slice, at its rate
    open_rounds: int
    warmup: int
    pool: int
    startup_guilds: int  # 0: no start-up and memory measure
    metrics: bool  # the metrics' own cost
    detail: bool = False
    breakdown: bool = False
    boards: bool = False
    profile: str | None = None
    cores: str = "awake"  # every core held awake while measuring, or let idle (bench/hop.py)
    views: float = 0.0  # campaign page views a second beside paired open-loop slices (0: none)
    views_rounds: int = 0  # …and how many pairs of them
    # Where the page is served: None as WEB_PORT serves it (by a page process); True on the
    # bot's event loop; False by a page process.
    views_on_loop: bool | None = None


@dataclass(frozen=True)
class Beside:
    """Open-loop slices with something beside the commands and without, in pairs: the p99 of
    every pair's commands together (`pooled`), what it could have been by chance (`chance`:
    90 % of the pairs' redraws) and the per-pair ratios."""

    pooled: float
    chance: tuple[float, float]
    pairs: Paired

    @classmethod
    def of(cls, on: list[Figures], off: list[Figures]) -> Beside:
        pairs = Paired.of([f.p99_ms for f in on], [f.p99_ms for f in off])
        return cls(pooled_p99_ratio(on, off), pooled_interval(on, off), pairs)


@dataclass
class Backend:
    """Every slice of one database, in the order they ran."""

    name: str
    closed_bot: list[Figures] = field(default_factory=list)  # C = plan.concurrency, small
    closed_base: list[Figures] = field(default_factory=list)
    closed_large: list[Figures] = field(default_factory=list)
    single_floor: list[Figures] = field(default_factory=list)  # C = 1
    single_bot: list[Figures] = field(default_factory=list)
    single_base: list[Figures] = field(default_factory=list)
    open_rate: float = 0.0
    open_bot: list[Figures] = field(default_factory=list)
    open_base: list[Figures] = field(default_factory=list)
    boards_on: list[Figures] = field(default_factory=list)
    boards_off: list[Figures] = field(default_factory=list)
    hops_us: list[float] = field(default_factory=list)  # the machine's thread hop, each round
    views_on: list[Figures] = field(default_factory=list)  # open loop, the page read beside
    views_off: list[Figures] = field(default_factory=list)
    live_on: list[Figures] = field(default_factory=list)  # open loop, live boards open beside
    live_off: list[Figures] = field(default_factory=list)
    _beside: dict[str, Beside] | None = field(default=None, init=False, repr=False)

    # Each figure: the median of its paired slices (bench/stats.py), with their spread.

    def rates(self) -> tuple[float, float]:
        """The median rate of the bot's and of the baseline's C = 50 slices."""
        return (
            statistics.median(b.rate for b in self.closed_bot),
            statistics.median(b.rate for b in self.closed_base),
        )

    def throughput(self) -> Paired:
        return Paired.of([b.rate for b in self.closed_bot], [b.rate for b in self.closed_base])

    def limit(self) -> Paired:
        return Paired.of(
            [b.trimmed_ms for b in self.single_bot],
            [
                f.trimmed_ms + b.trimmed_ms
                for f, b in zip(self.single_floor, self.single_base, strict=True)
            ],
        )

    def p99_ratio(self) -> Paired:
        return Paired.of([b.p99_ms for b in self.closed_bot], [b.p99_ms for b in self.closed_base])

    def open_p99_ratio(self) -> Paired:
        return Paired.of([b.p99_ms for b in self.open_bot], [b.p99_ms for b in self.open_base])

    def open_p99_ratio_calm(self) -> Paired | None:
        """`open_p99_ratio` over the pairs whose two slices met no stall of the disk (no flush
        of disk.STALL_MS or more ended within either): the code's tail apart from the disk's.
        Said beside the figure, never instead of it; None where no pair was calm, or the
        flushes were not timed."""
        calm = [
            (bot.p99_ms, base.p99_ms)
            for bot, base in zip(self.open_bot, self.open_base, strict=True)
            if _calm(bot) and _calm(base)
        ]
        if not calm:
            return None
        return Paired.of([bot for bot, _ in calm], [base for _, base in calm])

    def open_cpu_us(self) -> tuple[float, float] | None:
        """The process's CPU a command in the open loop, the bot's and the baseline's (the
        median of their slices): what makes one side's core busier than the other's at the
        same rate."""
        bot = [f.cpu_us for f in self.open_bot if f.cpu_us is not None]
        base = [f.cpu_us for f in self.open_base if f.cpu_us is not None]
        if not bot or not base:
            return None
        return statistics.median(bot), statistics.median(base)

    def scale(self) -> Paired | None:
        if not self.closed_large:
            return None
        return Paired.of(
            [b.per_command_ms for b in self.closed_large],
            [b.per_command_ms for b in self.closed_bot],
        )

    def boards(self) -> Paired | None:
        if not self.boards_on:
            return None
        return Paired.of([b.rate for b in self.boards_on], [b.rate for b in self.boards_off])

    def beside(self) -> dict[str, Beside]:
        """The commands' open-loop p99 with the page read beside them over without
        (`views_p99`), and with live boards open over none (`live_p99`): bench/README.md.
        Worked out once, when the run is over (the redraws take a few seconds)."""
        if self._beside is None:
            pairs = {"views_p99": (self.views_on, self.views_off)}
            pairs["live_p99"] = (self.live_on, self.live_off)
            self._beside = {name: Beside.of(on, off) for name, (on, off) in pairs.items() if on}
        return self._beside

    def figures(self) -> dict[str, Paired]:
        found = {
            "throughput": self.throughput(),
            "limit": self.limit(),
            "p99_ratio": self.p99_ratio(),
            "open_p99_ratio": self.open_p99_ratio(),
        }
        scale = self.scale()
        if scale is not None:
            found["scale"] = scale
        return found


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="the run of a few minutes")
    parser.add_argument("--db", choices=(*BACKENDS, "both"), default="both")
    parser.add_argument("--guilds", type=int, default=200, help="G guilds (default 200)")
    parser.add_argument("--concurrency", type=int, default=50, help="C of the throughput (50)")
    parser.add_argument(
        "--characters",
        type=int,
        nargs=2,
        default=(1_000, 100_000),
        metavar=("SMALL", "LARGE"),
        help="the two database sizes (1000 100000)",
    )
    parser.add_argument("--rounds", type=int, help="paired rounds of each kind (quick 11, full 21)")
    parser.add_argument("--commands", type=int, help="commands of a C = 50 slice (quick 400)")
    parser.add_argument(
        "--pool", type=int, default=10, help="asyncpg pool of the PostgreSQL baseline (10)"
    )
    parser.add_argument(
        "--startup-guilds",
        type=int,
        default=10_000,
        help="start-up and memory measured with this many guilds (0: not measured)",
    )
    parser.add_argument(
        "--no-metrics", action="store_true", help="skip the metrics' own cost (its slices)"
    )
    parser.add_argument(
        "--detail", action="store_true", help="p50 and p99 of each command, C = 50 slices"
    )
    parser.add_argument(
        "--breakdown",
        action="store_true",
        help="also time one command at a time with its trips to the database",
    )
    parser.add_argument(
        "--boards",
        action="store_true",
        help="also pair runs with and without a status board in every guild's channel",
    )
    parser.add_argument(
        "--views",
        type=float,
        default=0.0,
        metavar="RATE",
        help="also pair open-loop slices of the bot with and without its campaign page read at "
        "RATE views a second by another process (5 live boards open), then with and without "
        "the 5 live boards",
    )
    served = parser.add_mutually_exclusive_group()
    served.add_argument(
        "--views-on-loop",
        dest="views_on_loop",
        action="store_const",
        const=True,
        help="with --views: the page served on the bot's own event loop (WEB_PORT serves it "
        "by a page process, on a database in memory on the loop)",
    )
    served.add_argument(
        "--views-apart",
        dest="views_on_loop",
        action="store_const",
        const=False,
        help="with --views: the page served by a page process on either database",
    )
    parser.add_argument(
        "--cores",
        choices=("awake", "idle"),
        default="awake",
        help="while measuring, hold every core awake (a spinner a core that runs only when "
        "nothing else would, SCHED_IDLE: the default, a steady thread hop on both machine kinds) "
        "or let idle cores halt (bench/README.md, 'The machine's thread hop')",
    )
    parser.add_argument(
        "--profile",
        metavar="FILE",
        help="cProfile the first database's C = 50 bot slices; print the top functions, save "
        "stats to FILE",
    )
    return parser.parse_args(argv)


def make_plan(args: argparse.Namespace) -> Plan:
    backends = list(BACKENDS) if args.db == "both" else [args.db]
    quick = args.quick
    return Plan(
        backends=backends,
        guilds=args.guilds,
        small=args.characters[0],
        large=args.characters[1],
        concurrency=args.concurrency,
        rounds=args.rounds or (11 if quick else 21),
        slice_commands=args.commands or (400 if quick else 800),
        single_commands=150 if quick else 300,
        open_seconds=1.5 if quick else 3.0,
        open_rounds=9 if quick else 15,
        warmup=300,
        pool=args.pool,
        startup_guilds=args.startup_guilds,
        metrics=not args.no_metrics,
        detail=args.detail,
        breakdown=args.breakdown,
        boards=args.boards,
        cores=args.cores,
        views=args.views,
        views_rounds=2 * (9 if quick else 15),  # a tail effect: twice the open loop's pairs
        views_on_loop=args.views_on_loop,
        profile=args.profile,
    )


# --- the databases and what runs on them ---------------------------------------------------------


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


class Seeded:
    """One seeded database: its URL, its world, and the characters the slices changed, put
    back as seeded before each slice (every slice starts from the same state: a long load would
    otherwise drain Stamina, and later slices would be cheaper refusals)."""

    def __init__(self, url: str, world: World) -> None:
        self.url = url
        self.world = world
        self.dirty: set[int] = set()
        self._db: Database | None = None

    async def _connected(self) -> Database:
        if self._db is None:
            self._db = await Database.connect(self.url, hot_path=False)
        return self._db

    async def restored(self) -> None:
        db = await self._connected()
        if self.dirty:
            await restore(db, self.world, self.dirty)
            self.dirty.clear()
        await settle(db)

    async def without_boards(self) -> None:
        """Before a bot starts: no board an earlier bot left (bench/world.py's end_boards)."""
        await end_boards(await self._connected())

    async def close(self) -> None:
        if self._db is not None:
            await self._db.close()


class Seeds:
    """A seed for each slice: no two slices send the same commands."""

    def __init__(self, first: int) -> None:
        self._next = first

    def __call__(self) -> int:
        self._next += 1
        return self._next


async def started_bot(place: Seeded, plan: Plan, *, boards: bool = False) -> BotLoad:
    """A bot on `place`, started, warmed up and settled as `python -m bot run` settles."""
    await place.without_boards()
    load = BotLoad(place.url, place.world, SEED, boards=boards)
    await load.start()
    await load.run(plan.warmup, plan.concurrency, SEED + 1, "warm-up")
    place.dirty.update(i for i, _, _ in mix(place.world, plan.warmup, SEED + 1))
    await place.restored()
    loop.settle()
    return load


async def bot_slice(
    load: BotLoad,
    place: Seeded,
    count: int,
    concurrency: int,
    seed_of: int,
    label: str,
    profiler: cProfile.Profile | None = None,
) -> Figures:
    await place.restored()
    payloads = load.payloads(load.plan(count, seed_of))
    if profiler is not None:
        profiler.enable()
    try:
        figures = await load.run_payloads(payloads, concurrency, label)
    finally:
        if profiler is not None:
            profiler.disable()
    place.dirty.update(i for i, _, _ in mix(place.world, count, seed_of))
    return figures


async def base_slice(
    base: Baseline, place: Seeded, count: int, concurrency: int, seed_of: int
) -> Figures:
    await place.restored()
    figures = await baseline.run_closed(base, place.world, count, concurrency, seed_of)
    place.dirty.update(baseline.indexes(place.world, count, seed_of))
    return figures


def floor_payloads(load: BotLoad, count: int, seed_of: int) -> list[dict[str, Any]]:
    """The Discord floor: a command that answers at once, touching nothing, with the same
    speakers and character names as the mix."""
    planned = [(m, NOOP, {"character": o["character"]}) for m, _, o in load.plan(count, seed_of)]
    return load.payloads(planned)


_STEAL = machine.StealMeter()
_FLUSHES = disk.FlushMeter()  # read while the disk probe runs (main)


def show(figures: Figures, detail: bool = False) -> Figures:
    share = _STEAL.since_last()  # this slice's, with the putting back before it
    stolen = "" if share is None else f"  steal {100 * share:.0f} %"
    # The disk's slowest flush in the slice (from its length back; not the put-back before it)
    slowest = _FLUSHES.since_last().since(time.time() - figures.seconds).slowest_ms
    figures.slowest_flush_ms = slowest
    flushed = "" if slowest is None else f"  flush {slowest:.0f} ms"
    print("  " + figures.line() + stolen + flushed, flush=True)
    if detail:
        print("\n".join(figures.detail()), flush=True)
    return figures


async def in_turn(steps: list[Callable[[], Awaitable[None]]], round_number: int) -> None:
    """The steps of one round, reversed every other round (A B, B A, …), so that a machine
    speeding up or slowing down through the run favours neither side of a pair."""
    order = steps if round_number % 2 == 0 else steps[::-1]
    for step in order:
        await step()


# --- one database --------------------------------------------------------------------------------


class Slices:
    """The slices of one database: its two seeded sizes, a started bot on each, the raw-driver
    baseline on the small one, and every figure so far."""

    def __init__(
        self,
        plan: Plan,
        found: Backend,
        places: tuple[Seeded, Seeded],
        base: Baseline,
        bots: tuple[BotLoad, BotLoad],
        profiler: cProfile.Profile | None,
    ) -> None:
        self.plan, self.found, self.base, self.profiler = plan, found, base, profiler
        self.small, self.large = places
        self.bot, self.big = bots
        self.seeds = Seeds(SEED + 100)
        self.name = found.name

    # C = 50: the throughput, the p99 and the scale

    async def closed_rounds(self) -> None:
        plan, c = self.plan, self.plan.concurrency
        print(f"{self.name}: C={c}, {plan.rounds} rounds: baseline, bot, bot at {plan.large:,}")
        for r in range(plan.rounds):
            self.found.hops_us.append(await thread_hop_us())  # the machine, as this round finds it
            s = self.seeds()  # the bot's two sizes get the same commands
            # The bot at the small size in the middle: next to the baseline (the throughput and
            # the p99) and next to itself at the large size (the scale), in either order.
            await in_turn(
                [
                    functools.partial(self._closed_base, s),
                    functools.partial(self._closed_bot, self.small, s),
                    functools.partial(self._closed_bot, self.large, s),
                ],
                r,
            )
        if plan.detail:
            pooled = Figures(f"bot {self.name} C={c}, every slice", 0.0, [])
            for figures in self.found.closed_bot:
                for command, latencies in figures.by_command.items():
                    pooled.by_command.setdefault(command, []).extend(latencies)
            print("\n".join(pooled.detail()), flush=True)

    async def _closed_bot(self, place: Seeded, s: int) -> None:
        c, n = self.plan.concurrency, place.world.characters
        load, into = (self.bot, self.found.closed_bot)
        if place is self.large:
            load, into = (self.big, self.found.closed_large)
        profiler = self.profiler if place is self.small else None
        label = f"bot {self.name} N={n} C={c}"
        figures = await bot_slice(load, place, self.plan.slice_commands, c, s, label, profiler)
        into.append(show(figures))

    async def _closed_base(self, s: int) -> None:
        figures = await base_slice(
            self.base, self.small, self.plan.slice_commands, self.plan.concurrency, s
        )
        self.found.closed_base.append(show(figures))

    # C = 1: the limit

    async def single_rounds(self) -> None:
        print(f"{self.name}: C=1, {self.plan.rounds} rounds: Discord floor, bot, baseline")
        for r in range(self.plan.rounds):
            s = self.seeds()
            # The bot in the middle: next to the floor and to the baseline, in either order.
            steps = [self._floor, self._single_bot, self._single_base]
            await in_turn([functools.partial(step, s) for step in steps], r)

    async def _floor(self, s: int) -> None:
        payloads = floor_payloads(self.bot, self.plan.single_commands, s)
        label = f"discord floor {self.name} C=1"
        self.found.single_floor.append(show(await self.bot.run_payloads(payloads, 1, label)))

    async def _single_bot(self, s: int) -> None:
        label = f"bot {self.name} N={self.plan.small} C=1"
        figures = await bot_slice(self.bot, self.small, self.plan.single_commands, 1, s, label)
        self.found.single_bot.append(show(figures))

    async def _single_base(self, s: int) -> None:
        figures = await base_slice(self.base, self.small, self.plan.single_commands, 1, s)
        self.found.single_base.append(show(figures))

    # An open loop at half the slower one's capacity: the tail at a busy moment

    async def open_rounds(self) -> None:
        found = self.found
        bot_rate, base_rate = found.rates()
        found.open_rate = min(bot_rate, base_rate) / 2
        count = max(100, round(found.open_rate * self.plan.open_seconds))
        print(
            f"{self.name}: open loop, Poisson arrivals at {found.open_rate:.0f}/s (half of the "
            f"slower: bot {bot_rate:.0f}/s, baseline {base_rate:.0f}/s), "
            f"{self.plan.open_rounds} rounds"
        )
        for r in range(self.plan.open_rounds):
            s = self.seeds()
            arrivals = poisson_arrivals(found.open_rate, count, s)  # the same for both
            steps = [self._open_bot, self._open_base]
            await in_turn([functools.partial(step, s, arrivals) for step in steps], r)

    async def _open_bot(self, s: int, arrivals: list[float]) -> None:
        small, count = self.small, len(arrivals)
        await small.restored()
        payloads = self.bot.payloads(self.bot.plan(count, s))
        label = f"bot {self.name} open {self.found.open_rate:.0f}/s"
        figures = await self.bot.run_open(payloads, arrivals, label)
        small.dirty.update(i for i, _, _ in mix(small.world, count, s))
        self.found.open_bot.append(show(figures))

    async def _open_base(self, s: int, arrivals: list[float]) -> None:
        small, count = self.small, len(arrivals)
        await small.restored()
        label = f"open {self.found.open_rate:.0f}/s"
        figures = await baseline.run_open(self.base, small.world, arrivals, s, label)
        small.dirty.update(baseline.indexes(small.world, count, s))
        self.found.open_base.append(show(figures))


async def measure_backend(plan: Plan, backend: str, profiler: cProfile.Profile | None) -> Backend:
    found = Backend(backend)
    async with contextlib.AsyncExitStack() as stack:
        places: list[Seeded] = []
        for n in (plan.small, plan.large):
            url = await stack.enter_async_context(database(backend, f"{backend[:2]}{n}"))
            print(f"{backend}: seeding {n:,} characters in {plan.guilds} guilds", flush=True)
            world = World(plan.guilds, n)
            await seeded(url, world)
            places.append(Seeded(url, world))
            stack.push_async_callback(places[-1].close)
        small, large = places
        base = await open_baseline(small.url, backend, plan.pool)
        stack.push_async_callback(base.close)
        bot = await started_bot(small, plan)
        stack.push_async_callback(bot.close)
        bot.bot.tree.add_command(noop_command())
        big = await started_bot(large, plan)
        stack.push_async_callback(big.close)
        slices = Slices(plan, found, (small, large), base, (bot, big), profiler)
        await slices.closed_rounds()
        await slices.single_rounds()
        await slices.open_rounds()
        if plan.boards:
            await measure_boards(plan, backend, small, found, slices.seeds)
        if plan.views:
            await measure_views(plan, slices)
        if plan.breakdown:
            await small.restored()
            for line in await breakdown(small.url, small.world, 1_000, SEED, backend):
                print(line, flush=True)
    return found


# 12,000 commands: several of the boards' 2-second intervals, so that the boards are edited
# during the slice, not only after it.
BOARD_COMMANDS = 12_000


async def measure_boards(
    plan: Plan, backend: str, place: Seeded, found: Backend, seeds: Seeds
) -> None:
    """Pairs of fresh bots on the small database, one without boards and one with a status
    board in every guild's channel, each a long slice at C."""
    c = plan.concurrency
    print(f"{backend}: boards, {max(3, plan.rounds // 3)} pairs of {BOARD_COMMANDS:,} commands")
    for r in range(max(3, plan.rounds // 3)):
        s = seeds()

        async def one(with_boards: bool, s: int) -> None:
            load = await started_bot(place, plan, boards=with_boards)
            try:
                edits = load.board_edits()
                label = f"bot {backend} C={c}" + (" boards" if with_boards else "")
                figures = await bot_slice(load, place, BOARD_COMMANDS, c, s, label)
                figures.board_edits = load.board_edits() - edits
            finally:
                await load.close()
                await place.without_boards()  # with it: the page of --views lists none of them
            rate = figures.board_edits / figures.seconds
            print(f"  {figures.line()}  {figures.board_edits} board edits ({rate:.1f}/s)")
            (found.boards_on if with_boards else found.boards_off).append(figures)

        await in_turn([functools.partial(one, False, s), functools.partial(one, True, s)], r)


VIEWS_LIVE = 5  # live boards kept open by the page's readers


async def measure_views(plan: Plan, slices: Slices) -> None:
    """Issue 18: a page view must not move the commands' p99. The small bot serves its
    campaign page (as WEB_PORT does: by a page process; `--views-on-loop` and `--views-apart`
    choose), read by another process at `plan.views` a second while a third keeps live boards
    open; open-loop slices at the open rate, the same arrivals with the page views running and
    paused (SIGSTOP), in turn; then the same with the live boards open and closed, the page
    views paused."""
    from bench import web_views

    found, load, small = slices.found, slices.bot, slices.small
    count = max(100, round(found.open_rate * plan.open_seconds))
    async with web_views.beside(
        load, rate=plan.views, live=VIEWS_LIVE, on_loop=plan.views_on_loop
    ) as reader:
        where = "on the bot's loop" if reader.on_loop else "by a page process"
        print(
            f"{found.name}: page views, {plan.views:g}/s beside open-loop slices at "
            f"{found.open_rate:.0f}/s, {plan.views_rounds} pairs, the page served {where}"
        )

        async def one(kind: str, on: bool, s: int, arrivals: list[float]) -> None:
            if kind == "views":  # the live boards open on both sides
                (reader.resume if on else reader.pause)()
            else:  # no page views on either side
                (reader.open_boards if on else reader.close_boards)()
            await small.restored()
            payloads = load.payloads(load.plan(count, s))
            label = f"bot {found.name} open {found.open_rate:.0f}/s" + (f" + {kind}" if on else "")
            figures = await load.run_open(payloads, arrivals, label)
            small.dirty.update(i for i, _, _ in mix(small.world, count, s))
            on_side, off_side = (
                (found.views_on, found.views_off)
                if kind == "views"
                else (found.live_on, found.live_off)
            )
            (on_side if on else off_side).append(show(figures))

        for kind in ("views", "live"):
            if kind == "live":
                reader.pause()
                print(f"{found.name}: live boards, {VIEWS_LIVE} open or none, no page views")
            for r in range(plan.views_rounds):
                s = slices.seeds()
                arrivals = poisson_arrivals(found.open_rate, count, s)
                await in_turn(
                    [functools.partial(one, kind, on, s, arrivals) for on in (True, False)], r
                )
        reader.resume()
        reader.open_boards()


# --- the metrics' own cost ---------------------------------------------------------------------


class _NoMetrics:
    """The bot's metrics hooks, doing nothing: the bot as it would be without metrics."""

    def __getattr__(self, _name: str) -> Callable[..., None]:
        return _nothing


def _nothing(*_args: object, **_kwargs: object) -> None:
    return None


@contextlib.contextmanager
def _hooks_timed(metrics: Any, spent: list[float]) -> Iterator[None]:
    """Time spent in the metrics' command-path hooks (instance attributes over the methods)."""
    names = ("command", "click", "autocomplete")
    for name in names:
        original = getattr(metrics, name)

        def timed(*args: Any, _original: Any = original) -> None:
            start = time.thread_time()  # the hook's CPU: not the GIL's waits at C = 50
            _original(*args)
            spent[0] += time.thread_time() - start

        setattr(metrics, name, timed)
    try:
        yield
    finally:
        for name in names:
            delattr(metrics, name)


_SCRAPER = """
import sys, time, urllib.request
url = sys.argv[1]
print("ready", flush=True)
while True:
    started = time.monotonic()
    urllib.request.urlopen(url, timeout=5).read()
    time.sleep(max(0.0, 1.0 - (time.monotonic() - started)))
"""


@contextlib.contextmanager
def scraper(url: str) -> Iterator[subprocess.Popen[str]]:
    """Another process that GETs `url` every second, as Prometheus would; started once and
    stopped (SIGSTOP) between the slices that it scrapes (SIGCONT), so that its own start-up
    is in none of them."""
    argv = [sys.executable, "-c", _SCRAPER, url]
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        process.stdout.readline()  # imported, about to scrape
        process.send_signal(signal.SIGSTOP)
        yield process
    finally:
        process.kill()
        process.wait()


async def measure_metrics(plan: Plan) -> list[str]:
    """Paired C = 50 slices of one SQLite bot: metrics as shipped, without them (the hooks
    doing nothing), and as shipped with GET /metrics scraped every second by another process
    (as Prometheus would), through the health server's own handler."""
    on: list[Figures] = []
    off: list[Figures] = []
    scraped: list[Figures] = []
    spent = [0.0]
    seeds = Seeds(SEED + 5_000)
    c, count = plan.concurrency, plan.slice_commands * 2
    async with database("sqlite", "metrics") as url:
        world = World(plan.guilds, plan.small)
        await seeded(url, world)
        place = Seeded(url, world)
        load = await started_bot(place, plan)
        health = HealthServer(load.bot, "127.0.0.1", 0)
        port = await health.start()
        metrics = load.bot.metrics

        async def shipped(s: int) -> None:
            with _hooks_timed(metrics, spent):
                on.append(show(await bot_slice(load, place, count, c, s, "metrics on")))

        async def without(s: int) -> None:
            load.bot.metrics = _NoMetrics()  # type: ignore[assignment]
            try:
                off.append(show(await bot_slice(load, place, count, c, s, "metrics off")))
            finally:
                load.bot.metrics = metrics

        async def scraping(s: int, process: subprocess.Popen[str]) -> None:
            process.send_signal(signal.SIGCONT)
            try:
                figures = await bot_slice(load, place, count, c, s, "metrics scraped 1/s")
            finally:
                process.send_signal(signal.SIGSTOP)
            scraped.append(show(figures))

        try:
            with scraper(f"http://127.0.0.1:{port}/metrics") as process:
                print(f"metrics: C={c}, {plan.rounds} rounds: without, as shipped, scraped 1/s")
                for r in range(plan.rounds):
                    s = seeds()
                    # As shipped in the middle: next to each slice it is compared with.
                    steps: list[Callable[[], Awaitable[None]]] = [
                        functools.partial(without, s),
                        functools.partial(shipped, s),
                        functools.partial(scraping, s, process),
                    ]
                    await in_turn(steps, r)
        finally:
            await health.close()
            await load.close()
            await place.close()
    commands = sum(f.commands for f in on)
    cost = Paired.of([f.per_command_ms for f in on], [f.per_command_ms for f in off])
    scrape = Paired.of([f.per_command_ms for f in scraped], [f.per_command_ms for f in on])
    return [
        f"metrics on the command path: {1e6 * spent[0] / max(1, commands):.1f} µs of CPU a "
        f"command in its hooks; per-command time with ÷ without: {cost.describe()}",
        f"metrics scraped every second ÷ not scraped: {scrape.describe()}",
    ]


def measure_startup(guilds: int) -> list[str]:
    """Start-up and memory with `guilds` guilds, in a process of its own (bench/startup.py)."""
    done = subprocess.run(
        [sys.executable, "-m", "bench.startup", "--guilds", str(guilds)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        return [f"start-up: failed ({(done.stderr.strip().splitlines() or ['?'])[-1]})"]
    f = json.loads(done.stdout.strip().splitlines()[-1])
    return [
        f"start-up with {f['guilds']:,} guilds: imports {f['import_s']:.2f} s, setup "
        f"{f['setup_s']:.2f} s, {f['guilds']:,} GUILD_CREATEs {f['guilds_s']:.2f} s",
        f"memory (resident): {f['rss_imported_mb']:.0f} MB imported, {f['rss_setup_mb']:.0f} MB "
        f"set up, {f['rss_ready_mb']:.0f} MB with {f['guilds']:,} guilds "
        f"({1024 * (f['rss_ready_mb'] - f['rss_setup_mb']) / f['guilds']:.1f} KB a guild); "
        f"one GET /metrics {f['scrape_ms']:.1f} ms",
    ]


# --- the whole run ------------------------------------------------------------------------------


async def run(plan: Plan) -> tuple[list[Backend], list[str]]:
    profiler = cProfile.Profile() if plan.profile else None
    measured: list[Backend] = []
    for backend in plan.backends:
        measured.append(await measure_backend(plan, backend, profiler if not measured else None))
    extra = []
    if plan.metrics:
        extra += await measure_metrics(plan)
    if profiler is not None:
        report_profile(profiler, plan.profile, plan.backends[0])
    return measured, extra


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
    print(f"\n--- profile of the {backend} bot slices (main thread), own time by package ---")
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


def _calm(figures: Figures) -> bool:
    slowest = figures.slowest_flush_ms
    return slowest is not None and slowest < disk.STALL_MS


def verdict(name: str, value: float) -> str:
    sign, target = TARGETS[name]
    met = value >= target if sign == "≥" else value <= target
    return f"target {sign} {target}: {'met' if met else 'NOT MET'}"


def report(backends: list[Backend]) -> list[str]:
    lines = []
    for found in backends:
        lines.append(f"{found.name}:")
        for name, paired in found.figures().items():
            rounded = (round_down if name == "throughput" else round_up)(paired.median)
            lines.append(f"  {name:<15} {paired.describe()}  → {rounded}")
        calm = found.open_p99_ratio_calm() if found.name == "postgresql" else None
        if calm is not None:  # SQLite's commits do not wait for a flush (WAL, synchronous=NORMAL)
            lines.append(
                f"  {'… disk calm':<15} {calm.describe()}  (of {len(found.open_bot)}: the pairs "
                f"whose slices met no flush of {disk.STALL_MS:.0f} ms or more; not a figure)"
            )
        cpu = found.open_cpu_us()
        if cpu is not None:
            busy = [us * found.open_rate / 1e6 for us in cpu]
            lines.append(
                f"  {'open loop cpu':<15} bot {cpu[0]:.0f} µs, baseline {cpu[1]:.0f} µs of the "
                f"process's CPU a command: at {found.open_rate:.0f}/s a core {busy[0]:.2f} and "
                f"{busy[1]:.2f} busy"
            )
        boards = found.boards()
        if boards is not None:
            lines.append(f"  {'boards':<15} {boards.describe()}")
        for name, beside in found.beside().items():
            low, high = beside.chance
            lines.append(
                f"  {name:<15} pooled {beside.pooled:.3f} (90 % of redraws {low:.3f}–{high:.3f})"
                f"  per pair {beside.pairs.describe()}  (open loop, {_BESIDE[name]})"
                f"  → {round_up(beside.pooled)}"
            )
        if found.hops_us:
            hops = sorted(found.hops_us)
            lines.append(
                f"  {'thread hop':<15} median {statistics.median(hops):.0f} µs  "
                f"all {hops[0]:.0f}–{hops[-1]:.0f} µs  (the machine's, before each C = 50 round)"
            )
    return lines


_BESIDE = {"views_p99": "read ÷ not", "live_p99": "live boards open ÷ none"}


def summary(backends: list[Backend]) -> str:
    """The closing line: each figure the median of its paired slices, the worse database's
    where there are two, rounded away from its target (a miss never prints as a pass)."""
    parts = []
    by_name = {found.name: found for found in backends}
    for backend in BACKENDS:
        found = by_name.get(backend)
        parts.append(
            f"{backend}={round_down(found.throughput().median)}" if found else f"{backend}=skipped"
        )
    for name in ("limit", "p99_ratio", "open_p99_ratio", "scale"):
        values = [f.figures()[name].median for f in backends if name in f.figures()]
        if values:
            parts.append(f"{name}={round_up(max(values))}")
    boards = [b.median for b in (f.boards() for f in backends) if b is not None]
    if boards:
        parts.append(f"boards={round_down(min(boards))}")
    for name in _BESIDE:
        pooled = [f.beside()[name].pooled for f in backends if name in f.beside()]
        if pooled:
            parts.append(f"{name}={round_up(max(pooled))}")
    return "bot/baseline " + " ".join(parts)


def held_awake(cores: str) -> bool:
    """Whether to hold every core awake while measuring; the thread hop both ways, printed
    first (what the machine does with its idle cores)."""
    held, idle = hop.compare()
    print(
        f"thread hop: {held:.0f} µs with every core held awake, {idle:.0f} µs let idle; "
        f"measuring {'held awake' if cores == 'awake' else 'let idle'}",
        flush=True,
    )
    return cores == "awake"


def verdicts(backends: list[Backend]) -> str:
    missed = []
    for found in backends:
        for name, paired in found.figures().items():
            if "NOT MET" in verdict(name, paired.median):
                missed.append(f"{found.name} {name}")
    return "every target met" if not missed else "targets NOT met: " + ", ".join(missed)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    plan = make_plan(args)
    logging.basicConfig(level=logging.WARNING)
    logging.getLogger("discord.client").setLevel(logging.ERROR)  # no voice support: not news
    logging.getLogger("aiohttp.access").setLevel(logging.WARNING)
    if "postgresql" in plan.backends and postgres_server() is None:
        plan.backends.remove("postgresql")
        print("PostgreSQL left out: set BENCH_DATABASE_URL or TEST_DATABASE_URL to a server.")
        if not plan.backends:
            print("nothing to measure: run with --db sqlite, or name a PostgreSQL server")
            return 2
    started = datetime.now(UTC)
    print(f"machine: {machine.describe()}")
    print(f"started {started:%Y-%m-%d %H:%M} UTC")
    extra = measure_startup(plan.startup_guilds) if plan.startup_guilds else []
    extra += ["a message built as layout components and as its embed (bench/layout_cost.py):"]
    extra += ["  " + line for line in asyncio.run(layout_cost.measure(2000))]
    with awake(held_awake(plan.cores)), disk.probing(_FLUSHES):
        before = machine.CpuTimes.read()
        backends, more = loop.run(run(plan))  # the bot's own event loop, baseline and bot alike
        after = machine.CpuTimes.read()
    print(f"machine after: {machine.describe()}")
    print(machine.described_steal(before, after))
    print(_FLUSHES.run().described())
    print(f"ended {datetime.now(UTC):%H:%M} UTC ({(datetime.now(UTC) - started).seconds} s)")
    for line in [*extra, *more, *report(backends)]:
        print(line)
    for found in backends:
        for name, paired in found.figures().items():
            print(f"  {found.name} {name}: {verdict(name, paired.median)}")
    print(verdicts(backends))
    print(summary(backends))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
