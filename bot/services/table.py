"""Use cases of the GM's table: combat (C-1, C-2), rounds (S-4), days (C-4), rests (S-9),
CON wounds (S-2, S-3), quests (E-5), history and undo.

Commands on several characters lock them in id order (the repositories do) and log one event
per changed character, so that /history and /undo work per character.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bot.db.database import Database
from bot.db.records import CharacterRow, Combat, Event
from bot.db.uow import UnitOfWork
from bot.services.base import (
    change_character,
    is_gm,
    lookup,
    require_gm,
    run_character_action,
)
from bot.services.context import Acted, ActionContext, Caller, Permission, Target
from rules import emotions, stamina, table
from rules.errors import RuleError
from rules.models import GuildSettings, RestKind, Sheet
from rules.outcome import Outcome

NO_COMBAT = "There is no combat in this channel: the GM starts one with /combat start."


# Each result carries the guild's settings: its reply names rule IDs unless `rule_ids` is off.


@dataclass(frozen=True)
class CombatView:
    combat: Combat
    members: list[CharacterRow]
    settings: GuildSettings


@dataclass(frozen=True)
class Membership:
    """A character joined or left this channel's combat."""

    combat: Combat
    row: CharacterRow
    settings: GuildSettings


@dataclass(frozen=True)
class RoundResult:
    combat: Combat  # with the new round number
    early: list[str]  # S-4: who acted early in the round that just ended
    members: list[Sheet]  # as the new round finds them
    settings: GuildSettings


@dataclass(frozen=True)
class DayResult:
    day: int
    outcomes: list[Outcome]
    settings: GuildSettings


@dataclass(frozen=True)
class RestResult:
    outcomes: list[Outcome]
    settings: GuildSettings


async def _save_and_log(
    uow: UnitOfWork,
    rows: Sequence[CharacterRow],
    outcomes: Sequence[Outcome],
    caller: Caller,
    command: str,
    inputs: dict[str, Any],
) -> None:
    """Save and log each changed sheet; an outcome that changed nothing is not an event."""
    by_name = {row.sheet.name: row for row in rows}
    for outcome in outcomes:
        if outcome.after == outcome.before:
            continue
        row = by_name[outcome.before.name]
        await uow.save_character(row.id, outcome.after)
        await uow.log_outcome(row.id, caller.user_id, command, inputs, outcome)


async def _this_combat(uow: UnitOfWork, caller: Caller, *, lock: bool = False) -> Combat:
    combat = await uow.combat(caller.channel_id, lock=lock)
    if combat is None:
        raise RuleError(NO_COMBAT)
    return combat


# --- combat ----------------------------------------------------------------------------------


async def start_combat(db: Database, caller: Caller) -> Combat:
    """C-1: GM only; one combat per channel."""
    async with db.transaction(caller.guild_id) as uow:
        await require_gm(uow, caller)
        combat = await uow.start_combat(caller.channel_id)
        await uow.log(None, caller.user_id, "combat start", {"channel_id": caller.channel_id})
    return combat


async def end_combat(db: Database, caller: Caller) -> CombatView:
    """C-1: GM only. S-5: every member leaves it fresh (reaction cost, round flags)."""
    async with db.transaction(caller.guild_id) as uow:
        settings = await require_gm(uow, caller)
        combat = await _this_combat(uow, caller)
        members = await uow.members(combat.id, lock=True)
        outcomes = [table.join_or_leave_combat(row.sheet, joins=False) for row in members]
        inputs = {"channel_id": caller.channel_id, "round": combat.round}
        await _save_and_log(uow, members, outcomes, caller, "combat end", inputs)
        await uow.end_combat(caller.channel_id)
        await uow.log(None, caller.user_id, "combat end", inputs)
    return CombatView(combat=combat, members=members, settings=settings)


async def combat_status(db: Database, caller: Caller) -> CombatView:
    """Anyone in the guild."""
    async with db.transaction(caller.guild_id, read_only=True) as uow:
        combat = await _this_combat(uow, caller)
        members = await uow.members(combat.id)
        return CombatView(combat=combat, members=members, settings=await uow.settings())


async def _membership(
    uow: UnitOfWork, caller: Caller, row: CharacterRow, command: str, *, joins: bool
) -> CharacterRow:
    """S-5: joining or leaving starts the character fresh; logged as bookkeeping (U-2)."""
    outcome = table.join_or_leave_combat(row.sheet, joins=joins)
    if outcome.after != outcome.before:
        await uow.save_character(row.id, outcome.after)
    inputs = {"channel_id": caller.channel_id}
    await uow.log_outcome(row.id, caller.user_id, command, inputs, outcome)
    return CharacterRow(row.id, row.guild_id, outcome.after)


async def join_combat(db: Database, caller: Caller, name: Target) -> Membership:
    """Owner or GM (P-4); C-2: in at most one combat (refused by the unit of work)."""
    async with db.transaction(caller.guild_id) as uow:
        row = await lookup(uow, caller, name, Permission.OWNER_OR_GM)
        combat = await _this_combat(uow, caller)
        await uow.add_member(combat.id, row.id)
        row = await _membership(uow, caller, row, "combat add", joins=True)
        settings = await uow.settings()
    return Membership(combat, row, settings)


async def leave_combat(db: Database, caller: Caller, name: Target) -> Membership:
    """Owner or GM (P-4): leave this channel's combat."""
    async with db.transaction(caller.guild_id) as uow:
        row = await lookup(uow, caller, name, Permission.OWNER_OR_GM)
        combat = await _this_combat(uow, caller)
        current = await uow.combat_of(row.id)
        if current is None or current.id != combat.id:
            raise RuleError(
                "{name} is not in this channel's combat: /combat status lists who is.",
                name=row.sheet.name,
            )
        await uow.remove_member(combat.id, row.id)
        row = await _membership(uow, caller, row, "combat remove", joins=False)
        settings = await uow.settings()
    return Membership(combat, row, settings)


# --- the clock -------------------------------------------------------------------------------


async def next_round(db: Database, caller: Caller) -> RoundResult:
    """C-1, S-4: the next round of this channel's combat. Lists who acted early in the round
    that ended, before the rule clears the flags."""
    async with db.transaction(caller.guild_id) as uow:
        settings = await require_gm(uow, caller)
        combat = await _this_combat(uow, caller, lock=True)  # its round is rewritten below
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
        members=[o.after for o in outcomes],
        settings=settings,
    )


async def next_day(db: Database, caller: Caller) -> DayResult:
    """C-4: GM only; every character of the guild (S-5: the reaction count of those in no
    combat resets too)."""
    async with db.transaction(caller.guild_id) as uow:
        settings = await require_gm(uow, caller)
        day = await uow.day() + 1
        rows = await uow.characters(lock=True)
        fighting = await uow.fighting()
        in_combat = {row.sheet.name for row in rows if row.id in fighting}
        outcomes = table.new_day([row.sheet for row in rows], in_combat=in_combat)
        await uow.set_day(day)
        await _save_and_log(uow, rows, outcomes, caller, "day", {"day": day})
        await uow.log(None, caller.user_id, "day", {"day": day})
    return DayResult(day=day, outcomes=outcomes, settings=settings)


# --- Stamina, wounds, quests -----------------------------------------------------------------


async def rest(
    db: Database, caller: Caller, rng: random.Random, kind: RestKind, name: Target
) -> Acted:
    """S-9: one character: owner or GM, the GM only while it is in a combat."""

    def apply(ctx: ActionContext) -> Outcome:
        return stamina.rest(ctx.sheet, kind, in_combat=ctx.in_combat, by_gm=ctx.is_gm)

    return await run_character_action(
        db,
        caller,
        command="rest",
        inputs={"kind": kind.value, "character": name} if name else {"kind": kind.value},
        target=name,
        permission=Permission.OWNER_OR_GM,
        apply=apply,
        rng=rng,
    )


async def rest_everyone(db: Database, caller: Caller, kind: RestKind) -> RestResult:
    """S-9: every living character of the guild (GM, P-3)."""
    inputs = {"kind": kind.value, "everyone": True}
    async with db.transaction(caller.guild_id) as uow:
        settings = await require_gm(uow, caller)
        rows = await uow.characters(lock=True)
        outcomes = stamina.rest_all([row.sheet for row in rows], kind)
        if not outcomes:
            raise RuleError(
                "This server has no living character to rest: the GM can bring one back "
                "with /character revive."
            )
        await _save_and_log(uow, rows, outcomes, caller, "rest", inputs)
    return RestResult(outcomes, settings)


async def wound(
    db: Database, caller: Caller, rng: random.Random, name: str, *, recover: bool = False
) -> Acted:
    """S-2, S-3, V-5: GM only (P-3)."""
    step = stamina.recover_wound if recover else stamina.wound

    def rule(ctx: ActionContext) -> Outcome:
        return step(ctx.sheet)

    return await change_character(
        db, caller, rng, "wound", name, Permission.GM, rule, {"recover": recover}
    )


async def complete_quest(db: Database, caller: Caller, rng: random.Random, name: str) -> Acted:
    """E-5: GM only (P-3)."""

    def rule(ctx: ActionContext) -> Outcome:
        return emotions.complete_quest(ctx.sheet)

    return await change_character(db, caller, rng, "quest complete", name, Permission.GM, rule, {})


# --- the event log ---------------------------------------------------------------------------


DELETED = "deleted:"  # autocomplete's value for a deleted character: `deleted:<id>`


@dataclass(frozen=True)
class History:
    sheet: Sheet  # as it is, or as it was when deleted
    events: list[Event]
    deleted: bool


async def history(
    db: Database, caller: Caller, name: Target, limit: int, *, everything: bool = False
) -> History:
    """U-2: the latest changes, newest first (bookkeeping too with `everything`). Owner or GM
    (P-4), the safer reading of who may read a character's log; a deleted character's log is
    the GM's (by its old name, or autocomplete's `deleted:<id>`)."""
    async with db.transaction(caller.guild_id, read_only=True) as uow:
        try:
            row = await lookup(uow, caller, name, Permission.OWNER_OR_GM)
        except RuleError:
            gone = await _deleted(uow, caller, name)
            if gone is None:
                raise
            character_id, sheet = gone
            events = await uow.history(character_id, limit, bookkeeping=everything)
            return History(sheet, events, deleted=True)
        events = await uow.history(row.id, limit, bookkeeping=everything)
        return History(row.sheet, events, deleted=False)


async def _deleted(uow: UnitOfWork, caller: Caller, name: Target) -> tuple[int, Sheet] | None:
    """A deleted character by its old name or `deleted:<id>`, for the GM only."""
    if not isinstance(name, str) or not is_gm(await uow.settings(), caller):
        return None
    if name.startswith(DELETED) and name[len(DELETED) :].isdigit():
        wanted = int(name[len(DELETED) :])
        return next(((i, s) for i, s in await uow.deleted() if i == wanted), None)
    return await uow.deleted_named(name)


async def deleted_characters(db: Database, caller: Caller) -> list[tuple[int, Sheet]]:
    """For the GM's autocomplete of /history: the deleted characters of the guild."""
    async with db.transaction(caller.guild_id, read_only=True) as uow:
        if not is_gm(await uow.settings(), caller):
            return []
        return await uow.deleted()


@dataclass(frozen=True)
class Undone:
    acted: Acted
    reverted: Event


async def undo(db: Database, caller: Caller, name: str) -> Undone:
    """U-3, P-3: the GM reverts the latest change to a character; the undo is logged too."""
    async with db.transaction(caller.guild_id) as uow:
        row = await lookup(uow, caller, name, Permission.GM)
        outcome, event = await uow.undo(row.id, caller.user_id)
        settings = await uow.settings()
        in_combat = await uow.combat_of(row.id) is not None
    return Undone(Acted(outcome, row.id, settings, in_combat), event)
