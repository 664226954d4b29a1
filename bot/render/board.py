"""The status board: one line per character, who must roll first, kept current by the bot."""

from __future__ import annotations

from datetime import datetime

import discord

from bot.render.buttons import LastGaspButton, MySheetButton, NextRoundButton, view_of
from bot.render.common import INFO_COLOUR, escape, fit, named, stamina, truncate, vit
from bot.render.reply import Reply
from bot.services.board import BoardView
from rules.condition import RollDue, roll_due
from rules.models import Emotion, Sheet, State

_LINE = 180


def near(sheet: Sheet) -> list[str]:
    """The emotions at or one stage from their threshold (E-1)."""
    return [
        f"{e.label} {sheet.stack(e)}/{sheet.threshold}"
        for e in Emotion
        if sheet.stack(e) and sheet.stack(e) >= sheet.threshold - 1
    ]


def roll_mark(sheet: Sheet, in_combat: bool) -> str | None:
    """R-8: "rolls now" only for a roll that may be made now (in combat, not yet made this
    round); outside combat the roll waits for the GM's call."""
    due = roll_due(sheet, in_combat=in_combat)
    if due is None:
        return None
    dying = sheet.state is State.DYING
    if due is RollDue.NOW:
        return "**Last Gasp now**" if dying else "**rolls now**"
    roll = "Last Gasp" if dying else "recovery roll"
    return f"{roll} next round" if due is RollDue.NEXT_ROUND else f"{roll}: the GM calls for it"


def board_line(sheet: Sheet, in_combat: bool) -> str:
    parts = [f"{named(sheet)}", sheet.state.value, vit(sheet)]
    if not sheet.state.is_out:
        parts.append(stamina(sheet))
    if sheet.stress:
        parts.append(f"Stress {sheet.stress}")
    parts += near(sheet)
    if sheet.breakdown is not None:
        parts.append(f"Breakdown of {sheet.breakdown.label}")
    mark = roll_mark(sheet, in_combat)
    if mark is not None:
        parts.append(mark)
    return truncate(" · ".join(parts), _LINE)


def board_reply(view: BoardView, updated: datetime) -> Reply:
    combat = view.combat
    lines = []
    if combat is not None:
        early = [escape(s.name) for s in view.sheets if s.early_this_round]
        acts = f" · acting early: {', '.join(early)}" if early else ""
        lines.append(f"**Round {combat.round}**{acts}")
    lines += [board_line(sheet, combat is not None) for sheet in view.sheets]
    if not view.sheets:
        lines.append(
            "Nobody in this combat yet: /combat add." if combat else "No living characters yet."
        )
    if view.more:
        lines.append(f"… and {view.more} more")
    title = "Status board" + (" · combat" if combat else "")
    embed = discord.Embed(
        title=title, description="\n".join(lines), colour=INFO_COLOUR, timestamp=updated
    )
    embed.set_footer(text="Kept current by the bot · updated")
    items: list[LastGaspButton] = []
    if combat is not None:
        items.append(NextRoundButton(view.channel_id))
    items.append(MySheetButton())
    return Reply(embeds=[fit(embed)], view=view_of(*items))


def moved_reply() -> Reply:
    """What an old board says once a newer one is posted below it."""
    embed = discord.Embed(
        title="Status board",
        description="This board moved: the current one is further down the channel.",
        colour=INFO_COLOUR,
    )
    return Reply(embeds=[embed])


def stopped_reply() -> Reply:
    embed = discord.Embed(
        title="Status board",
        description="The GM stopped this board. /board start posts a new one.",
        colour=INFO_COLOUR,
    )
    return Reply(embeds=[embed])
