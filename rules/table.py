"""The table's clock: start of turn (C-3), combat rounds and membership (C-1, C-2, S-4, S-5,
R-8) and days (C-4)."""

from __future__ import annotations

from collections.abc import Iterable

from rules.condition import DOWN_RULES, finish, recovery_due_note, refuse_if_out
from rules.models import GuildSettings, ReactionReset, Sheet
from rules.outcome import Outcome


def start_turn(sheet: Sheet, settings: GuildSettings) -> Outcome:
    """C-3: resets the reaction cost (S-5, reaction_reset=turn); reminds a downed character."""
    refuse_if_out(sheet, "taking a turn")
    rules = ["C-3"]
    after = sheet
    if settings.reaction_reset is ReactionReset.TURN:
        rules.append("S-5")
        after = sheet.update(reactions_taken=0)
    if sheet.state.is_down:
        headline = recovery_due_note(sheet)
        rules.append(DOWN_RULES[sheet.state])
    else:
        headline = (
            f"{sheet.name}'s turn begins: the next reaction costs {after.reactions_taken + 1}."
        )
    return finish("turn", sheet, after, rules, headline=headline)


def early_actors(sheets: Iterable[Sheet]) -> list[str]:
    """S-4: the names of the characters that act before the enemy this round."""
    return [sheet.name for sheet in sheets if sheet.early_this_round]


def new_round(sheets: Iterable[Sheet], settings: GuildSettings) -> list[Outcome]:
    """C-1: a new round clears act early (S-4) and the recovery limit (R-8); with
    reaction_reset=round it also resets the reaction cost (S-5)."""
    outcomes = []
    for sheet in sheets:
        changes: dict[str, object] = {"early_this_round": False, "recovered_this_round": False}
        rules = ["C-1", "S-4", "R-8"]
        if settings.reaction_reset is ReactionReset.ROUND:
            changes["reactions_taken"] = 0
            rules.append("S-5")
        headline = f"A new round begins for {sheet.name}."
        outcomes.append(finish("round", sheet, sheet.update(**changes), rules, headline=headline))
    return outcomes


def join_or_leave_combat(sheet: Sheet, *, joins: bool) -> Outcome:
    """C-2, S-5 [interpretation]: joining or leaving a combat (or the combat ending) starts the
    character fresh: the first reaction of a new fight costs 1, and the round's flags (S-4,
    R-8) belong to the fight it leaves."""
    after = sheet.update(reactions_taken=0, early_this_round=False, recovered_this_round=False)
    verb = "joins" if joins else "leaves"
    headline = f"{sheet.name} {verb} the combat."
    return finish("combat", sheet, after, ["C-2", "S-5"], headline=headline)


def new_day(sheets: Iterable[Sheet]) -> list[Outcome]:
    """C-4: relief is available again and the +3 daily bonus ends."""
    return [
        finish(
            "day",
            sheet,
            sheet.update(relief_used_today=False, daily_bonus=False),
            ["C-4"],
            headline=f"A new day begins for {sheet.name}.",
        )
        for sheet in sheets
    ]
