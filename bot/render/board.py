"""The status board: one line per character, who must roll first, kept current by the bot."""

from __future__ import annotations

from datetime import datetime

import discord

from bot.render.buttons import LastGaspButton, MySheetButton, NextRoundButton
from bot.render.card import Card, Group, with_buttons
from bot.render.common import INFO_COLOUR, escape, named, stamina, vit
from bot.render.reply import Reply
from bot.services.board import BoardView
from rules.condition import RollDue, roll_due
from rules.models import Emotion, Sheet, State


def near(sheet: Sheet) -> list[str]:
    """The emotions at or one stage from their threshold (E-1)."""
    return [
        f"{e.label} {sheet.stack(e)}/{sheet.threshold}"
        for e in Emotion
        if sheet.stack(e) and sheet.stack(e) >= sheet.threshold - 1
    ]


def roll_words(sheet: Sheet, in_combat: bool) -> tuple[str | None, bool]:
    """R-8 in words, and whether the roll may be made now: "rolls now" only for a roll that may
    be made now (in combat, not yet made this round); outside combat it waits for the GM's
    call. The campaign page says it the same way."""
    due = roll_due(sheet, in_combat=in_combat)
    if due is None:
        return None, False
    dying = sheet.state is State.DYING
    if due is RollDue.NOW:
        return ("Last Gasp now" if dying else "rolls now"), True
    roll = "Last Gasp" if dying else "recovery roll"
    if due is RollDue.NEXT_ROUND:
        return f"{roll} next round", False
    return f"{roll}: the GM calls for it", False


def roll_mark(sheet: Sheet, in_combat: bool) -> str | None:
    """The board's roll words, a roll due now in bold."""
    words, now = roll_words(sheet, in_combat)
    return f"**{words}**" if words and now else words


def facts(sheet: Sheet) -> list[str]:
    """A board line's numbers, the same on the campaign page: VIT, Stamina (not for the dead
    and the retired), Stress, the emotions near their threshold, a Breakdown."""
    parts = [vit(sheet)]
    if not sheet.state.is_out:
        parts.append(stamina(sheet))
    if sheet.stress:
        parts.append(f"Stress {sheet.stress}")
    parts += near(sheet)
    if sheet.breakdown is not None:
        parts.append(f"Breakdown of {sheet.breakdown.label}")
    return parts


def board_line(sheet: Sheet, in_combat: bool) -> str:
    parts = [f"{named(sheet)}", sheet.state.value, *facts(sheet)]
    mark = roll_mark(sheet, in_combat)
    if mark is not None:
        parts.append(mark)
    return " · ".join(parts)  # bounded: a name, numbers, words; never cut inside a name


def _groups(sheets: list[Sheet], in_combat: bool) -> tuple[Group, ...]:
    """The lines in the board's order, in up to three groups a separator apart: the down (whose
    rolls wait first), the up, the dead and retired."""
    kinds: dict[str, list[str]] = {"down": [], "up": [], "out": []}
    for sheet in sheets:
        kind = "down" if sheet.state.is_down else "out" if sheet.state.is_out else "up"
        kinds[kind].append(board_line(sheet, in_combat))
    return tuple(Group(tuple(lines)) for lines in kinds.values() if lines)


def board_reply(view: BoardView, updated: datetime) -> Reply:
    combat = view.combat
    lines = []
    if combat is not None:
        early = [escape(s.name) for s in view.sheets if s.early_this_round]
        acts = f" · acting early: {', '.join(early)}" if early else ""
        lines.append(f"**Round {combat.round}**{acts}")
    if not view.sheets:
        lines.append(
            "Nobody in this combat yet: /combat add." if combat else "No living characters yet."
        )
    stamp = discord.utils.format_dt(updated, "R")
    card = Card(
        colour=INFO_COLOUR,
        title="Status board" + (" · combat" if combat else ""),
        lines=tuple(lines),
        groups=_groups(view.sheets, combat is not None),
        more=view.more,
        small=f"Kept current by the bot · updated {stamp}",
    )
    items: list[LastGaspButton] = []
    if combat is not None:
        items.append(NextRoundButton(view.channel_id))
    items.append(MySheetButton())
    return Reply(with_buttons(card, items))


def moved_reply() -> Reply:
    """What an old board says once a newer one is posted below it."""
    text = "This board moved: the current one is further down the channel."
    return Reply(Card(colour=INFO_COLOUR, title="Status board", lines=(text,)))


def stopped_reply() -> Reply:
    text = "The GM stopped this board. /board start posts a new one."
    return Reply(Card(colour=INFO_COLOUR, title="Status board", lines=(text,)))
