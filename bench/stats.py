"""Figures of one measured run: throughput and latency percentiles."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field


@dataclass
class Figures:
    """One run: `latencies` in seconds, one per command, from issue to answer."""

    label: str
    seconds: float
    latencies: list[float]
    refused: int = 0
    errors: int = 0
    by_command: dict[str, list[float]] = field(default_factory=dict)
    board_edits: int = 0  # status-board edits made during the run

    @property
    def commands(self) -> int:
        return len(self.latencies)

    @property
    def rate(self) -> float:
        return self.commands / self.seconds if self.seconds else 0.0

    @property
    def per_command_ms(self) -> float:
        """Wall time per command: the figure the scale target compares."""
        return 1000 * self.seconds / self.commands if self.commands else 0.0

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
        return (
            f"{self.label:<34} {self.commands:>6} cmds {self.rate:>8.0f}/s  "
            f"p50 {self.p50_ms:6.1f} ms  p99 {self.p99_ms:6.1f} ms{extra}"
        )

    def detail(self) -> list[str]:
        """p50 and p99 of each command of the run."""
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
    """Nearest-rank percentile of an already sorted sequence."""
    if not ordered:
        return 0.0
    rank = max(0, min(len(ordered) - 1, round(q * len(ordered) + 0.5) - 1))
    return ordered[rank]


async def closed_loop(
    jobs: Sequence[Callable[[], Awaitable[object]]], concurrency: int
) -> tuple[float, list[float]]:
    """Run `jobs` with `concurrency` of them in flight at all times (a new one starts as soon as
    one finishes). Returns the wall time and each job's latency, in seconds."""
    latencies: list[float] = []
    queue = iter(jobs)

    async def worker() -> None:
        for job in queue:  # one shared iterator: each job runs exactly once
            start = time.perf_counter()
            await job()
            latencies.append(time.perf_counter() - start)

    start = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    return time.perf_counter() - start, latencies
