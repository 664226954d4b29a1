"""The machine's disk while the benchmark measures. Every PostgreSQL commit waits for its WAL
to be flushed, and on this project's machines a flush now and then stalls for 20–180 ms, in
the slices of either side: one stall decides a slice's p99, and so the open loop's pair
(bench/README.md, "What is left"). So a process of its own flushes 8 KB every FLUSH_EVERY_S
beside the run, in the temporary directory (the database server's disk on this project's
machines), and the run says each slice's slowest flush at the end of its line and what the
flushes were over the run: a ratio that a stall decided says so."""

from __future__ import annotations

import contextlib
import os
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

FLUSH_EVERY_S = 0.02  # 50 a second: a few percent of the server's own flushes at the open rate
STALL_MS = 20.0  # a flush this slow holds every commit behind it for a slice's p99

# At nice 19: its own wake-ups give way to the measured process; only the flush is timed. It
# ends when the benchmark does (it is given to another parent then), as the spinners do.
_PROBE = """
import os, sys, time
folder, parent, every = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
os.nice(19)
fd = os.open(os.path.join(folder, "flushed"), os.O_WRONLY | os.O_CREAT, 0o600)
block = bytes(8192)
written = 0
while os.getppid() == parent:
    os.pwrite(fd, block, (written % 64) * 8192)
    written += 1
    started = time.perf_counter()
    os.fdatasync(fd)
    print(f"{time.time():.4f} {1e3 * (time.perf_counter() - started):.3f}", flush=True)
    time.sleep(every)
"""


@dataclass(frozen=True)
class Flush:
    ended: float  # the wall clock (time.time()) as it returned
    ms: float


@dataclass(frozen=True)
class Flushes:
    """Flushes in the order they were timed."""

    timed: tuple[Flush, ...]

    @property
    def ms(self) -> tuple[float, ...]:
        return tuple(flush.ms for flush in self.timed)

    def since(self, start: float) -> Flushes:
        """Those that held a commit made at `start` or later: that ended since."""
        return Flushes(tuple(flush for flush in self.timed if flush.ended >= start))

    @property
    def slowest_ms(self) -> float | None:
        return max(self.ms) if self.ms else None

    @property
    def stalls(self) -> int:
        return sum(1 for ms in self.ms if ms >= STALL_MS)

    def described(self) -> str:
        """The run's line: `disk: …`."""
        if not self.ms:
            return "disk: unknown (no flush timed)"
        ordered = sorted(self.ms)
        p99 = ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]
        return (
            f"disk: 8 KB flushed every {1e3 * FLUSH_EVERY_S:.0f} ms beside the run, "
            f"{len(ordered)} flushes: p50 {statistics.median(ordered):.2f} ms, "
            f"p99 {p99:.1f} ms, slowest {ordered[-1]:.0f} ms; "
            f"{self.stalls} of {STALL_MS:.0f} ms or more"
        )


class FlushMeter:
    """Reads the probe's log: each slice's flushes since the last reading, and the run's."""

    def __init__(self) -> None:
        self._log: Path | None = None
        self._read = 0  # bytes of the log read so far
        self._all: list[Flush] = []

    def attach(self, log: Path | None) -> None:
        self._log, self._read = log, 0

    def since_last(self) -> Flushes:
        if self._log is None:
            return Flushes(())
        with contextlib.suppress(OSError), self._log.open("rb") as log:
            log.seek(self._read)
            text = log.read()
            complete = text[: text.rfind(b"\n") + 1]  # a line being written waits for the next
            self._read += len(complete)
            new = [Flush(*map(float, line.split())) for line in complete.splitlines()]
            self._all.extend(new)
            return Flushes(tuple(new))
        return Flushes(())

    def run(self) -> Flushes:
        """Every flush timed so far (after a last reading)."""
        self.since_last()
        return Flushes(tuple(self._all))


@contextlib.contextmanager
def probing(meter: FlushMeter, every_s: float = FLUSH_EVERY_S) -> Iterator[None]:
    """While the block runs, the probe flushes and `meter` reads what it timed."""
    with tempfile.TemporaryDirectory(prefix="lastgasp-bench-disk-") as folder:
        log = Path(folder) / "flushes"
        with log.open("wb") as out:
            argv = [sys.executable, "-c", _PROBE, folder, str(os.getpid()), str(every_s)]
            probe = subprocess.Popen(argv, stdout=out)
        meter.attach(log)
        try:
            yield
        finally:
            meter.run()  # its last lines, before the log goes
            meter.attach(None)
            probe.kill()
            probe.wait()
