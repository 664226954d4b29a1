"""SQLite writers of several processes (bot shards) take turns promptly.

BEGIN IMMEDIATE alone is correct but unfair: a process that finds the database locked sleeps in
SQLite's busy handler (up to 100 ms a try) while the writing process takes the lock again at
once, so one shard can starve the other. A POSIX flock on a side file orders the queue; SQLite's
own locking still guards the data, and where fcntl is missing (Windows) this lock is skipped.
Every wait for it is bounded (busy.py): past its deadline it gives up, and nothing was written.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from collections.abc import AsyncIterator

from bot.db.busy import Busy, remaining

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

_POLL_S = (0.0005, 0.001, 0.002, 0.005)  # backing off: short waits are the common ones


class ProcessWriteLock:
    def __init__(self, database_path: str) -> None:
        self._path = f"{database_path}-lock"
        self._fd: int | None = None

    def _open(self) -> int:
        if self._fd is None:
            self._fd = os.open(self._path, os.O_RDWR | os.O_CREAT, 0o644)
        return self._fd

    def _try(self) -> bool:
        try:
            fcntl.flock(self._open(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True

    def acquire_in_thread(self, until: float) -> None:
        """Take it in a thread that may block (the SQLite writer), or raise Busy at `until`."""
        step = 0
        while not self._try():
            if time.monotonic() >= until:
                raise Busy()
            time.sleep(_POLL_S[min(step, len(_POLL_S) - 1)])
            step += 1

    @contextlib.asynccontextmanager
    async def held(self, until: float) -> AsyncIterator[None]:
        """On the event loop: waits without blocking it, or raises Busy at `until`."""
        step = 0
        while not self._try():
            if remaining(until) == 0:
                raise Busy()
            await asyncio.sleep(_POLL_S[min(step, len(_POLL_S) - 1)])
            step += 1
        try:
            yield
        finally:
            self.release()

    def release(self) -> None:
        if self._fd is not None:
            fcntl.flock(self._fd, fcntl.LOCK_UN)

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


def process_write_lock(database_path: str | None) -> ProcessWriteLock | None:
    if fcntl is None or not database_path or database_path == ":memory:":
        return None
    return ProcessWriteLock(database_path)
