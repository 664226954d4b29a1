"""SQLite writers of several processes (bot shards) take turns, in order.

BEGIN IMMEDIATE alone is correct but unfair: a process that finds the database locked sleeps in
SQLite's busy handler (up to 100 ms a try) while the writing process takes the lock again at
once, so one shard can starve the other. POSIX flocks on two side files make a queue; SQLite's
own locking still guards the data, and where fcntl is missing (Windows) this lock is skipped.

- `<database>-lock`, the write lock: held while writing (a batch of the hot path, a unit of
  work).
- `<database>-lock-queue`, the entrance: a writer takes it, then the write lock, then lets the
  entrance go at once. A waiter keeps it while it waits for the write lock, so the writer that
  has just let the write lock go cannot take it back first: it has to pass the entrance, and
  waits there. One flock alone does not queue: on release the kernel wakes the waiter, but the
  releasing process, still running, takes the lock again before the waiter gets to run (and
  polling is worse: a shard writing batch after batch kept another out for hundreds of
  commands in a row, until its commands were refused as busy).

Waiting is a blocking flock, so the lock passes the moment it is free. A blocking flock cannot
be cancelled, yet every wait is bounded (busy.py): so it runs in a daemon thread, on files it
opens for itself (a flock belongs to the open file). The writer waits for that thread until its
deadline, then gives up (Busy, nothing written) and leaves it behind: when the thread gets the
locks after all, it lets them go at once. The next writer of this process takes over a wait
still under way rather than start another: it keeps its place, and threads never pile up.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
import time
import weakref
from collections.abc import AsyncIterator, Callable

from bot.db.busy import Busy, remaining

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]


class LockWaits:
    """How many writes of this process waited for one database's write lock, and how long in
    all (bot/metrics.py reads them when scraped). Only a lock not free at once is a wait."""

    def __init__(self) -> None:
        self.count = 0
        self.seconds = 0.0
        self._mutex = threading.Lock()  # the writer thread and the event loop both wait

    def add(self, since: float) -> None:
        waited = time.monotonic() - since
        with self._mutex:
            self.count += 1
            self.seconds += waited


# By database path: kept while a lock of that database is (the hot path's and the unit of
# work's share one), so a process of many short-lived databases (the tests) keeps none.
_WAITS: weakref.WeakValueDictionary[str, LockWaits] = weakref.WeakValueDictionary()


def lock_waits(database_path: str) -> LockWaits:
    """The waits of this process for the write lock of the database at `database_path`."""
    found = _WAITS.get(database_path)
    if found is None:
        found = _WAITS[database_path] = LockWaits()
    return found


def _open(path: str) -> int:
    return os.open(path, os.O_RDWR | os.O_CREAT, 0o644)


def _try(fd: int) -> bool:
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


class _Wait:
    """One take of the queue, then the write lock, blocking, in a daemon thread; the write lock's
    file is handed to whoever wants it when it comes, else closed (which lets the lock go)."""

    def __init__(self, path: str, notify: Callable[[], None] | None) -> None:
        self._path = path
        self._mutex = threading.Lock()
        self._wanted = True
        self._leaving = False  # given up and on its way out: nobody can take it over
        self._notify = notify
        self._fd: int | None = None
        self._error: OSError | None = None
        self.done = threading.Event()
        threading.Thread(target=self._run, name="lastgasp-write-lock", daemon=True).start()

    def _run(self) -> None:
        fd = None
        try:
            queue = _open(f"{self._path}-queue")
            try:
                fcntl.flock(queue, fcntl.LOCK_EX)
                with self._mutex:
                    self._leaving = not self._wanted
                if not self._leaving:  # else given up meanwhile: out of the queue at once
                    fd = _open(self._path)
                    fcntl.flock(fd, fcntl.LOCK_EX)
            finally:
                os.close(queue)  # the entrance goes as soon as the write lock is ours
        except OSError as error:
            if fd is not None:
                os.close(fd)
                fd = None
            self._error = error
        with self._mutex:
            if fd is not None and not self._wanted:
                os.close(fd)  # taken after its writer gave up: back at once
                fd = None
            self._fd = fd
            self.done.set()
            notify = self._notify
        if notify is not None:
            notify()

    def adopt(self, notify: Callable[[], None] | None) -> bool:
        """A new writer of the same process waits on this one instead (False: it is over)."""
        with self._mutex:
            if self.done.is_set() or self._leaving:
                return False
            self._wanted, self._notify = True, notify
            return True

    def take(self) -> int:
        """The write lock's file, once done (or the error of the wait)."""
        with self._mutex:
            fd, self._fd = self._fd, None
        if fd is None:
            raise self._error or Busy()
        return fd

    def give_up(self) -> None:
        with self._mutex:
            self._wanted, self._notify = False, None
            fd, self._fd = self._fd, None
        if fd is not None:  # it came just now: back at once
            os.close(fd)


class ProcessWriteLock:
    """One writer's handle (each process has its own, or two: the hot path's and the unit of
    work's); it is taken by one writer at a time."""

    def __init__(self, database_path: str) -> None:
        self._path = f"{database_path}-lock"
        self.waits = lock_waits(database_path)
        self._fd: int | None = None  # kept open: the common case, no wait, costs no open()
        self._queue_fd: int | None = None
        self._held: int | None = None  # the file through which the write lock is held
        self._wait: _Wait | None = None  # a blocking take under way (perhaps given up)

    def take_now(self) -> bool:
        """Through the entrance and the write lock if neither is held (three flock calls), else
        False at once: never blocks."""
        if self._fd is None:
            self._fd = _open(self._path)
        if self._queue_fd is None:
            self._queue_fd = _open(f"{self._path}-queue")
        if not _try(self._queue_fd):
            return False
        try:
            if not _try(self._fd):
                return False
        finally:
            fcntl.flock(self._queue_fd, fcntl.LOCK_UN)
        self._held = self._fd
        return True

    def _waiting(self, notify: Callable[[], None] | None) -> _Wait:
        if self._wait is None or not self._wait.adopt(notify):
            self._wait = _Wait(self._path, notify)
        return self._wait

    def acquire_in_thread(self, until: float) -> None:
        """Take it in a thread that may block (the SQLite writer), or raise Busy at `until`."""
        if self.take_now():
            return
        since = time.monotonic()
        wait = self._waiting(None)
        try:
            if not wait.done.wait(remaining(until)):
                wait.give_up()
                raise Busy()
        finally:
            self.waits.add(since)
        self._held = wait.take()

    @contextlib.asynccontextmanager
    async def held(self, until: float) -> AsyncIterator[None]:
        """On the event loop: waits without blocking it, or raises Busy at `until`."""
        if not self.take_now():
            loop = asyncio.get_running_loop()
            came: asyncio.Future[None] = loop.create_future()

            def settle() -> None:
                if not came.done():  # else timed out or cancelled meanwhile
                    came.set_result(None)

            def arrived() -> None:  # in the wait's thread
                with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits
                    loop.call_soon_threadsafe(settle)

            since = time.monotonic()
            wait = self._waiting(arrived)
            try:
                async with asyncio.timeout(remaining(until)):
                    await came
            except TimeoutError:
                wait.give_up()
                raise Busy() from None
            except BaseException:  # cancelled: its take must not outlive it
                wait.give_up()
                raise
            finally:
                self.waits.add(since)
            self._held = wait.take()
        try:
            yield
        finally:
            self.release()

    def release(self) -> None:
        held, self._held = self._held, None
        if held is None:
            return
        if held == self._fd:
            fcntl.flock(held, fcntl.LOCK_UN)
        else:  # a wait's own file: closing it lets the lock go
            os.close(held)

    def close(self) -> None:
        self.release()
        if self._wait is not None:
            self._wait.give_up()  # its thread closes its own files
            self._wait = None
        for fd in (self._fd, self._queue_fd):
            if fd is not None:
                os.close(fd)
        self._fd = self._queue_fd = None


def process_write_lock(database_path: str | None) -> ProcessWriteLock | None:
    if fcntl is None or not database_path or database_path == ":memory:":
        return None
    return ProcessWriteLock(database_path)
