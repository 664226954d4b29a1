"""Reads that take turns: a read-only transaction whose statements each wait for a turn first,
and whose many rows (`rows`) are read in pieces with a turn between, where its caller asks for
that (`taking_turns`). The campaign page does: its reads then give way to the commands instead of
holding the event loop for all of them at once (on SQLite they run on the loop itself:
looks.py; bench/README.md, "Page views")."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Awaitable, Callable, Iterable, Iterator
from contextvars import ContextVar
from typing import Any, TypeVar

from sqlalchemy import CursorResult, Executable, Result, Row

from bot.db.session import Connection

Turn = Callable[[], Awaitable[None]]
Item = TypeVar("Item")
T = TypeVar("T")

PIECE_S = 0.0003  # rows read (each one's JSON parsed, its sheet validated) between two turns

# Per task (a context variable): only the reads of the task that asked wait.
_TURN: ContextVar[Turn | None] = ContextVar("lastgasp_read_turn", default=None)


@contextlib.contextmanager
def taking_turns(turn: Turn) -> Iterator[None]:
    """In this block, every statement of this task's read-only transactions awaits `turn()`
    first."""
    token = _TURN.set(turn)
    try:
        yield
    finally:
        _TURN.reset(token)


class _Paced:
    def __init__(self, conn: Connection, turn: Turn) -> None:
        self._conn = conn
        self.turn = turn

    async def execute(
        self, statement: Executable, parameters: Any = None
    ) -> CursorResult[*tuple[Any, ...]]:
        await self.turn()
        return await self._conn.execute(statement, parameters)


def paced(conn: Connection) -> Connection:
    """`conn`, its statements waiting for a turn first where this task takes turns."""
    turn = _TURN.get()
    return conn if turn is None else _Paced(conn, turn)


async def rows(conn: Connection, result: Result[Any], make: Callable[[Row[Any]], T]) -> list[T]:
    """`make` of each row of `result`, a statement's on `conn` (its JSON is parsed as it is
    fetched); on a connection that takes turns, in pieces of PIECE_S at most with a turn
    between (a page's 50 events or 60 cards are a millisecond or more)."""
    if not isinstance(conn, _Paced):  # a write's rows never wait: its lock is held
        return [make(record) for record in result.all()]
    return await in_pieces(result, make, conn.turn, PIECE_S)


async def in_pieces(
    items: Iterable[Item], make: Callable[[Item], T], turn: Turn, piece_s: float
) -> list[T]:
    """`make` of each item, with `turn()` awaited whenever a piece has taken `piece_s`."""
    made: list[T] = []
    began = time.perf_counter()
    for item in items:
        made.append(make(item))
        if time.perf_counter() - began > piece_s:
            await turn()
            began = time.perf_counter()
    return made
