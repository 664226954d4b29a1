"""The GM's scene (G-1..G-3): a situational breakdown, damage or healing for several characters
at once, in one transaction: each character its own outcome and event, the ones that cannot
take part named and skipped."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from bot.db.database import Database
from bot.db.records import CharacterRow
from bot.db.uow import UnitOfWork
from bot.services.base import given, require_gm
from bot.services.context import Caller
from rules import emotions, scene, vitality
from rules.errors import RuleError
from rules.models import Emotion, GuildSettings, Sheet
from rules.outcome import Outcome

NO_COMBAT_HERE = (
    "There is no combat in this channel: everyone:true rolls for its members. Start one with "
    "/combat start, or leave out everyone to pick the characters."
)


@dataclass(frozen=True)
class SceneResult:
    """What the scene's one public message shows."""

    scene: scene.Scene
    settings: GuildSettings
    in_combat: frozenset[int]  # the characters in a combat (R-8 for their recovery buttons)


@dataclass(frozen=True)
class Menu:
    """The characters a GM's menu offers (G-1, G-2)."""

    characters: list[tuple[int, Sheet]]
    left_out: int = 0  # able to take part, past the menu's 25


async def menu(db: Database, caller: Caller, *, conscious_only: bool) -> Menu:
    """The menu's characters: this channel's combat first (GM, P-3)."""
    async with db.transaction(caller.guild_id, read_only=True) as uow:
        await require_gm(uow, caller)
        rows = await uow.characters()
        combat = await uow.combat(caller.channel_id)
        members = {m.id for m in await uow.members(combat.id)} if combat else set()
    characters = [(row.id, row.sheet) for row in rows]
    offered = scene.offered(characters, members, conscious_only=conscious_only)
    able = len(scene.offered(characters, members, conscious_only=conscious_only, limit=None))
    if not offered:
        raise RuleError(
            "No character can take part: this server has no living"
            + (" conscious" if conscious_only else "")
            + " character."
        )
    return Menu(offered, able - len(offered))


async def _chosen(uow: UnitOfWork, ids: Sequence[int]) -> list[CharacterRow]:
    """The chosen characters, locked in id order (no deadlock with another scene), returned in
    the order chosen; one deleted meanwhile is left out."""
    rows = {}
    for row_id in sorted(set(ids)):
        row = await uow.character_by_id(row_id)
        if row is not None:
            rows[row_id] = row
    return [rows[i] for i in dict.fromkeys(ids) if i in rows]


async def _run(
    db: Database,
    caller: Caller,
    command: str,
    inputs: dict[str, Any],
    ids: Sequence[int] | None,
    rule: Callable[[Sheet, GuildSettings], Outcome],
    scene_rule: str,
) -> SceneResult:
    """The rule on each character (`ids`, or with None every member of this channel's combat),
    each saved and logged as its own event citing the scene's rule (`scene_rule`: G-1, G-2),
    in one transaction."""
    async with db.transaction(caller.guild_id) as uow:
        settings = await require_gm(uow, caller)
        if ids is None:
            combat = await uow.combat(caller.channel_id)
            if combat is None:
                raise RuleError(NO_COMBAT_HERE)
            rows = await uow.members(combat.id, lock=True)
            if not rows:
                raise RuleError(
                    "Nobody is in this channel's combat yet: add them with /combat add."
                )
        else:
            rows = await _chosen(uow, ids)
            if not rows:
                raise RuleError("Those characters no longer exist. Nothing was rolled.")
        fighting = await uow.fighting()
        done = scene.each(
            [(r.id, r.sheet) for r in rows],
            lambda s: scene.cited(rule(s, settings), scene_rule),
        )
        for row_id, outcome in done.outcomes:
            if outcome.after != outcome.before:
                await uow.save_character(row_id, outcome.after)
            await uow.log_outcome(row_id, caller.user_id, command, inputs, outcome)
    return SceneResult(done, settings, frozenset(fighting))


async def breakdown(
    db: Database,
    caller: Caller,
    rng: random.Random,
    *,
    emotion: Emotion,
    pressure: int,
    ids: Sequence[int] | None,
) -> SceneResult:
    """G-1: each character its own Reaction Roll (E-8, E-9); GM (P-3)."""

    def rule(sheet: Sheet, settings: GuildSettings) -> Outcome:
        scene.conscious(sheet)
        return emotions.situational_breakdown(sheet, emotion, pressure, settings, rng)

    inputs = given(
        {"emotion": emotion.value, "pressure": pressure, "everyone": ids is None or None}
    )
    return await _run(db, caller, "breakdown", inputs, ids, rule, "G-1")


async def damage(db: Database, caller: Caller, *, amount: int, ids: Sequence[int]) -> SceneResult:
    """G-2: the same damage to each (H-1, V-*); GM (P-3)."""
    return await _run(
        db,
        caller,
        "damage",
        {"amount": amount, "several": True},
        ids,
        lambda sheet, settings: vitality.damage(sheet, amount, settings),
        "G-2",
    )


async def heal(db: Database, caller: Caller, *, amount: int, ids: Sequence[int]) -> SceneResult:
    """G-2: the same magic healing to each (H-2); GM (P-3)."""
    return await _run(
        db,
        caller,
        "heal",
        {"amount": amount, "several": True},
        ids,
        lambda sheet, settings: vitality.heal(sheet, amount, settings),
        "G-2",
    )
