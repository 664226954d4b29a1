"""Bounded waits: a command waits for a lock at most so long, then nothing is changed.

Discord gives an interaction 3 seconds for its first answer. Every wait of a command for the
database (a lock held by another writer or process, a full pool) shares one budget; past it the
command is refused with Busy, changing nothing, and the player is told to try again.
"""

from __future__ import annotations

import time

from rules.errors import RuleError

# Every lock wait of one command, in all: room is left within Discord's 3 seconds to answer.
LOCK_BUDGET_S = 1.5


class Busy(RuleError):
    """The database stayed locked past the budget: nothing was changed."""

    def __init__(self) -> None:
        super().__init__("The table is busy right now: nothing was changed. Try again in a moment.")


def deadline(budget: float = LOCK_BUDGET_S) -> float:
    """The time.monotonic() past which a command stops waiting."""
    return time.monotonic() + budget


def remaining(until: float) -> float:
    return max(0.0, until - time.monotonic())
