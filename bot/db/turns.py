"""Reads that take turns: a read-only transaction whose statements each wait for a turn first,
where its caller asks for that (`taking_turns`). The campaign page does: its reads then give
way to the commands between statements instead of holding the event loop for all of them at
once (on SQLite they run on the loop itself: looks.py; bench/README.md, "Page views")."""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable, Iterator
from contextvars import ContextVar
from typing import Any

from sqlalchemy import CursorResult, Executable

from bot.db.session import Connection

Turn = Callable[[], Awaitable[None]]

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
        self._turn = turn

    async def execute(
        self, statement: Executable, parameters: Any = None
    ) -> CursorResult[*tuple[Any, ...]]:
        await self._turn()
        return await self._conn.execute(statement, parameters)


def paced(conn: Connection) -> Connection:
    """`conn`, its statements waiting for a turn first where this task takes turns."""
    turn = _TURN.get()
    return conn if turn is None else _Paced(conn, turn)
