"""SQLite's read-only transactions on the event loop: the unit of work's statements run through
SQLAlchemy's synchronous engine on a connection of the loop's own, with no trip to a thread.

A read through aiosqlite is a trip to its thread and back for every statement (and BEGIN and
the end), each a wake-up of the other core and a wait for the GIL the event loop holds: a
campaign page's five statements cost the loop 2–5 ms, most of it those trips, where the
statements themselves take a tenth of that (bench/README.md, "Page views"). A WAL reader
never waits for the writer, so it may run where it is asked for, as the hot path's looks do
(hotpath.py, `SQLiteHotPath.read`). The one case where it would wait (a database being
recovered, another process changing the schema) shows at the transaction's first read,
with a busy timeout of 0: that transaction then goes through aiosqlite instead, which waits
off the loop.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator
from typing import Any

from sqlalchemy import Connection, CursorResult, Engine, Executable, create_engine
from sqlalchemy.exc import OperationalError
from sqlalchemy.exc import TimeoutError as PoolFull
from sqlalchemy.pool import QueuePool

from bot.db.codec import dumps
from bot.db.hotpath import is_busy, loop_reader

# Connections kept for reuse; more are opened while that many transactions are open at once
# (a body that awaits something else between its statements lets another one begin).
_KEPT = 2
_MORE = 8


class LoopConnection:
    """What the unit of work asks of its connection (session.py's `Connection`, which types
    the rows), on a synchronous one."""

    def __init__(self, conn: Connection) -> None:
        self._conn = conn

    async def execute(
        self, statement: Executable, parameters: Any = None
    ) -> CursorResult[*tuple[Any, ...]]:
        return self._conn.execute(statement, parameters)


class Looks:
    """The event loop's read-only connections to one SQLite file."""

    def __init__(self, path: str) -> None:
        self.engine: Engine = create_engine(
            "sqlite+pysqlite://",
            creator=lambda: loop_reader(path),
            json_serializer=dumps,
            poolclass=QueuePool,
            pool_size=_KEPT,
            max_overflow=_MORE,
            pool_timeout=0,
        )

    @contextlib.contextmanager
    def begin(self) -> Iterator[LoopConnection | None]:
        """A read-only transaction on the loop, or None where its first read would wait.
        The connection's return to the pool rolls it back (nothing to keep: it only read)."""
        try:
            conn = self.engine.connect()
        except PoolFull:  # _KEPT + _MORE open at once: this one waits off the loop
            yield None
            return
        except OperationalError as error:  # its first pragma would wait
            _raise_unless_busy(error)
            yield None
            return
        with conn:
            try:
                conn.exec_driver_sql("BEGIN")
                # The snapshot is taken here, where a wait can still go elsewhere.
                conn.exec_driver_sql("SELECT 1 FROM sqlite_master LIMIT 1").all()
            except OperationalError as error:
                _raise_unless_busy(error)
                yield None
                return
            yield LoopConnection(conn)

    def close(self) -> None:
        self.engine.dispose()


def _raise_unless_busy(error: OperationalError) -> None:
    if not (isinstance(error.orig, sqlite3.OperationalError) and is_busy(error.orig)):
        raise error
