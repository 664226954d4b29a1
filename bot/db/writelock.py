"""SQLite writers of several processes (bot shards) take turns promptly.

BEGIN IMMEDIATE alone is correct but unfair: a process that finds the database locked sleeps in
SQLite's busy handler (up to 100 ms a try) while the writing process takes the lock again at
once, so one shard can starve the other. A POSIX flock on a side file wakes the waiter the
moment the lock is free. SQLite's own locking still guards the data: this lock only orders the
queue, and where fcntl is missing (Windows) it is skipped.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import AsyncIterator, Callable, Iterator

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]


class ProcessWriteLock:
    def __init__(self, database_path: str, timeout: float) -> None:
        self._path = f"{database_path}-lock"
        self._timeout = timeout
        self._fd: int | None = None
        # A wait that timed out or was cancelled: its thread may still take the lock.
        self._abandoned: asyncio.Future[None] | None = None

    @contextlib.asynccontextmanager
    async def held(self) -> AsyncIterator[None]:
        """Callers are already serialised within the process (one flock per open file)."""
        fd = await self._acquire()
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)

    @contextlib.contextmanager
    def held_in_thread(self) -> Iterator[None]:
        """For a thread of its own that may block (the hot path's SQLite writer): waits in the
        kernel, woken the moment the lock is free. Another process holds it only for the
        length of its transactions, and its death releases it."""
        fd = self._open()
        fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)

    def _open(self) -> int:
        if self._fd is None:
            self._fd = os.open(self._path, os.O_RDWR | os.O_CREAT, 0o644)
        return self._fd

    async def _acquire(self) -> int:
        if self._abandoned is not None:
            # Not `await`: that would cancel it (and leak the lock) if we were cancelled.
            await asyncio.wait({self._abandoned})
            self._abandoned = None
        fd = self._open()
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return fd
        except BlockingIOError:
            pass
        waiting = asyncio.ensure_future(asyncio.to_thread(fcntl.flock, fd, fcntl.LOCK_EX))
        try:
            await asyncio.wait_for(asyncio.shield(waiting), self._timeout)
        except BaseException:
            # Timed out or cancelled: give the lock back as soon as the thread gets it.
            waiting.add_done_callback(_give_back(fd))
            self._abandoned = waiting
            raise
        return fd

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


def _give_back(fd: int) -> Callable[[asyncio.Future[None]], None]:
    def callback(done: asyncio.Future[None]) -> None:
        if not done.cancelled() and done.exception() is None:
            fcntl.flock(fd, fcntl.LOCK_UN)

    return callback


def process_write_lock(database_path: str | None, timeout: float) -> ProcessWriteLock | None:
    if fcntl is None or not database_path or database_path == ":memory:":
        return None
    return ProcessWriteLock(database_path, timeout)
