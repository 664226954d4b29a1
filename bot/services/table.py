"""Use cases of the GM's table: combat (C-1, C-2), rounds (S-4), days (C-4), rests (S-9),
CON wounds (S-2, S-3), quests (E-5), history and undo.

Commands on several characters lock them in id order (the repositories do) and log one event
per changed character, so that /history and /undo work per character.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from bot.db.records import Combat, Event, shown
from bot.services.base import change_character, lookup, require_gm, run_character_action
from bot.services.context import Caller, CharacterRow, Permission
from rules import emotions, stamina, table
from rules.models import RestKind
from rules.outcome import Outcome, RuleError

NO_COMBAT = "There is no combat in this channel: the GM starts one with /combat start."


@dataclass(frozen=True)
class CombatView:
    combat: Combat
    members: list[CharacterRow]


@dataclass(frozen=True)
class RoundResult:
    combat: Combat  # with the new round number
    early: list[str]  # S-4: who acted early in the round that just ended
    outcomes: list[Outcome]


@dataclass(frozen=True)
class DayResult:
    day: int
    outcomes: list[Outcome]


async def _save_and_log(uow, rows, outcomes, caller: Caller, command: str, inputs: dict) -> None:
    """Save and log each changed sheet; an outcome that changed nothing is not an event."""
    by_name = {row.sheet.name: row for row in rows}
    for outcome in outcomes:
        if outcome.after == outcome.before:
            continue
        row = by_name[outcome.before.name]
        await uow.save_character(row.id, outcome.after)
        await uow.log(row.id, caller.user_id, command, inputs, outcome)


async def _this_combat(uow, caller: Caller) -> Combat:
    combat = await uow.combat(caller.channel_id)
    if combat is None:
        raise RuleError(NO_COMBAT)
    return combat


# --- combat ----------------------------------------------------------------------------------


async def start_combat(db, caller: Caller) -> Combat:
    """C-1: GM only; one combat per channel."""
    async with db.transaction(caller.guild_id) as uow:
        await require_gm(uow, caller)
        combat = await uow.start_combat(caller.channel_id)
        await uow.log(None, caller.user_id, "combat start", {"channel_id": caller.channel_id})
    return combat


async def end_combat(db, caller: Caller) -> CombatView:
    """C-1: GM only. Ending the combat ends its round too: the members' round flags (act
    early, the recovery limit) are cleared by the same rule as /round, so that a later combat
    starts fresh."""
    async with db.transaction(caller.guild_id) as uow:
        settings = await require_gm(uow, caller)
        combat = await _this_combat(uow, caller)
        members = await uow.members(combat.id, lock=True)
        outcomes = table.new_round([row.sheet for row in members], settings)
        inputs = {"channel_id": caller.channel_id, "round": combat.round}
        await _save_and_log(uow, members, outcomes, caller, "combat end", inputs)
        await uow.end_combat(caller.channel_id)
        await uow.log(None, caller.user_id, "combat end", inputs)
    return CombatView(combat=combat, members=members)


async def combat_status(db, caller: Caller) -> CombatView:
    """Anyone in the guild."""
    async with db.transaction(caller.guild_id, read_only=True) as uow:
        combat = await _this_combat(uow, caller)
        return CombatView(combat=combat, members=await uow.members(combat.id))


async def join_combat(db, caller: Caller, name: str | None) -> tuple[Combat, CharacterRow]:
    """Owner or GM (P-4); C-2: in at most one combat (refused by the unit of work)."""
    async with db.transaction(caller.guild_id) as uow:
        row = await lookup(uow, caller, name, Permission.OWNER_OR_GM)
        combat = await _this_combat(uow, caller)
        await uow.add_member(combat.id, row.id)
        await uow.log(row.id, caller.user_id, "combat add", {"channel_id": caller.channel_id})
    return combat, row


async def leave_combat(db, caller: Caller, name: str | None) -> tuple[Combat, CharacterRow]:
    """Owner or GM (P-4): leave this channel's combat."""
    async with db.transaction(caller.guild_id) as uow:
        row = await lookup(uow, caller, name, Permission.OWNER_OR_GM)
        combat = await _this_combat(uow, caller)
        current = await uow.combat_of(row.id)
        if current is None or current.id != combat.id:
            raise RuleError(
                f"{shown(row.sheet.name)} is not in this channel's combat: "
                "/combat status lists who is."
            )
        await uow.remove_member(combat.id, row.id)
        await uow.log(row.id, caller.user_id, "combat remove", {"channel_id": caller.channel_id})
    return combat, row


# --- the clock -------------------------------------------------------------------------------


async def next_round(db, caller: Caller) -> RoundResult:
    """C-1, S-4: the next round of this channel's combat. Lists who acted early in the round
    that ended, before the rule clears the flags."""
    async with db.transaction(caller.guild_id) as uow:
        settings = await require_gm(uow, caller)
        combat = await _this_combat(uow, caller)
        members = await uow.members(combat.id, lock=True)
        sheets = [row.sheet for row in members]
        early = table.early_actors(sheets)
        outcomes = table.new_round(sheets, settings)
        number = combat.round + 1
        await uow.set_round(combat.id, number)
        await _save_and_log(uow, members, outcomes, caller, "round", {"round": number})
        await uow.log(None, caller.user_id, "round", {"round": number, "early": early})
    return RoundResult(
        combat=Combat(id=combat.id, channel_id=combat.channel_id, round=number),
        early=early,
        outcomes=outcomes,
    )


async def next_day(db, caller: Caller) -> DayResult:
    """C-4: GM only; every character of the guild."""
    async with db.transaction(caller.guild_id) as uow:
        await require_gm(uow, caller)
        day = await uow.day() + 1
        rows = await uow.characters(lock=True)
        outcomes = table.new_day([row.sheet for row in rows])
        await uow.set_day(day)
        await _save_and_log(uow, rows, outcomes, caller, "day", {"day": day})
        await uow.log(None, caller.user_id, "day", {"day": day})
    return DayResult(day=day, outcomes=outcomes)


# --- Stamina, wounds, quests -----------------------------------------------------------------


async def rest(
    db,
    caller: Caller,
    rng: random.Random,
    kind: RestKind,
    name: str | None,
    *,
    everyone: bool = False,
) -> list[Outcome]:
    """S-9: one character (owner or GM), or every living character of the guild (GM, P-3)."""
    inputs = {"kind": kind.value, "character": name, "everyone": everyone}
    if not everyone:
        outcome = await run_character_action(
            db,
            caller,
            command="rest",
            inputs=inputs,
            character=name,
            permission=Permission.OWNER_OR_GM,
            apply=lambda ctx: stamina.rest(ctx.sheet, kind),
            rng=rng,
        )
        return [outcome]
    if name is not None:
        raise RuleError("Give either a character or everyone:true, not both.")
    async with db.transaction(caller.guild_id) as uow:
        await require_gm(uow, caller)
        rows = await uow.characters(lock=True)
        outcomes = stamina.rest_all([row.sheet for row in rows], kind)
        if not outcomes:
            raise RuleError(
                "This server has no living character to rest: the GM can bring one back "
                "with /character revive."
            )
        await _save_and_log(uow, rows, outcomes, caller, "rest", inputs)
    return outcomes


async def wound(
    db, caller: Caller, rng: random.Random, name: str, *, recover: bool = False
) -> Outcome:
    """S-2, S-3: GM only (P-3)."""
    rule = stamina.recover_wound if recover else stamina.wound
    return await change_character(
        db, caller, rng, "wound", name, Permission.GM, rule, recover=recover
    )


async def complete_quest(db, caller: Caller, rng: random.Random, name: str) -> Outcome:
    """E-5: GM only (P-3)."""
    return await change_character(
        db, caller, rng, "quest complete", name, Permission.GM, emotions.complete_quest
    )


# --- the event log ---------------------------------------------------------------------------


async def history(
    db, caller: Caller, name: str | None, limit: int
) -> tuple[CharacterRow, list[Event]]:
    """Owner or GM (P-4), the safer reading of who may read a character's log: the latest
    events, newest first."""
    async with db.transaction(caller.guild_id, read_only=True) as uow:
        row = await lookup(uow, caller, name, Permission.OWNER_OR_GM)
        return row, await uow.history(row.id, limit)


async def undo(db, caller: Caller, name: str) -> Outcome:
    """P-3: the GM reverts the latest change to a character; the undo is logged too."""
    async with db.transaction(caller.guild_id) as uow:
        row = await lookup(uow, caller, name, Permission.GM)
        return await uow.undo(row.id, caller.user_id)
