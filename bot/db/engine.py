"""The engine for DATABASE_URL: SQLite (aiosqlite) done right, or PostgreSQL (asyncpg)."""

from __future__ import annotations

import os
import sqlite3
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import ExceptionContext, make_url
from sqlalchemy.exc import DisconnectionError
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine
from sqlalchemy.util import await_

from bot.db.busy import LOCK_BUDGET_S, Busy, remaining
from bot.db.codec import dumps

DEFAULT_URL = "sqlite+aiosqlite:///lastgasp.db"
BUSY_TIMEOUT_MS = int(LOCK_BUDGET_S * 1000)
# How long connecting to PostgreSQL may take (asyncpg's `timeout`, 60 s by default): a server
# that does not answer is told to the member in seconds, not after a minute (errors.py).
CONNECT_TIMEOUT_S = 5.0
# A round trip's answer waited for at most this long (asyncpg's `command_timeout`), far past
# any lock wait: past it the server or the network is gone, and the command is told so
# (errors.NoAnswer) instead of waiting until the network gives up. Not for migrations, which
# may rightly take long on a big database (migrate.py).
ROUND_TRIP_TIMEOUT_S = 10.0
# Set on a connection whose transaction only reads: SQLite then begins DEFERRED, not IMMEDIATE.
READ_ONLY = "lastgasp_read_only"
# Set on a connection before its transaction: the time.monotonic() its waits end at (busy.py).
DEADLINE = "lastgasp_deadline"
# Every SQLite connection's, the engine's and the hot path's (bot/db/hotpath.py) alike.
SQLITE_PRAGMAS = (
    f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}",
    "PRAGMA journal_mode = WAL",
    "PRAGMA synchronous = NORMAL",  # safe in WAL against a crash of the process
    "PRAGMA foreign_keys = ON",
)


def database_url() -> str:
    """The one setting: DATABASE_URL, or an SQLite file in the working directory."""
    return os.environ.get("DATABASE_URL") or DEFAULT_URL


def create_engine(
    url: str, *, connect_args: dict[str, Any] | None = None, timed_round_trips: bool = True
) -> AsyncEngine:
    """timed_round_trips=False: PostgreSQL's statements wait for their answer without bound."""
    parsed = make_url(url)
    backend = parsed.get_backend_name()
    if backend == "sqlite":
        if parsed.get_driver_name() != "aiosqlite":
            raise ValueError("SQLite needs the async driver: sqlite+aiosqlite:///file.db")
        return _sqlite_engine(url, connect_args or {})
    if backend == "postgresql":
        if parsed.get_driver_name() != "asyncpg":
            raise ValueError("PostgreSQL needs the async driver: postgresql+asyncpg://…")
        # No pre-ping (a round trip per command): one the server closed while it lay in the
        # pool is replaced without a round trip (below); one lost during a transaction fails
        # that transaction, which rolls back, and SQLAlchemy then renews the whole pool.
        args: dict[str, Any] = {"timeout": CONNECT_TIMEOUT_S}
        if timed_round_trips:
            args["command_timeout"] = ROUND_TRIP_TIMEOUT_S
        args.update(connect_args or {})
        # Every statement waits for a row lock at most the budget (busy.py), then fails.
        args["server_settings"] = {
            "lock_timeout": f"{BUSY_TIMEOUT_MS}ms",
            **args.get("server_settings", {}),
        }
        engine = create_async_engine(
            url,
            connect_args=args,
            pool_size=10,
            max_overflow=20,
            pool_timeout=LOCK_BUDGET_S,
            json_serializer=dumps,
        )

        @event.listens_for(engine.sync_engine, "checkout")
        def _on_checkout(dbapi_connection: Any, _record: Any, _proxy: Any) -> None:
            # One the server closed while it lay in the pool (a restart): the pool drops it
            # and connects anew, instead of the transaction failing on it. No round trip.
            if dbapi_connection.driver_connection.is_closed():
                raise DisconnectionError()

        @event.listens_for(engine.sync_engine, "handle_error")
        def _on_error(context: ExceptionContext) -> None:
            # A round trip past ROUND_TRIP_TIMEOUT_S: SQLAlchemy drops the connection, first
            # saying goodbye, which waits (2 s) on the same silence. Closed first, at once.
            conn = context.connection
            if not isinstance(context.original_exception, TimeoutError):
                return
            if conn is None or conn.closed or conn.invalidated:  # nothing left to close
                return
            driver = conn.connection.driver_connection
            if driver is not None:
                driver.terminate()

        return engine
    raise ValueError(
        f"unsupported database {backend!r}: use sqlite+aiosqlite or postgresql+asyncpg"
    )


def _sqlite_engine(url: str, connect_args: dict[str, Any]) -> AsyncEngine:
    # timeout: the busy handler sqlite3 installs; it also covers BEGIN IMMEDIATE waiting for
    # another process's writer.
    args = {"timeout": LOCK_BUDGET_S, **connect_args}
    # No reset on return: every transaction ends in its own COMMIT or ROLLBACK already.
    engine = create_async_engine(
        url, connect_args=args, pool_reset_on_return=None, json_serializer=dumps
    )

    @event.listens_for(engine.sync_engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # isolation_level=None: the driver never emits its own (deferred) BEGIN; we do it below.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        for pragma in SQLITE_PRAGMAS:
            cursor.execute(pragma)
        cursor.close()

    @event.listens_for(engine.sync_engine, "begin")
    def _on_begin(conn: Any) -> None:
        # A deferred BEGIN that reads then writes fails at once with SQLITE_BUSY under
        # concurrency; IMMEDIATE takes the write lock first and waits for it (busy_timeout).
        options = conn.get_execution_options()
        begin = "BEGIN" if options.get(READ_ONLY) else "BEGIN IMMEDIATE"
        until = options.get(DEADLINE)
        # Wait for another process's writer at most until the deadline; without one, the whole
        # budget (not what the connection's last transaction had left of its own).
        wait_ms = BUSY_TIMEOUT_MS if until is None else max(1, int(remaining(until) * 1000))
        begin = f"PRAGMA busy_timeout = {wait_ms}; {begin}"
        # Straight to aiosqlite: one trip to its thread instead of four (cursor, execute, ...).
        # SQLAlchemy wraps no error of this trip in a DBAPIError (Database.transaction's catch),
        # so a lock still held at the end of the wait becomes Busy here: nothing was written,
        # the transaction never began.
        try:
            await_(conn.connection.driver_connection.executescript(begin))
        except sqlite3.OperationalError as error:
            if _timed_out(error):
                raise Busy() from None
            raise

    return engine


def _timed_out(error: sqlite3.Error) -> bool:
    """SQLite's busy timeout ran out: SQLITE_BUSY, "database is locked"."""
    return error.sqlite_errorcode & 0xFF == sqlite3.SQLITE_BUSY
