"""The event loop polls instead of sleeping while a round trip to PostgreSQL is in flight.

Between a query's send and its answer an idle loop sleeps in the kernel and is woken by the
answer. One command at a time, those sleeps and wake-ups cost the bot's process about 150 µs of
CPU a command on PostgreSQL (370–410 µs a command at C = 1 against 210–220 at C = 50), most of
it the same instructions run slower on caches the sleep let go cold (bench/README.md,
"PostgreSQL, in groups"). So while a hot-path round trip is in flight the loop keeps turning, each
turn polling for the answer and then giving its core to any other process that wants it
(`sched_yield`: the server's own processes, another shard), for at most SPIN_S a round trip;
then it sleeps as before. Nothing is armed by an idle bot, and a busy one has other work to run
between its round trips, so the turns only fill a wait that would otherwise be a sleep.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable

# About one round trip on the same machine (a load 100–150 µs, a commit 300–400): a slower
# server, or one across a network, is waited for in the kernel after this.
SPIN_S = 300e-6

_give_way: Callable[[], None] = getattr(os, "sched_yield", lambda: None)


class Spinner:
    """One event loop's polling, armed by the round trips in flight on it."""

    __slots__ = ("_in_flight", "_loop", "_until", "turns")

    def __init__(self) -> None:
        self._in_flight = 0
        self._until = 0.0
        self._loop: asyncio.AbstractEventLoop | None = None  # while armed
        self.turns = 0  # the loop's turns spent polling, in all (the tests read it)

    @property
    def armed(self) -> bool:
        return self._loop is not None

    @property
    def in_flight(self) -> int:
        return self._in_flight

    def enter(self) -> None:
        """A round trip was sent: poll for its answer, for at most SPIN_S from now."""
        self._in_flight += 1
        self._until = time.perf_counter() + SPIN_S
        loop = asyncio.get_running_loop()
        if self._loop is not loop:  # not armed (or armed on a loop that has ended since)
            self._loop = loop
            loop.call_soon(self._turn)

    def leave(self) -> None:
        """A round trip ended, answered or failed."""
        self._in_flight -= 1

    def _turn(self) -> None:
        loop = self._loop
        assert loop is not None
        self.turns += 1
        _give_way()
        if self._in_flight and time.perf_counter() < self._until:
            loop.call_soon(self._turn)  # the loop polls without sleeping, then runs this again
        else:
            self._loop = None
