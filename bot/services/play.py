"""The play use cases (COMMANDS.md, Play): each one rule on one character, in one transaction.

Every function checks the permission of RULES.md section 11 through `run_character_action`:
P-4 owner or GM, first aid anyone (F-1), situational breakdowns the GM only (P-3).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from bot.db import Database
from bot.services.base import given, read_character, run_character_action
from bot.services.context import ActionContext, Caller, Permission
from rules import emotions, odds, stamina, table, vitality
from rules.models import Emotion, GuildSettings, ReliefMethod, Sheet
from rules.outcome import Outcome

SPIRAL_ROLLS = 10


async def _act(
    db: Database,
    caller: Caller,
    rng: random.Random,
    command: str,
    character: str | None,
    inputs: dict,
    apply,
    permission: Permission = Permission.OWNER_OR_GM,
) -> Outcome:
    return await run_character_action(
        db,
        caller,
        command=command,
        inputs=given(inputs),
        character=character,
        permission=permission,
        apply=apply,
        rng=rng,
    )


# Vitality (seed 000)


async def damage(db, caller, rng, *, amount: int, character: str | None) -> Outcome:
    """H-1, P-4."""
    return await _act(
        db,
        caller,
        rng,
        "damage",
        character,
        {"amount": amount},
        lambda ctx: vitality.damage(ctx.sheet, amount, ctx.settings),
    )


async def heal(db, caller, rng, *, amount: int, character: str | None) -> Outcome:
    """H-2, P-4."""
    return await _act(
        db,
        caller,
        rng,
        "heal",
        character,
        {"amount": amount},
        lambda ctx: vitality.heal(ctx.sheet, amount, ctx.settings),
    )


async def recover(db, caller, rng, *, character: str | None, faces: str | None) -> Outcome:
    """R-1..R-8 (the limits of R-8 are the rule's own), P-4."""

    def apply(ctx: ActionContext) -> Outcome:
        return vitality.recover(
            ctx.sheet, ctx.settings, ctx.rng, faces=faces, in_combat=ctx.in_combat, by_gm=ctx.is_gm
        )

    return await _act(db, caller, rng, "recover", character, {"faces": faces}, apply)


async def aid(
    db, caller, rng, *, character: str, success: bool | None, roll: str | None, target: int | None
) -> Outcome:
    """F-1: any member may give first aid to any character of the guild."""

    def apply(ctx: ActionContext) -> Outcome:
        return vitality.first_aid(
            ctx.sheet, ctx.settings, ctx.rng, success=success, roll=roll, target=target
        )

    inputs = {"success": success, "roll": roll, "target": target}
    return await _act(db, caller, rng, "aid", character, inputs, apply, Permission.ANYONE)


# Stamina (seed 001) and the start of turn (C-3)


async def turn(db, caller, rng, *, character: str | None) -> Outcome:
    """C-3, P-4."""
    return await _act(
        db,
        caller,
        rng,
        "turn",
        character,
        {},
        lambda ctx: table.start_turn(ctx.sheet, ctx.settings),
    )


async def early(db, caller, rng, *, character: str | None) -> Outcome:
    """S-4, P-4."""
    return await _act(
        db,
        caller,
        rng,
        "early",
        character,
        {},
        lambda ctx: stamina.act_early(ctx.sheet, in_combat=ctx.in_combat),
    )


async def react(db, caller, rng, *, character: str | None, what: str | None) -> Outcome:
    """S-5, P-4."""
    return await _act(
        db,
        caller,
        rng,
        "react",
        character,
        {"what": what},
        lambda ctx: stamina.react(ctx.sheet, what),
    )


async def push(
    db,
    caller,
    rng,
    *,
    amount: int,
    character: str | None,
    roll: str | None,
    target: int | None,
    what: str | None,
) -> Outcome:
    """S-6, P-4."""

    def apply(ctx: ActionContext) -> Outcome:
        return stamina.push(ctx.sheet, amount, ctx.rng, roll=roll, target=target, what=what)

    inputs = {"amount": amount, "roll": roll, "target": target, "what": what}
    return await _act(db, caller, rng, "push", character, inputs, apply)


async def spend(db, caller, rng, *, amount: int, reason: str, character: str | None) -> Outcome:
    """S-7, P-4."""
    return await _act(
        db,
        caller,
        rng,
        "spend",
        character,
        {"amount": amount, "reason": reason},
        lambda ctx: stamina.spend(ctx.sheet, amount, reason),
    )


# Emotions (seed 002)


async def emotion(
    db, caller, rng, *, emotion: Emotion, stages: int, character: str | None
) -> Outcome:
    """E-1, E-2, P-4."""
    return await _act(
        db,
        caller,
        rng,
        "emotion",
        character,
        {"emotion": emotion.value, "stages": stages},
        lambda ctx: emotions.raise_emotion(ctx.sheet, emotion, stages),
    )


async def relief(
    db, caller, rng, *, method: ReliefMethod, emotion: Emotion | None, character: str | None
) -> Outcome:
    """E-3..E-5, P-4."""
    inputs = {"method": method.value, "emotion": emotion.value if emotion else None}
    return await _act(
        db,
        caller,
        rng,
        "relief",
        character,
        inputs,
        lambda ctx: emotions.relief(ctx.sheet, method, emotion),
    )


async def breakdown(
    db, caller, rng, *, character: str, emotion: Emotion, pressure: int, roll: int | None
) -> Outcome:
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


async def recovery_odds(db: Database, caller: Caller, *, character: str | None) -> Odds:
    """D-2, R-*: any member of the guild may look (nothing changes)."""
    row, settings = await read_character(db, caller, character)
    sheet = row.sheet
    return Odds(
        sheet=sheet,
        settings=settings,
        next_roll=odds.recovery_odds(sheet, settings),
        spiral=odds.spiral(sheet, settings, rolls=SPIRAL_ROLLS),
    )
