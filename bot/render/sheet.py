"""The character sheet in about ten lines: two rows of inline fields, what is due on top."""

from __future__ import annotations

import discord

from bot.render.common import STATE_COLOURS, count, fit, named, signed
from bot.render.reply import Reply
from rules.condition import DOWN_RULES, injury
from rules.emotion_texts import breakdown_line
from rules.models import Emotion, Sheet, State


def _condition(sheet: Sheet) -> str:
    """H-3, plus the daily +3 of E-4."""
    hurt = injury(sheet)
    text = "none" if not hurt.action else f"{hurt.action} Action\n{hurt.reaction} Reaction"
    if sheet.daily_bonus:
        text += "\n+3 Action (today)"
    return text


def _stamina(sheet: Sheet) -> str:
    con = f"CON d{sheet.con_die}"
    if sheet.con_wounds:
        con += f" ({count(sheet.con_wounds, 'wound')})"
    return f"{sheet.stamina}/{sheet.max_stamina} · {con}\nnext reaction {sheet.reactions_taken + 1}"


def _emotions(sheet: Sheet) -> str:
    pairs = [f"{e.label} {sheet.stack(e)}" for e in Emotion]
    return f"{pairs[0]} · {pairs[1]}\n{pairs[2]} · {pairs[3]} (of {sheet.threshold})"


def _flags(sheet: Sheet) -> str | None:
    flags = [
        (sheet.advantage, "advantage on the next recovery roll"),
        (sheet.early_this_round, "acts early this round"),
        (sheet.recovered_this_round, "recovery roll made this round"),
        (sheet.relief_used_today, "relief used today"),
    ]
    shown = [text for on, text in flags if on]
    return " · ".join(shown) if shown else None


def sheet_embed(sheet: Sheet, *, headline: str | None = None) -> discord.Embed:
    """The sheet; `headline` (e.g. "created") follows the name in the title."""
    lines = [f"Owner <@{sheet.owner_id}> · **{sheet.state.value}**"]  # an embed never pings
    if sheet.state.is_down:
        what = (
            "the Last Gasp"
            if sheet.state is State.DYING
            else f"a recovery roll of {count(sheet.recovery_dice, 'die', 'dice')}"
        )
        lines.append(f"Due at its next turn: {what} ({DOWN_RULES[sheet.state]}).")
    if sheet.breakdown is not None:
        lines.append(breakdown_line(sheet.breakdown))
    embed = discord.Embed(
        title=f"{named(sheet)} · {headline}" if headline else named(sheet),
        description="\n".join(lines),
        colour=STATE_COLOURS[sheet.state],
    )
    embed.add_field(name="Vitality", value=f"VIT {sheet.vit}/{sheet.max_vit}\nRES {sheet.res}")
    embed.add_field(name="Stamina", value=_stamina(sheet))
    embed.add_field(name="Injury", value=_condition(sheet))
    embed.add_field(name="Emotions", value=_emotions(sheet))
    embed.add_field(name="Stress", value=str(sheet.stress))
    abilities = "\n".join(
        f"{label} {signed(getattr(sheet, label.lower()))}"
        for label in ("Humility", "Composure", "Insight")
    )
    embed.add_field(name="Abilities", value=abilities)
    flags = _flags(sheet)
    if flags:
        embed.set_footer(text=flags)
    return fit(embed)


def sheet_reply(sheet: Sheet, *, headline: str | None = None, private: bool = False) -> Reply:
    return Reply(embeds=[sheet_embed(sheet, headline=headline)], ephemeral=private)
