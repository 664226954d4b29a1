"""Checks (K-1..K-5): an Action or Reaction Roll from a dice expression with every modifier the
sheet puts on it, the whole sum shown, a push paid first, Disadvantage rolled twice."""

from __future__ import annotations

import random
from collections.abc import Sequence
from enum import StrEnum

from rules import notation
from rules.condition import breakdown_reminder, finish, injury
from rules.emotion_texts import RELATED_ACTIONS
from rules.errors import RuleError
from rules.models import EmotionCause, GuildSettings, Sheet
from rules.outcome import Outcome
from rules.rolls import NumericRoll
from rules.stamina import MAX_SPEND, pay
from rules.text import Text, say

NEARBY_PENALTY = -3  # E-6: nearby allies of a character in Breakdown, on Action Rolls
DAILY_BONUS = 3  # E-4


class CheckKind(StrEnum):
    ACTION = "action"
    REACTION = "reaction"


AN_ALLY = "An ally"  # the one the roller says is nearby, outside combat


def nearby_breakdown(allies: Sequence[Sheet] | None, said: bool) -> str | None:
    """K-2 [interpretation]: whose Breakdown puts E-6's -3 on an Action Roll. In a combat, an
    ally is nearby when it is in the same combat (`allies`: its other members), in a Breakdown
    and still in the story (a Dead or Retired one takes no part, V-5, E-7); outside combat
    (None) only when the roller says one is (`said`). Returns the ally's name, "An ally" when
    said, or None."""
    if allies is not None:
        found = [a.name for a in allies if a.breakdown is not None and not a.state.is_out]
        return found[0] if found else None
    return AN_ALLY if said else None


def _refuse(sheet: Sheet) -> None:
    """K-5: a down, Dead or Retired character makes no Check."""
    state = sheet.state
    if state.is_out:
        raise RuleError(
            "{name} is " + state.value + ": it makes no Check (K-5). The GM can bring it back "
            "with /character revive.",
            name=sheet.name,
        )
    if state.is_down:
        raise RuleError(
            "{name} is " + state.value + ": a character who is down makes no Check (K-5). Its "
            "recovery roll is /recover.",
            name=sheet.name,
        )


def _title(kind: CheckKind, daring: bool) -> str:
    if kind is CheckKind.REACTION:
        return "Reaction Roll"
    return "Daring Throw" if daring else "Action Roll"


def check(
    sheet: Sheet,
    settings: GuildSettings,
    rng: random.Random,
    *,
    kind: CheckKind | str = CheckKind.ACTION,
    roll: str | None = None,
    target: int | None = None,
    push: int | None = None,
    related: bool = False,
    daring: bool = False,
    nearby: str | None = None,
    what: str | None = None,
) -> Outcome:
    """K-1..K-5. `roll`: the dice (default the guild's `check_die`); `push`: S-6's Stamina,
    paid first; `related`: the action is related to the roller's Breakdown (K-3); `daring`: a
    Daring Throw (K-4); `nearby`: the ally in Breakdown nearby (`nearby_breakdown`), if any."""
    kind = CheckKind(kind)
    _refuse(sheet)
    action = kind is CheckKind.ACTION
    if daring and not action:
        raise RuleError(
            "A Daring Throw is an Action Roll: leave out kind:reaction, or daring (a Reaction "
            "Roll offers its emotions anyway, K-4)."
        )
    rules = ["K-1"]
    after = sheet
    if push is not None:
        if not action:
            raise RuleError(
                "A push adds to an Action Roll, the seed's Check (S-6, K-2): leave out push on "
                "a Reaction Roll. Nothing was spent."
            )
        if isinstance(push, bool) or not 1 <= push <= MAX_SPEND:
            raise RuleError(f"Push a whole number of Stamina from 1 to {MAX_SPEND}.")
        # S-6: declared and paid before rolling, lost whatever the result; S-4a.
        after = pay(
            sheet,
            push,
            f"pushing for +{push}",
            "Push for less, or rest first.",
            spent_this_round=True,
        )
        rules.append("S-6")
    hurt = injury(sheet)
    bonuses: list[tuple[str, int]] = []
    if not action:
        nearby = None  # E-6's -3 is on Action Rolls only
    if action:
        bonuses.append(("injury", hurt.action))
        if sheet.daily_bonus:
            bonuses.append(("daily bonus", DAILY_BONUS))
            rules.append("E-4")
        if push:
            bonuses.append(("push", push))
        if nearby is not None:
            bonuses.append(("ally's Breakdown", NEARBY_PENALTY))
            rules.append("E-6")
    else:
        bonuses.append(("injury", hurt.reaction))
    if (hurt.action if action else hurt.reaction) != 0:
        rules.append("H-3")
    if any(amount for _, amount in bonuses):
        rules.append("K-2")  # the state's modifiers on a Check (after the rules it applies)

    breakdown = sheet.breakdown
    disadvantage = breakdown is not None and (not action or related)
    title = _title(kind, daring)
    label = say(title + " ({what})", what=what.strip()) if what and what.strip() else say(title)
    expression = roll if roll is not None else settings.check_die
    kept = notation.roll(expression, rng, label=label, bonuses=bonuses, target=target)
    rolls: tuple[NumericRoll, ...] = (kept,)
    if disadvantage:  # K-3, E-6: twice, the lower total kept, both shown
        second = notation.roll(expression, rng, label=label, bonuses=bonuses, target=target)
        if second.total < kept.total:
            kept, second = second, kept
        rolls = (kept, second.model_copy(update={"dropped": True}))
        rules += ["K-3", "E-6"]

    notes: list[str | Text] = []
    if disadvantage and breakdown is not None:
        why = (
            "every Reaction Roll in a Breakdown"
            if not action
            else f"an action related to {breakdown.label}"
        )
        notes.append(f"Disadvantage ({why}): rolled twice, the lower total counts.")
        if action:
            notes.append(f"Related to {breakdown.label}: {RELATED_ACTIONS[breakdown]}")
    elif breakdown is not None:  # E-6: every roll of a character in Breakdown recalls it
        notes.append(breakdown_reminder(sheet))
        rules.append("E-6")
    elif related:
        notes.append("No Breakdown: a related action rolls as any other.")
    if nearby == AN_ALLY:
        notes.append("An ally nearby is in a Breakdown: -3 on Action Rolls (E-6).")
    elif nearby is not None:
        notes.append(say("{ally} nearby is in a Breakdown: -3 on Action Rolls (E-6).", ally=nearby))
    if push:
        notes.append("The Stamina is spent whether the Check succeeds or not.")
    cause = None
    if daring or not action:
        cause = EmotionCause.DARING_THROW if daring else EmotionCause.REACTION_ROLL
        notes.append(f"If the {title} stirred an emotion, raise it below (E-10).")
        rules += ["K-4", "E-10"]

    name = sheet.name
    if kept.success is None:
        headline = say("{name}'s " + title + " totals {total}.", name=name, total=kept.total)
    else:
        verdict = "succeeds" if kept.success else "fails"
        headline = say(
            "{name}'s " + title + " " + verdict + ": {total} against {target}.",
            name=name,
            total=kept.total,
            target=kept.target,
        )
    outcome = finish(
        title.lower().replace(" ", "_"),
        sheet,
        after,
        list(dict.fromkeys(rules)),
        headline=headline,
        rolls=rolls,
        notes=notes,
        failed=kept.success is False,
    )
    return outcome.model_copy(update={"raise_cause": cause}) if cause else outcome
