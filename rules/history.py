"""Undo (U-3): the latest change reverted, field by field."""

from __future__ import annotations

from pydantic import ValidationError

from rules.condition import finish
from rules.errors import RuleError
from rules.models import Sheet
from rules.outcome import Outcome
from rules.text import say


def revert(
    current: Sheet, before: Sheet, after: Sheet, command: str, *, rolled: bool = False
) -> Outcome:
    """U-3: the fields the change (`before` → `after`) changed go back to what they were
    before it; every other field keeps its current value, and so does a field bookkeeping
    logged since has changed again (a reaction count a new fight reset stays reset).

    A roll (`rolled`, U-2) is struck from the record even when no field is left to revert (the
    GM's roll outside combat sets no flag): its round's flag comes back with the rest (R-8),
    so that the roll may be made again."""
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
    if reverted == current and not rolled:
        raise RuleError(
            "The latest change to {name} (/{command}) is already undone by later changes: "
            "nothing to revert.",
            name=current.name,
            command=command,
        )
    rules = ["U-3"]
    if rolled:
        if current.recovered_this_round and not reverted.recovered_this_round:
            rules.append("R-8")
        headline = say(
            "Undone: {name}'s /{command} is struck from the record; the roll may be made again.",
            name=reverted.name,
            command=command,
        )
    else:
        headline = say("Undone: {name}'s latest change is reverted.", name=reverted.name)
    return finish("undo", current, reverted, rules, headline=headline, retirement=False)
