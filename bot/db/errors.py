"""What the data layer refuses or fails with, besides Busy (busy.py)."""

from __future__ import annotations

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
