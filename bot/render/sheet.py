"""The character sheet in about ten lines: two rows of inline fields, what is due on top."""

from __future__ import annotations

import re
from collections.abc import Sequence

import discord

from bot.render.common import (
    INFO_COLOUR,
    STATE_COLOURS,
    count,
    emotion,
    escape,
    fit,
    named,
    signed,
)
from bot.render.reply import Reply
from bot.render.table import sheet_notice
from rules.condition import DOWN_RULES, injury
from rules.emotion_texts import breakdown_line
from rules.models import Emotion, Sheet, State
from rules.sheet_ops import LABELS
from rules.text import Text, say


def _condition(sheet: Sheet) -> str:
    """H-3, plus the daily +3 of E-4; nothing for the dead and the retired."""
    if sheet.state.is_out:
        return "—"
    hurt = injury(sheet)
    text = (
        "none"
        if not hurt.action
        else f"{hurt.action} on Action Rolls\n{hurt.reaction} on Reaction Rolls"
    )
    if sheet.daily_bonus:
        text += "\n+3 on Action Rolls today"
    return text


def _stamina(sheet: Sheet) -> str:
    con = f"CON d{sheet.con_die}"
    if sheet.con_wounds:
        con += f" ({count(sheet.con_wounds, 'wound')})"
    return (
        f"{sheet.stamina}/{sheet.max_stamina} · {con}\n"
        f"next reaction costs {sheet.reactions_taken + 1}"
    )


def _emotions(sheet: Sheet) -> str:
    """`Anger 0/4 · Fear 3/4`, written as everywhere else, two to a line."""
    pairs = [emotion(sheet, e) for e in Emotion]
    return f"{pairs[0]} · {pairs[1]}\n{pairs[2]} · {pairs[3]}"


def _flags(sheet: Sheet) -> str | None:
    flags = [
        (sheet.advantage, "advantage on the next recovery roll"),
        (sheet.early_this_round, "acts early this round"),
        (sheet.recovered_this_round, "recovery roll made this round"),
        (sheet.relief_used_today, "relief used today"),
    ]
    shown = [text for on, text in flags if on]
    return " · ".join(shown) if shown else None


def sheet_embed(
    sheet: Sheet, *, title: str | None = None, headline: Text | None = None
) -> discord.Embed:
    """The sheet; `title` (e.g. "Created") follows the name in the title, `headline` (its
    values escaped here, one by one: rules.text) comes first."""
    lines = [f"**{headline.render(escape)}**"] if headline else []
    lines.append(f"Owner <@{sheet.owner_id}> · **{sheet.state.value}**")  # an embed never pings
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
        title=f"{named(sheet)} · {title}" if title else named(sheet),
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


def created_reply(sheet: Sheet) -> Reply:
    return sheet_reply(sheet, title="Created", headline=_joins(sheet))


def _joins(sheet: Sheet) -> Text:
    return say("{name} joins the table.", name=sheet.name)


def imported_reply(sheet: Sheet, left_out: Sequence[str]) -> Reply:
    """P-6: a player's import brings the build; the fields it left out are named."""
    reply = sheet_reply(sheet, title="Imported", headline=_joins(sheet))
    if left_out:
        fields = ", ".join(LABELS.get(f, f) for f in left_out)
        embed = reply.embeds[0]
        embed.description = (
            f"{embed.description}\nA player's import starts the state fresh, as at creation "
            f"(P-6): {fields}; the GM's import keeps them."
        )
    return reply


def sheet_reply(
    sheet: Sheet, *, title: str | None = None, headline: Text | None = None, private: bool = False
) -> Reply:
    return Reply(embeds=[sheet_embed(sheet, title=title, headline=headline)], ephemeral=private)


def selected_notice(sheet: Sheet) -> Reply:
    text = (
        f"**{escape(sheet.name)} is now your active character:** commands without "
        "`character` act on it."
    )
    return sheet_notice("Selected", sheet, text, private=True)


def export_filename(name: str) -> str:
    """A safe attachment name: `Roryn.json`."""
    stem = re.sub(r"[^A-Za-z0-9_-]+", "_", name).strip("_") or "character"
    return f"{stem[:32]}.json"


def export_reply(sheet: Sheet, data: bytes) -> Reply:
    """P-6: the sheet as a file, for the one who asked."""
    text = f"**{escape(sheet.name)}**'s sheet. Bring it back with /character import."
    return Reply(content=text, files=[(export_filename(sheet.name), data)], ephemeral=True)


# --- deleting: a private question with two buttons, then the table is told --------------------


def delete_question(sheet: Sheet, view: discord.ui.View) -> Reply:
    text = f"Delete **{escape(sheet.name)}** for good? Its history stays in the log."
    return Reply(content=text, view=view, ephemeral=True)


def delete_unanswered(sheet: Sheet) -> str:
    """What the question becomes when nobody pressed a button in time."""
    return f"No answer: **{escape(sheet.name)}** was kept."


def delete_cancelled() -> Reply:
    return Reply(content="Nothing was deleted.")


def delete_answered(sheet: Sheet) -> Reply:
    """What the question becomes once the character is deleted."""
    return Reply(content=f"Deleted **{escape(sheet.name)}**.")


def deleted_notice(sheet: Sheet) -> Reply:
    """The channel's notice: the character leaves the table."""
    text = (
        f"**{escape(sheet.name)} leaves the table: deleted.**\n"
        "Its history stays in the log (the GM's /history)."
    )
    return sheet_notice("Deleted", sheet, text, colour=INFO_COLOUR)
