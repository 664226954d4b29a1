"""Undo (U-3): the latest change reverted, field by field."""

from __future__ import annotations

from pydantic import ValidationError

from rules.condition import finish
from rules.errors import RuleError
from rules.models import Sheet
from rules.outcome import Outcome


def revert(current: Sheet, before: Sheet, after: Sheet, command: str) -> Outcome:
    """U-3: the fields the change (`before` → `after`) changed go back to what they were
    before it; every other field keeps its current value, and so does a field bookkeeping
    logged since has changed again (a reaction count a new fight reset stays reset)."""
    was, became, now = before.model_dump(), after.model_dump(), current.model_dump()
    # Changed by that event, and not by any logged since (those are bookkeeping: they stay).
    restored = {
        key: value for key, value in was.items() if became[key] != value and now[key] == became[key]
    }
    try:
        reverted = Sheet.model_validate({**current.model_dump(), **restored})
    except ValidationError:  # an old event, from before a range was narrowed
        raise RuleError(
            "{name} cannot go back to how it was before its /{command}: that sheet no longer "
            "fits the rules' ranges. The GM can set the fields with /character set.",
            name=current.name,
            command=command,
        ) from None
    if reverted == current:
        raise RuleError(
            "The latest change to {name} (/{command}) is already undone by later changes: "
            "nothing to revert.",
            name=current.name,
            command=command,
        )
    headline = f"Undone: {reverted.name}'s latest change is reverted."
    return finish("undo", current, reverted, ["U-3"], headline=headline, retirement=False)
