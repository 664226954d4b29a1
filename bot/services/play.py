"""The play use cases (docs/commands.md, "Play"): each one rule on one character, in one
transaction.

Every function checks the permissions of P-1..P-4 through `run_character_action`: owner or GM,
first aid anyone (F-1), situational breakdowns the GM only (P-3).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from bot.db.database import Database
from bot.services.base import given, read_character, run_character_action
from bot.services.context import Acted, ActionContext, Caller, Permission, Target
from rules import emotions, odds, stamina, table, vitality
from rules.errors import RuleError
from rules.models import Emotion, EmotionCause, GuildSettings, ReliefMethod, Sheet
from rules.outcome import Outcome

SPIRAL_ROLLS = 10


async def _act(
    db: Database,
    caller: Caller,
    rng: random.Random,
    command: str,
    target: Target,
    inputs: dict[str, Any],
    apply: Callable[[ActionContext], Outcome],
    permission: Permission = Permission.OWNER_OR_GM,
) -> Acted:
    return await run_character_action(
        db,
        caller,
        command=command,
        inputs=given(inputs),
        target=target,
        permission=permission,
        apply=apply,
        rng=rng,
    )


# Vitality


async def damage(
    db: Database, caller: Caller, rng: random.Random, *, amount: int, character: Target
) -> Acted:
    """H-1, V-6, V-8; P-4."""

    def apply(ctx: ActionContext) -> Outcome:
        return vitality.damage(ctx.sheet, amount, ctx.settings)

    return await _act(db, caller, rng, "damage", character, {"amount": amount}, apply)


async def heal(
    db: Database, caller: Caller, rng: random.Random, *, amount: int, character: Target
) -> Acted:
    """H-2; P-4."""

    def apply(ctx: ActionContext) -> Outcome:
        return vitality.heal(ctx.sheet, amount, ctx.settings)

    return await _act(db, caller, rng, "heal", character, {"amount": amount}, apply)


def _unchanged_since(vit: int, res: int) -> Callable[[Sheet], None]:
    """A button's roll acts on the VIT and RES its announcement showed, or not at all."""

    def check(sheet: Sheet) -> None:
        if (sheet.vit, sheet.res) != (vit, res):
            raise RuleError(
                "That button is out of date: {name} has changed since (now {state} at VIT "
                "{now}). Nothing was rolled; use /recover for the roll due now.",
                name=sheet.name,
                state=sheet.state.value,
                now=sheet.vit,
            )

    return check


async def recover(
    db: Database,
    caller: Caller,
    rng: random.Random,
    *,
    character: Target,
    faces: str | None,
    seen: tuple[int, int] | None = None,
) -> Acted:
    """R-1..R-8 (the limits of R-8 are the rule's own); P-4. `seen`: the VIT and RES a
    button was posted with (a stale button rolls nothing)."""
    check = _unchanged_since(*seen) if seen is not None else None

    def apply(ctx: ActionContext) -> Outcome:
        if check is not None:
            check(ctx.sheet)
        return vitality.recover(
            ctx.sheet, ctx.settings, ctx.rng, faces=faces, in_combat=ctx.in_combat, by_gm=ctx.is_gm
        )

    return await _act(db, caller, rng, "recover", character, {"faces": faces}, apply)


async def aid(
    db: Database,
    caller: Caller,
    rng: random.Random,
    *,
    character: Target,
    success: bool | None,
    roll: str | None,
    target: int | None,
) -> Acted:
    """F-1: any member may give first aid to any character of the guild."""

    def apply(ctx: ActionContext) -> Outcome:
        return vitality.first_aid(
            ctx.sheet, ctx.settings, ctx.rng, success=success, roll=roll, target=target
        )

    inputs = {"success": success, "roll": roll, "target": target}
    return await _act(db, caller, rng, "aid", character, inputs, apply, Permission.ANYONE)


# Stamina and the start of turn (C-3)


async def turn(db: Database, caller: Caller, rng: random.Random, *, character: Target) -> Acted:
    """C-3, S-5, R-8; P-4."""

    def apply(ctx: ActionContext) -> Outcome:
        return table.start_turn(ctx.sheet, ctx.settings, in_combat=ctx.in_combat)

    return await _act(db, caller, rng, "turn", character, {}, apply)


async def early(db: Database, caller: Caller, rng: random.Random, *, character: Target) -> Acted:
    """S-4; P-4."""

    def apply(ctx: ActionContext) -> Outcome:
        return stamina.act_early(ctx.sheet, in_combat=ctx.in_combat)

    return await _act(db, caller, rng, "early", character, {}, apply)


async def react(
    db: Database, caller: Caller, rng: random.Random, *, character: Target, what: str | None
) -> Acted:
    """S-5; P-4."""

    def apply(ctx: ActionContext) -> Outcome:
        return stamina.react(ctx.sheet, what)

    return await _act(db, caller, rng, "react", character, {"what": what}, apply)


async def push(
    db: Database,
    caller: Caller,
    rng: random.Random,
    *,
    amount: int,
    character: Target,
    roll: str | None,
    target: int | None,
    what: str | None,
) -> Acted:
    """S-6; P-4."""

    def apply(ctx: ActionContext) -> Outcome:
        return stamina.push(ctx.sheet, amount, ctx.rng, roll=roll, target=target, what=what)

    inputs = {"amount": amount, "roll": roll, "target": target, "what": what}
    return await _act(db, caller, rng, "push", character, inputs, apply)


async def spend(
    db: Database, caller: Caller, rng: random.Random, *, amount: int, reason: str, character: Target
) -> Acted:
    """S-7; P-4."""

    def apply(ctx: ActionContext) -> Outcome:
        return stamina.spend(ctx.sheet, amount, reason)

    inputs = {"amount": amount, "reason": reason}
    return await _act(db, caller, rng, "spend", character, inputs, apply)


# Emotions


async def emotion(
    db: Database,
    caller: Caller,
    rng: random.Random,
    *,
    emotion: Emotion,
    stages: int,
    cause: EmotionCause,
    character: Target,
) -> Acted:
    """E-1, E-2, E-10; P-4."""

    def apply(ctx: ActionContext) -> Outcome:
        return emotions.raise_emotion(ctx.sheet, emotion, stages, cause)

    inputs = {"emotion": emotion.value, "stages": stages, "cause": cause.value}
    return await _act(db, caller, rng, "emotion", character, inputs, apply)


async def relief(
    db: Database,
    caller: Caller,
    rng: random.Random,
    *,
    method: ReliefMethod,
    emotion: Emotion | None,
    character: Target,
) -> Acted:
    """E-3..E-5; P-4."""

    def apply(ctx: ActionContext) -> Outcome:
        return emotions.relief(ctx.sheet, method, emotion)

    inputs = {"method": method.value, "emotion": emotion.value if emotion else None}
    return await _act(db, caller, rng, "relief", character, inputs, apply)


async def breakdown(
    db: Database,
    caller: Caller,
    rng: random.Random,
    *,
    character: Target,
    emotion: Emotion,
    pressure: int,
    roll: int | None,
) -> Acted:
    """E-8, E-9: the GM only (P-3)."""

    def apply(ctx: ActionContext) -> Outcome:
        return emotions.situational_breakdown(
            ctx.sheet, emotion, pressure, ctx.settings, ctx.rng, roll=roll
        )

    inputs = {"emotion": emotion.value, "pressure": pressure, "roll": roll}
    return await _act(db, caller, rng, "breakdown", character, inputs, apply, Permission.GM)


# Odds (read only: nothing changes, nothing is logged)


@dataclass(frozen=True)
class Odds:
    sheet: Sheet
    settings: GuildSettings
    next_roll: odds.RecoveryOdds
    spiral: list[odds.SpiralStep]


async def recovery_odds(db: Database, caller: Caller, *, character: Target) -> Odds:
    """D-2, R-*: any member of the guild may look (nothing changes)."""
    row, settings = await read_character(db, caller, character)
    return odds_of(row.sheet, settings)


@lru_cache(maxsize=512)
def odds_of(sheet: Sheet, settings: GuildSettings) -> Odds:
    """The next roll and the next ten (`/odds`, the campaign page). Exact and pure, up to a
    few ms: the same sheet under the same settings is worked out once (a down character's
    odds are asked again and again: its page, its chart, the button)."""
    return Odds(
        sheet=sheet,
        settings=settings,
        next_roll=odds.recovery_odds(sheet, settings),
        spiral=odds.spiral(sheet, settings, rolls=SPIRAL_ROLLS),
    )
