"""The machine's thread hop: one round trip from the event loop to a waiting thread and back,
as aiosqlite makes for every statement (the raw SQLite baseline makes seven a command, the bot
one a write). Its cost is the machine's, not the code's, and the SQLite baseline's rate follows
it. On a 2-core AMD EPYC VM: 25 µs while the other core was busy and 50–170 µs while it idled
(a halted virtual CPU is slow to wake). On a 2-core Intel Xeon VM: 43–52 µs with a spinner on
the other core, and with it idle 7–14 µs at times, 65–80 µs at others (as during whole
benchmark runs). So the benchmark holds every core awake (`awake`, the steady regime on both)
and prints the hop both ways first (`compare`) and before every round, so that a ratio that
moved between runs says whether the machine moved it."""

from __future__ import annotations

import asyncio
import contextlib
import os
import queue
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Iterator

HOPS = 200  # about 5–40 ms: short enough to take before every round
# A core that would idle runs this instead: never halted, it wakes a thread at once. SCHED_IDLE
# runs only when no other thread of the machine wants that core. It calls the scheduler at every
# turn (sched_yield) rather than spin in Python alone: a spinner that only waited to be
# preempted left some wake-ups (a PostgreSQL commit's, after its fdatasync) waiting for the next
# tick, 4 ms, on the Intel Xeon of bench/README.md ("The machine's thread hop"). It ends when
# the benchmark does (it is given to another parent then), even one killed before the spinner
# started: left behind, spinners would hold the cores awake for every later run.
_SPIN = (
    "import os\n"
    "os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))\n"
    "while os.getppid() == {parent}: os.sched_yield()"
)


Jobs = queue.SimpleQueue[asyncio.Future[None] | None]  # None: stop


def _echo(jobs: Jobs, loop: asyncio.AbstractEventLoop) -> None:
    while (future := jobs.get()) is not None:
        loop.call_soon_threadsafe(future.set_result, None)


async def thread_hop_us(hops: int = HOPS) -> float:
    """The median of `hops` round trips to a thread that waits on a queue, in µs."""
    loop = asyncio.get_running_loop()
    jobs: Jobs = queue.SimpleQueue()
    thread = threading.Thread(target=_echo, args=(jobs, loop), name="bench-hop", daemon=True)
    thread.start()
    times = []
    try:
        for _ in range(hops):
            future = loop.create_future()
            started = time.perf_counter()
            jobs.put(future)
            await future
            times.append(time.perf_counter() - started)
    finally:
        jobs.put(None)
        thread.join()
    return 1e6 * statistics.median(times)


@contextlib.contextmanager
def awake(on: bool = True) -> Iterator[list[int]]:
    """While the block runs (`on`), no core of the machine idles: one SCHED_IDLE spinner a
    core. Yields their process ids."""
    if not on:
        yield []
        return
    cores = os.cpu_count() or 1
    spin = _SPIN.format(parent=os.getpid())
    spinners = [subprocess.Popen([sys.executable, "-c", spin]) for _ in range(cores)]
    try:
        yield [spinner.pid for spinner in spinners]
    finally:
        for spinner in spinners:
            spinner.kill()
            spinner.wait()


def compare(rounds: int = 5) -> tuple[float, float]:
    """The thread hop (µs, the median of `rounds` measures each) with every core held awake and
    with idle cores let halt, in turn: what this machine does with an idle core (the module's
    docstring). Taken right after the spinners stop, the idle figure is the best it gets."""
    held, idle = [], []
    for _ in range(rounds):
        with awake(True):
            time.sleep(0.1)  # the spinners running
            held.append(asyncio.run(thread_hop_us()))
        idle.append(asyncio.run(thread_hop_us()))
    return statistics.median(held), statistics.median(idle)
