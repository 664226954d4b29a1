"""What every repository of a unit of work shares: one connection in one transaction.

The statements the campaign page and the boards read most are built once, with bind
parameters, at their module's top: SQLAlchemy takes a statement built anew each time apart
again to find its compiled form (its cache key), which cost about four times the statement's
own execution on SQLite (bench/README.md, "Page views")."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Protocol, TypeVarTuple, overload

from sqlalchemy import CursorResult, Executable, Select, Table
from sqlalchemy.dialects.postgresql import Insert as PgInsert
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import Insert as SqliteInsert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.sql.selectable import TypedReturnsRows

from bot.db.codec import Clock

_Ts = TypeVarTuple("_Ts")


class Connection(Protocol):
    """What a unit of work asks of its connection: an AsyncConnection, or on SQLite a read-only
    one on the event loop (looks.py)."""

    @overload
    async def execute(
        self, statement: TypedReturnsRows[*_Ts], parameters: Any = None
    ) -> CursorResult[*_Ts]: ...

    @overload
    async def execute(
        self, statement: Executable, parameters: Any = None
    ) -> CursorResult[*tuple[Any, ...]]: ...


class Session:
    def __init__(
        self,
        conn: Connection,
        guild_id: int,
        *,
        postgres: bool,
        clock: Clock,
        read_only: bool = False,
    ) -> None:
        self.conn = conn
        self.guild_id = guild_id
        self.postgres = postgres
        self.read_only = read_only
        self._clock = clock
        # Character id -> (version, (name key, owner)) as loaded here: the optimistic check of
        # saves, and whether a save changes the indexed keys (writes.row_keys).
        self._loaded: dict[int, tuple[int, tuple[str, int]]] = {}

    def _writable(self) -> None:
        # On SQLite a write in a deferred (read-only) transaction could fail with SQLITE_BUSY.
        if self.read_only:
            raise RuntimeError("a read-only transaction cannot write: open it without read_only")

    def _of(self, **values: Any) -> dict[str, Any]:
        """A built statement's parameters: the guild's and these."""
        return {"guild_id": self.guild_id, **values}

    def _locks(self, lock: bool) -> bool:
        # SQLite needs no row lock: BEGIN IMMEDIATE already serialises every writer.
        return lock and self.postgres and not self.read_only

    def _locked(self, stmt: Select[Any], lock: bool, **of: Any) -> Select[Any]:
        return stmt.with_for_update(**of) if self._locks(lock) else stmt

    def _insert(self, table: Table) -> PgInsert | SqliteInsert:
        """An INSERT that knows ON CONFLICT on both databases."""
        return pg_insert(table) if self.postgres else sqlite_insert(table)

    def _now(self) -> datetime:
        return self._clock()
