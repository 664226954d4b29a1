"""The event loop the bot runs on, and its garbage collector.

uvloop where it is installed (a dependency on Linux and macOS), the standard library's loop
elsewhere: uvloop runs the same asyncio code with its loop and its sockets in C, a tenth less
CPU a command. The collector: Python collects its youngest objects after every 700 new ones
and, every hundred such rounds, walks every live object, discord.py's caches included, which
stalled every command in flight for 100 ms and more under load. Collecting less often, and the
objects of the start (modules, classes, schemas) frozen out of every collection, keeps the p99
of a command near its median (bench/README.md)."""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Callable, Coroutine
from importlib import metadata
from typing import Any, TypeVar

T = TypeVar("T")

# Generation 0 collected after this many new objects (Python's default: 700); the older
# generations after 10 and 100 collections of the one below (default 10 and 10).
GC_THRESHOLDS = (10_000, 10, 100)


def loop_factory() -> Callable[[], asyncio.AbstractEventLoop] | None:
    try:
        import uvloop
    except ImportError:
        return None
    return uvloop.new_event_loop


def name() -> str:
    """`uvloop 0.21.0` or `asyncio`: what the benchmark reports it ran on."""
    if loop_factory() is None:
        return "asyncio"
    return f"uvloop {metadata.version('uvloop')}"


def settle() -> None:
    """What exists now lives as long as the process (modules, the bot, its caches): collected
    once, then never walked again. Called at the start and once the bot is ready."""
    gc.collect()
    gc.freeze()


def tune_collector() -> None:
    settle()
    gc.set_threshold(*GC_THRESHOLDS)


def run(main: Coroutine[Any, Any, T]) -> T:
    """asyncio.run on the bot's event loop, with the collector tuned for a long-lived server."""
    tune_collector()
    with asyncio.Runner(loop_factory=loop_factory()) as runner:
        return runner.run(main)
