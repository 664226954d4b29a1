"""Figures of one measured slice (throughput, latency percentiles), the two ways of loading a
system (closed loop, open loop), and how paired slices become one figure."""

from __future__ import annotations

import asyncio
import math
import random
import statistics
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field

# A job returns the time.perf_counter() moment its answer was complete where that came before
# its task ran again (the bot's: when the answer reached the seam standing in for Discord, not
# a pass of the event loop's queue later), or None: when it returns.
Job = Callable[[], Awaitable[float | None]]
TRIM = 0.05  # of the slowest commands of a C = 1 slice, left out of its time (trimmed_ms)


@dataclass
class Figures:
    """One slice: `latencies` in seconds, one per command, from issue (or, in an open loop,
    from its scheduled arrival) to answer."""

    label: str
    seconds: float
    latencies: list[float]
    refused: int = 0
    errors: int = 0
    by_command: dict[str, list[float]] = field(default_factory=dict)
    board_edits: int = 0  # status-board edits made during the slice
    # The process's CPU time over the slice (every thread, user and system; not the database
    # server's): what a command costs the core its event loop runs on, busy or not.
    cpu_seconds: float | None = None
    # The disk's slowest flush that ended within the slice (bench/disk.py), once shown.
    slowest_flush_ms: float | None = None

    @property
    def commands(self) -> int:
        return len(self.latencies)

    @property
    def rate(self) -> float:
        return self.commands / self.seconds if self.seconds else 0.0

    @property
    def per_command_ms(self) -> float:
        """Wall time per command (at C = 1, one command's whole cost)."""
        return 1000 * self.seconds / self.commands if self.commands else 0.0

    @property
    def trimmed_ms(self) -> float:
        """One command's time at C = 1, robust to the machine's neighbours: the mean latency
        with the slowest TRIM of the slice left out (on a shared machine another process
        preempts a few commands of every slice for milliseconds; that is not the code's
        cost, and it moved the plain mean by a third from one slice to the next)."""
        ordered = sorted(self.latencies)
        kept = ordered[: max(1, len(ordered) - math.floor(TRIM * len(ordered)))]
        return 1000 * statistics.fmean(kept) if kept else 0.0

    @property
    def cpu_us(self) -> float | None:
        """The process's CPU a command, in µs."""
        if self.cpu_seconds is None or not self.commands:
            return None
        return 1e6 * self.cpu_seconds / self.commands

    def percentile_ms(self, q: float) -> float:
        return 1000 * percentile(sorted(self.latencies), q)

    @property
    def p50_ms(self) -> float:
        return self.percentile_ms(0.50)

    @property
    def p99_ms(self) -> float:
        return self.percentile_ms(0.99)

    def line(self) -> str:
        extra = f"  refused {self.refused}" if self.refused else ""
        extra += f"  ERRORS {self.errors}" if self.errors else ""
        cpu = self.cpu_us
        extra += f"  cpu {cpu:.0f} µs" if cpu is not None else ""
        return (
            f"{self.label:<34} {self.commands:>6} cmds {self.rate:>8.0f}/s  "
            f"p50 {self.p50_ms:6.1f} ms  p99 {self.p99_ms:6.1f} ms{extra}"
        )

    def detail(self) -> list[str]:
        """p50 and p99 of each command of the slice."""
        lines = []
        for command, latencies in sorted(self.by_command.items()):
            ordered = sorted(latencies)
            lines.append(
                f"    {command:<30} {len(ordered):>6} cmds          "
                f"p50 {1000 * percentile(ordered, 0.5):6.1f} ms  "
                f"p99 {1000 * percentile(ordered, 0.99):6.1f} ms"
            )
        return lines


def percentile(ordered: Sequence[float], q: float) -> float:
    """Nearest-rank percentile of an already sorted sequence: the smallest value with at least
    q of them at or below it (the 99th of 100 for p99)."""
    if not ordered:
        return 0.0
    rank = max(0, min(len(ordered) - 1, math.ceil(q * len(ordered) - 1e-9) - 1))
    return ordered[rank]


# --- loading a system ----------------------------------------------------------------------------


def ended(answered_at: float | None) -> float:
    """When a job's command ended: the moment it says it was answered, else now."""
    return time.perf_counter() if answered_at is None else answered_at


async def measured(label: str, loop: Awaitable[tuple[float, list[float]]]) -> Figures:
    """The figures of one slice run by `loop` (closed_loop or open_loop, not yet started), with
    the process's CPU over it."""
    cpu = time.process_time()
    seconds, latencies = await loop
    return Figures(label, seconds, latencies, cpu_seconds=time.process_time() - cpu)


async def closed_loop(jobs: Sequence[Job], concurrency: int) -> tuple[float, list[float]]:
    """Run `jobs` with `concurrency` of them in flight at all times (a new one starts as soon as
    one finishes). Returns the wall time and each job's latency, in seconds."""
    latencies: list[float] = []
    queue = iter(jobs)

    async def worker() -> None:
        for job in queue:  # one shared iterator: each job runs exactly once
            start = time.perf_counter()
            latencies.append(ended(await job()) - start)

    start = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    return time.perf_counter() - start, latencies


def poisson_arrivals(rate: float, count: int, seed: int) -> list[float]:
    """`count` arrival times (seconds from 0) of a Poisson process of `rate` a second: gaps
    drawn from the exponential distribution by a generator of its own, so the same seed gives
    the same arrivals, to the bot and to the baseline alike."""
    if rate <= 0:
        raise ValueError("a Poisson process needs a positive rate")
    rng = random.Random(seed)
    arrivals, t = [], 0.0
    for _ in range(count):
        t += rng.expovariate(rate)
        arrivals.append(t)
    return arrivals


async def open_loop(jobs: Sequence[Job], arrivals: Sequence[float]) -> tuple[float, list[float]]:
    """Start job i at arrivals[i] seconds, however many are still in flight (an open loop: the
    members do not wait for each other). A job's latency runs from its scheduled arrival, not
    from when it was started: a late start is queueing the system caused, and counts."""
    if len(jobs) != len(arrivals):
        raise ValueError("one arrival per job")
    latencies: list[float] = []
    tasks: set[asyncio.Task[None]] = set()

    async def timed(job: Job, due: float) -> None:
        latencies.append(ended(await job()) - due)

    start = time.perf_counter()
    for job, at in zip(jobs, arrivals, strict=True):
        due = start + at
        wait = due - time.perf_counter()
        if wait > 0:
            await asyncio.sleep(wait)
        task = asyncio.create_task(timed(job, due))
        tasks.add(task)
        task.add_done_callback(tasks.discard)
    while tasks:
        await asyncio.gather(*tasks)
    return time.perf_counter() - start, latencies


def pooled_p99_ratio(numerators: Sequence[Figures], denominators: Sequence[Figures]) -> float:
    """The p99 of every latency of the first slices over that of the second's. For a tail
    effect smaller than the slices' own spread: a 1.5 s slice's p99 is its 14th-slowest
    command, which one stall of the machine moves by half; pooled over 18 such pairs it is
    about the 250th, of both sides in the same minutes (the slices alternate)."""

    def p99(slices: Sequence[Figures]) -> float:
        return percentile(sorted(x for f in slices for x in f.latencies), 0.99)

    return p99(numerators) / p99(denominators)


def pooled_interval(
    numerators: Sequence[Figures],
    denominators: Sequence[Figures],
    *,
    level: float = 0.9,
    resamples: int = 400,
    seed: int = 0,
) -> tuple[float, float]:
    """How far `pooled_p99_ratio` could have moved by chance: the pairs drawn again with
    replacement (a pair's two slices together: they share their minutes), `resamples` times,
    and the middle `level` of the ratios those draws give (a percentile bootstrap). An
    interval that holds 1 says the run cannot tell the two sides' p99s apart."""
    if len(numerators) != len(denominators) or not numerators:
        raise ValueError("paired slices: as many of each, at least one")
    # A p99 of the pooled latencies is among each slice's slowest 1 % of the largest pool a
    # draw can make: only those are kept, slowest first, so a draw sorts little.
    most = len(numerators) * max(f.commands for f in (*numerators, *denominators))
    keep = _from_top(most) + 1

    def tails(slices: Sequence[Figures]) -> list[tuple[int, list[float]]]:
        return [(f.commands, sorted(f.latencies, reverse=True)[:keep]) for f in slices]

    def p99(drawn: list[tuple[int, list[float]]]) -> float:
        slowest = sorted((x for _, tail in drawn for x in tail), reverse=True)
        return slowest[_from_top(sum(n for n, _ in drawn))]

    tops, bottoms = tails(numerators), tails(denominators)
    draw = random.Random(seed)
    ratios = []
    for _ in range(resamples):
        pairs = draw.choices(range(len(tops)), k=len(tops))
        ratios.append(p99([tops[i] for i in pairs]) / p99([bottoms[i] for i in pairs]))
    ratios.sort()
    cut = (1 - level) / 2
    return ratios[int(cut * resamples)], ratios[math.ceil((1 - cut) * resamples) - 1]


def _from_top(count: int) -> int:
    """Where `percentile`'s p99 of `count` values stands, counted from the slowest (0)."""
    return count - 1 - max(0, min(count - 1, math.ceil(0.99 * count - 1e-9) - 1))


# --- paired slices ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Paired:
    """One figure from paired slices: the median of the per-pair ratios, and their spread.
    The median, not the mean: one slice that met a stall of the machine moves it by one rank."""

    ratios: tuple[float, ...]

    @classmethod
    def of(cls, numerators: Sequence[float], denominators: Sequence[float]) -> Paired:
        if len(numerators) != len(denominators) or not numerators:
            raise ValueError("paired slices: as many of each, at least one")
        return cls(tuple(n / d for n, d in zip(numerators, denominators, strict=True)))

    @property
    def median(self) -> float:
        return statistics.median(self.ratios)

    @property
    def low(self) -> float:
        return min(self.ratios)

    @property
    def high(self) -> float:
        return max(self.ratios)

    @property
    def quartiles(self) -> tuple[float, float]:
        """The middle half of the ratios (with fewer than 4, the whole range)."""
        if len(self.ratios) < 4:
            return self.low, self.high
        q = statistics.quantiles(self.ratios, n=4, method="inclusive")
        return q[0], q[2]

    def describe(self) -> str:
        q1, q3 = self.quartiles
        return (
            f"median {self.median:.3f}  middle half {q1:.3f}–{q3:.3f}  "
            f"all {self.low:.3f}–{self.high:.3f}  ({len(self.ratios)} pairs)"
        )


# Each figure of the summary is rounded away from its target, so that a miss never prints as a
# pass. The 1e-9 keeps a figure that is exactly on a step (0.29 is 28.999…/100 in floating
# point) on that step.


def round_down(x: float, places: int = 2) -> str:
    """For a figure whose target is a floor (a throughput ratio)."""
    if not math.isfinite(x):
        return str(x)
    return f"{math.floor(x * 10**places + 1e-9) / 10**places:.{places}f}"


def round_up(x: float, places: int = 2) -> str:
    """For a figure whose target is a ceiling (a time ratio, the scale)."""
    if not math.isfinite(x):
        return str(x)
    return f"{math.ceil(x * 10**places - 1e-9) / 10**places:.{places}f}"
