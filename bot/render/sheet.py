"""The whole character sheet as one embed (RULES.md section 1)."""

from __future__ import annotations

import discord

from bot.render.common import (
    count,
    emotions,
    escape,
    fit,
    signed,
    stamina,
    state_colour,
    stress,
    vit,
)
from rules.condition import DOWN_RULES, injury
from rules.emotions import BREAKDOWN_EFFECTS
from rules.models import Sheet


def vitality_text(sheet: Sheet) -> str:
    text = f"{vit(sheet)} · RES {sheet.res} · **{sheet.state.value}**"
    if sheet.state.is_down:
        dice = count(sheet.recovery_dice, "die", "dice")
        text += f"\nRecovery roll due: {dice} ({DOWN_RULES[sheet.state]})"
    return text


def condition_text(sheet: Sheet) -> str:
    """H-3, plus the daily +3 of E-4."""
    lines = [f"Injury (H-3): {injury(sheet).label}"]
    if sheet.daily_bonus:
        lines.append("+3 on all Action Rolls until the end of the day (E-4)")
    return "\n".join(lines)


def stamina_text(sheet: Sheet) -> str:
    con = f"CON d{sheet.con_die}"
    if sheet.con_wounds:
        con += f" (base d{sheet.con_base}, {count(sheet.con_wounds, 'wound')})"
    cost = sheet.reactions_taken + 1
    return f"{stamina(sheet)} · {con}\nNext reaction costs {cost} (S-5)"


def flags_text(sheet: Sheet) -> str:
    flags = [
        (sheet.advantage, "advantage on the next recovery roll (F-1)"),
        (sheet.early_this_round, "acts early this round (S-4)"),
        (sheet.recovered_this_round, "has made its recovery roll this round (R-8)"),
        (sheet.relief_used_today, "relief used today (E-3)"),
    ]
    return "\n".join(text for on, text in flags if on) or "none"


def sheet_embed(sheet: Sheet, *, headline: str | None = None) -> discord.Embed:
    """The sheet; `headline` (e.g. "created") follows the name in the title."""
    name = escape(sheet.name)
    embed = discord.Embed(
        title=f"{name} · {headline}" if headline else name,
        description=f"Owner <@{sheet.owner_id}>",  # inside an embed a mention never pings
        colour=state_colour(sheet.state),
    )
    embed.add_field(name="Vitality", value=vitality_text(sheet), inline=False)
    embed.add_field(name="Condition", value=condition_text(sheet), inline=False)
    embed.add_field(name="Stamina", value=stamina_text(sheet), inline=False)
    embed.add_field(name="Emotions", value=f"{emotions(sheet)}\n{stress(sheet)}", inline=False)
    if sheet.breakdown is not None:
        embed.add_field(
            name=f"Breakdown: {sheet.breakdown.label} (E-6)",
            value=BREAKDOWN_EFFECTS[sheet.breakdown],
            inline=False,
        )
    abilities = " · ".join(
        f"{label} {signed(getattr(sheet, label.lower()))}"
        for label in ("Humility", "Composure", "Insight")
    )
    embed.add_field(name="Abilities", value=abilities, inline=False)
    embed.add_field(name="Flags", value=flags_text(sheet), inline=False)
    return fit(embed)
