"""The character sheet in about ten lines: what is due on top, then one labelled row per part."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from bot.render.buttons import DeleteButton
from bot.render.card import Card
from bot.render.common import (
    INFO_COLOUR,
    STATE_COLOURS,
    count,
    emotion,
    escape,
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
        else f"{hurt.action} on Action Rolls · {hurt.reaction} on Reaction Rolls"
    )
    if sheet.daily_bonus:
        text += " · +3 on Action Rolls today"
    return text


def _stamina(sheet: Sheet) -> str:
    con = f"CON d{sheet.con_die}"
    if sheet.con_wounds:
        con += f" ({count(sheet.con_wounds, 'wound')})"
    cost = sheet.reactions_taken + 1
    return f"{sheet.stamina}/{sheet.max_stamina} · {con} · next reaction costs {cost}"


def _emotions(sheet: Sheet) -> str:
    """`Anger 0/4 · Fear 3/4 · …`, written as everywhere else."""
    return " · ".join(emotion(sheet, e) for e in Emotion)


def _flags(sheet: Sheet) -> str | None:
    flags = [
        (sheet.advantage, "advantage on the next recovery roll"),
        (sheet.early_this_round, "acts early this round"),
        (sheet.recovered_this_round, "recovery roll made this round"),
        (sheet.relief_used_today, "relief used today"),
    ]
    shown = [text for on, text in flags if on]
    return " · ".join(shown) if shown else None


def sheet_card(sheet: Sheet, *, title: str | None = None, headline: Text | None = None) -> Card:
    """The sheet in about ten lines; `title` (e.g. "Created") follows the name in the title,
    `headline` (its values escaped here, one by one: rules.text) comes first."""
    lines = [f"**{headline.render(escape)}**"] if headline else []
    lines.append(f"Owner <@{sheet.owner_id}> · **{sheet.state.value}**")  # never pings
    if sheet.state.is_down:
        what = (
            "the Last Gasp"
            if sheet.state is State.DYING
            else f"a recovery roll of {count(sheet.recovery_dice, 'die', 'dice')}"
        )
        lines.append(f"Due at its next turn: {what} ({DOWN_RULES[sheet.state]}).")
    if sheet.breakdown is not None:
        lines.append(breakdown_line(sheet.breakdown))
    abilities = " · ".join(
        f"{label} {signed(getattr(sheet, label.lower()))}"
        for label in ("Humility", "Composure", "Insight")
    )
    rows = (
        ("Vitality", f"VIT {sheet.vit}/{sheet.max_vit} · RES {sheet.res}"),
        ("Stamina", _stamina(sheet)),
        ("Injury", _condition(sheet)),
        ("Emotions", _emotions(sheet)),
        ("Stress", str(sheet.stress)),
        ("Abilities", abilities),
    )
    return Card(
        colour=STATE_COLOURS[sheet.state],
        title=f"{named(sheet)} · {title}" if title else named(sheet),
        lines=tuple(lines),
        rows=rows,
        small=_flags(sheet),
    )


def created_reply(sheet: Sheet) -> Reply:
    return sheet_reply(sheet, title="Created", headline=_joins(sheet))


def _joins(sheet: Sheet) -> Text:
    return say("{name} joins the table.", name=sheet.name)


def imported_reply(sheet: Sheet, left_out: Sequence[str]) -> Reply:
    """P-6: a player's import brings the build; the fields it left out are named."""
    reply = sheet_reply(sheet, title="Imported", headline=_joins(sheet))
    if left_out:
        fields = ", ".join(LABELS.get(f, f) for f in left_out)
        note = (
            f"A player's import starts the state fresh, as at creation (P-6): {fields}; "
            "the GM's import keeps them."
        )
        reply.card = replace(reply.card, lines=(*reply.card.lines, note))
    return reply


def sheet_reply(
    sheet: Sheet, *, title: str | None = None, headline: Text | None = None, private: bool = False
) -> Reply:
    return Reply(sheet_card(sheet, title=title, headline=headline), ephemeral=private)


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
    name = export_filename(sheet.name)
    text = f"**{escape(sheet.name)}**'s sheet. Bring it back with /character import."
    card = Card(colour=STATE_COLOURS[sheet.state], lines=(text,), file=name)
    return Reply(card, files=[(name, data)], ephemeral=True)


# --- deleting: a private question with two buttons, then the table is told --------------------


def delete_question(sheet: Sheet, character_id: int, asker_id: int, until: int) -> Reply:
    """Delete or Cancel, for the asker only, until `until` (Unix time)."""
    text = f"Delete **{escape(sheet.name)}** for good? Its history stays in the log."
    buttons = tuple(
        DeleteButton(action, character_id, asker_id, until) for action in ("confirm", "cancel")
    )
    return Reply(Card(colour=INFO_COLOUR, lines=(text,), buttons=buttons), ephemeral=True)


def delete_unanswered(sheet: Sheet) -> Reply:
    """What the question becomes when nobody pressed a button in time."""
    return Reply(
        Card(colour=INFO_COLOUR, lines=(f"No answer: **{escape(sheet.name)}** was kept.",))
    )


def delete_cancelled() -> Reply:
    return Reply(Card(colour=INFO_COLOUR, lines=("Nothing was deleted.",)))


def delete_answered(sheet: Sheet) -> Reply:
    """What the question becomes once the character is deleted."""
    return Reply(Card(colour=INFO_COLOUR, lines=(f"Deleted **{escape(sheet.name)}**.",)))


def deleted_notice(sheet: Sheet) -> Reply:
    """The channel's notice: the character leaves the table."""
    text = (
        f"**{escape(sheet.name)} leaves the table: deleted.**\n"
        "Its history stays in the log (the GM's /history)."
    )
    return sheet_notice("Deleted", sheet, text, colour=INFO_COLOUR)
