"""What the data layer refuses or fails with, besides Busy (busy.py)."""

from __future__ import annotations

from sqlalchemy.exc import DBAPIError

from rules.errors import RuleError


class StaleWriteError(RuntimeError):
    """A save whose row changed since it was read: the transaction is rolled back.

    Cannot happen when the row was loaded with lock=True; it guards against forgetting it.
    """


def stale(row_id: int | None = None) -> StaleWriteError:
    which = "the character" if row_id is None else f"character {row_id}"
    return StaleWriteError(f"{which} changed or vanished since it was read")


def name_taken(name: str) -> RuleError:
    return RuleError(
        "This server already has a character named {name}. Choose another name.", name=name
    )


class Unreachable(RuleError):
    """No connection to the database could be made: refused, silent past CONNECT_TIMEOUT_S
    (engine.py), or turned away by the server. The command never reached it."""

    logged = "could not reach the database"

    def __init__(self) -> None:
        super().__init__(
            "The bot cannot reach its database right now: nothing was changed. Try again in a "
            "minute; if it keeps happening, tell the bot's admin."
        )


class NoAnswer(RuleError):
    """The database stopped answering in the middle of a command (engine.py's
    ROUND_TRIP_TIMEOUT_S), or a unit of work's connection was lost: whether its change was
    saved is not known."""

    logged = "got no answer from the database"

    def __init__(self) -> None:
        super().__init__(
            "The bot's database stopped answering. Check /history before you try again: it "
            "shows whether the change was made. If it keeps happening, tell the bot's admin."
        )


# The database's own failures, told to the member and the operator; any other is a bug.
DATABASE_DOWN = (Unreachable, NoAnswer)


def could_not_connect(error: BaseException) -> bool:
    """Whether `error`, raised while connecting, is the database's or the network's refusal
    (and not a bug of ours, which stays one)."""
    import asyncpg  # the hot path's driver errors come unwrapped

    return isinstance(error, OSError | DBAPIError | asyncpg.PostgresError | asyncpg.InterfaceError)
