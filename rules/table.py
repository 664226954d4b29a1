"""The table's clock: start of turn (C-3), combat rounds and membership (C-1, C-2, S-4, S-4a,
S-5, R-8) and days (C-4)."""

from __future__ import annotations

from collections.abc import Container, Iterable

from rules.condition import DOWN_RULES, RollDue, finish, recovery_due_note, refuse_if_out, roll_due
from rules.models import GuildSettings, ReactionReset, Sheet
from rules.outcome import Outcome
from rules.stamina import turn_resets_reactions
from rules.text import say

# The round's flags: they belong to the round (and the fight) they were set in.
_ROUND_FLAGS = {"early_this_round": False, "spent_this_round": False, "recovered_this_round": False}


def start_turn(sheet: Sheet, settings: GuildSettings, *, in_combat: bool) -> Outcome:
    """C-3: resets the reaction cost (S-5: in combat by `reaction_reset`, outside combat
    always); reminds a downed character when its recovery roll comes (R-8)."""
    refuse_if_out(sheet, "taking a turn")
    rules = ["C-3"]
    after = sheet
    if turn_resets_reactions(settings, in_combat=in_combat):
        rules.append("S-5")
        after = sheet.update(reactions_taken=0)
    if sheet.state.is_down:
        headline = recovery_due_note(sheet, in_combat=in_combat)
        rules.append(DOWN_RULES[sheet.state])
        if roll_due(sheet, in_combat=in_combat) is not RollDue.NOW:
            rules.append("R-8")
    else:
        headline = say(
            "{name}'s turn begins: the next reaction costs {cost}.",
            name=sheet.name,
            cost=after.reactions_taken + 1,
        )
    return finish("turn", sheet, after, rules, headline=headline)


def early_actors(sheets: Iterable[Sheet]) -> list[str]:
    """S-4: the names of the characters that act before the enemy this round."""
    return [sheet.name for sheet in sheets if sheet.early_this_round]


def new_round(sheets: Iterable[Sheet], settings: GuildSettings) -> list[Outcome]:
    """C-1: a new round clears act early (S-4), the round's spending (S-4a) and the recovery
    limit (R-8); with reaction_reset=round it also resets the reaction cost (S-5)."""
    outcomes = []
    for sheet in sheets:
        changes: dict[str, object] = dict(_ROUND_FLAGS)
        rules = ["C-1", "S-4", "R-8"]
        if settings.reaction_reset is ReactionReset.ROUND:
            changes["reactions_taken"] = 0
            rules.append("S-5")
        headline = say("A new round begins for {name}.", name=sheet.name)
        outcomes.append(finish("round", sheet, sheet.update(**changes), rules, headline=headline))
    return outcomes


def join_or_leave_combat(sheet: Sheet, *, joins: bool) -> Outcome:
    """C-2, S-5 [interpretation]: joining or leaving a combat (or the combat ending) starts the
    character fresh: the first reaction of a new fight costs 1, and the round's flags (S-4,
    S-4a, R-8) belong to the fight it leaves."""
    after = sheet.update(reactions_taken=0, **_ROUND_FLAGS)
    verb = "joins" if joins else "leaves"
    headline = say("{name} " + verb + " the combat.", name=sheet.name)
    return finish("combat", sheet, after, ["C-2", "S-5"], headline=headline)


def new_day(sheets: Iterable[Sheet], *, in_combat: Container[str] = frozenset()) -> list[Outcome]:
    """C-4: relief is available again and the +3 daily bonus ends. S-5 [interpretation]: the
    reaction count of a character in no combat resets too (`in_combat`: the names of those
    that are in one, whose count the combat's turns and rounds reset)."""
    outcomes = []
    for sheet in sheets:
        changes: dict[str, object] = {"relief_used_today": False, "daily_bonus": False}
        rules = ["C-4"]
        if sheet.name not in in_combat and sheet.reactions_taken:
            changes["reactions_taken"] = 0
            rules.append("S-5")
        headline = say("A new day begins for {name}.", name=sheet.name)
        outcomes.append(finish("day", sheet, sheet.update(**changes), rules, headline=headline))
    return outcomes
