"""Checks (K-1..K-5) and the emotions they raise (K-4): one character, one transaction each."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from bot.db.database import Database
from bot.services.base import given, lookup, run_character_action
from bot.services.context import Acted, ActionContext, Caller, Permission, Target
from rules import checks, emotions
from rules.errors import RuleError
from rules.models import Emotion, EmotionCause, Sheet
from rules.outcome import Outcome


async def check(
    db: Database,
    caller: Caller,
    rng: random.Random,
    *,
    character: Target,
    kind: checks.CheckKind,
    roll: str | None,
    target: int | None,
    push: int | None,
    related: bool,
    daring: bool,
    nearby_breakdown: bool,
    what: str | None,
) -> Acted:
    """K-1..K-5; P-4 (owner or GM). In one transaction: the character (locked), its combat's
    other members in a Breakdown (K-2's nearby allies), the rule, the save and the event."""
    inputs = given(
        {
            "kind": kind.value,
            "roll": roll,
            "target": target,
            "push": push,
            "related": related or None,
            "daring": daring or None,
            "nearby_breakdown": nearby_breakdown or None,
            "what": what,
        }
    )
    if isinstance(character, str):
        inputs["character"] = character
    async with db.transaction(caller.guild_id) as uow:
        row = await lookup(uow, caller, character, Permission.OWNER_OR_GM)
        settings = await uow.settings()
        combat = await uow.combat_of(row.id)
        allies = None
        if combat is not None:
            allies = [m.sheet for m in await uow.members(combat.id) if m.id != row.id]
        outcome = checks.check(
            row.sheet,
            settings,
            rng,
            kind=kind,
            roll=roll,
            target=target,
            push=push,
            related=related,
            daring=daring,
            nearby=checks.nearby_breakdown(allies, nearby_breakdown),
            what=what,
        )
        if outcome.after != outcome.before:
            await uow.save_character(row.id, outcome.after)
        await uow.log_outcome(row.id, caller.user_id, "check", inputs, outcome)
    return Acted(outcome, row.id, settings, combat is not None)


class StalePress(RuleError):
    """A Raise button drawn for a sheet that has changed since: nothing is raised, and the
    buttons are drawn again for `sheet`, the character as it is now."""

    def __init__(self, template: str, sheet: Sheet, **values: object) -> None:
        super().__init__(template, **values)
        self.sheet = sheet


def _unchanged_since(emotion: Emotion, stack: int, stress: int) -> Callable[[Sheet], None]:
    """A Raise button acts on the stack and Stress it was drawn with: a second press of a
    double click finds them changed by the first, and raises nothing (K-4)."""

    def check(sheet: Sheet) -> None:
        if (sheet.stack(emotion), sheet.stress) != (stack, stress):
            raise StalePress(
                "That press was already counted, or {name} changed since the button was drawn: "
                + emotion.label
                + " is {stack}/{threshold}, Stress {stress}. Nothing more was raised; the "
                "buttons now show the sheet as it is: press again to raise once more.",
                sheet,
                name=sheet.name,
                stack=sheet.stack(emotion),
                threshold=sheet.threshold,
                stress=sheet.stress,
            )

    return check


async def raise_from_check(
    db: Database,
    caller: Caller,
    rng: random.Random,
    *,
    character_id: int,
    emotion: Emotion,
    cause: EmotionCause,
    seen: tuple[int, int],
) -> Acted:
    """K-4: one stage of `emotion` raised by a Check's button, with its cause (E-1, E-2, E-7,
    E-10), as /emotion would; P-4 (owner or GM)."""
    unchanged = _unchanged_since(emotion, *seen)

    def apply(ctx: ActionContext) -> Outcome:
        unchanged(ctx.sheet)
        return emotions.raise_emotion(ctx.sheet, emotion, 1, cause)

    inputs: dict[str, Any] = {"emotion": emotion.value, "stages": 1, "cause": cause.value}
    return await run_character_action(
        db,
        caller,
        command="emotion",
        inputs=inputs,
        target=character_id,
        permission=Permission.OWNER_OR_GM,
        apply=apply,
        rng=rng,
    )
