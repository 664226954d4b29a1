"""The GM's scene (G-1..G-3): one rule applied to several characters at once, each on its own,
the ones that cannot take part named and skipped."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from rules.errors import RuleError
from rules.models import Sheet
from rules.outcome import Outcome


@dataclass(frozen=True)
class Skipped:
    """A character the rule refused (G-3): its name and why, as a refusal would say it."""

    name: str
    why: RuleError


@dataclass(frozen=True)
class Scene:
    """Each character's outcome in the order given (one event each, undone on its own: G-1,
    G-2), and the characters skipped."""

    outcomes: tuple[tuple[int, Outcome], ...]
    skipped: tuple[Skipped, ...]


def each(characters: Sequence[tuple[int, Sheet]], rule: Callable[[Sheet], Outcome]) -> Scene:
    """`rule` on every character (by its row id), in order: a refusal skips that character
    only, saying why (G-3); the others go on."""
    outcomes: list[tuple[int, Outcome]] = []
    skipped: list[Skipped] = []
    for row_id, sheet in characters:
        try:
            outcomes.append((row_id, rule(sheet)))
        except RuleError as refusal:
            skipped.append(Skipped(sheet.name, refusal))
    if not outcomes and not skipped:
        raise RuleError("No character to act on: pick at least one.")
    return Scene(tuple(outcomes), tuple(skipped))


def cited(outcome: Outcome, rule: str) -> Outcome:
    """The outcome with the scene's rule first (G-1, G-2): its event names it in /history."""
    return outcome.model_copy(update={"rules": (rule, *outcome.rules)})


def conscious(sheet: Sheet) -> None:
    """G-1: a situational breakdown faces the living and conscious (E-8's Reaction Roll needs a
    character who can react): one that is down is skipped, saying so."""
    if sheet.state.is_down:
        raise RuleError(
            "{name} is " + sheet.state.value + ": only a conscious character faces a "
            "situational breakdown (G-1).",
            name=sheet.name,
        )


MENU_LIMIT = 25  # Discord's options in one select menu


def offered(
    characters: Sequence[tuple[int, Sheet]],
    in_combat: set[int],
    *,
    conscious_only: bool,
    limit: int | None = MENU_LIMIT,
) -> list[tuple[int, Sheet]]:
    """The characters a scene's menu offers: the living (the conscious, for a situational
    breakdown, G-1), this channel's combat first, then by name; at most 25 (G-1, G-2)."""
    able = [
        (row_id, sheet)
        for row_id, sheet in characters
        if not sheet.state.is_out and not (conscious_only and sheet.state.is_down)
    ]
    able.sort(key=lambda c: (c[0] not in in_combat, c[1].name.casefold()))
    return able if limit is None else able[:limit]
