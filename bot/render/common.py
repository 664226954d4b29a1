"""Shared pieces of every embed: colours by state, escaping, die faces, number formats, limits."""

from __future__ import annotations

from fractions import Fraction

import discord

from rules.models import Emotion, Sheet, State

# Discord's limits (https://discord.com/developers/docs/resources/message#embed-object-embed-limits).
TITLE_LIMIT = 256
DESCRIPTION_LIMIT = 4096
FIELD_NAME_LIMIT = 256
FIELD_VALUE_LIMIT = 1024
FIELDS_LIMIT = 25
FOOTER_LIMIT = 2048
EMBED_TOTAL_LIMIT = 6000
EMBEDS_PER_MESSAGE = 10
CHOICES_LIMIT = 25
CHOICE_NAME_LIMIT = 100
CONTENT_LIMIT = 2000

# Embed colour follows the vitality state (COMMANDS.md, "What every reply does").
STATE_COLOURS: dict[State, tuple[int, str]] = {
    State.UP: (0x2ECC71, "green"),
    State.UNCONSCIOUS: (0xF1C40F, "yellow"),
    State.CRITICAL: (0xE67E22, "orange"),
    State.DYING: (0xE74C3C, "red"),
    State.DEAD: (0x23272A, "black"),
    State.RETIRED: (0x95A5A6, "grey"),
}
INFO_COLOUR = (0x5865F2, "blurple")  # replies about no single character (odds tables, lists)
_COLOUR_NAMES = {value: name for value, name in [*STATE_COLOURS.values(), INFO_COLOUR]}

# D-1, D-4: each face readable at a glance, by symbol and by letter.
FACE_SYMBOLS = {"M": "○", "H": "●", "C": "◉"}
FACE_WORDS = {"M": "Miss", "H": "Hit", "C": "Crit"}


def state_colour(state: State) -> discord.Colour:
    return discord.Colour(STATE_COLOURS[state][0])


def info_colour() -> discord.Colour:
    return discord.Colour(INFO_COLOUR[0])


def colour_name(value: int) -> str:
    """The console names colours instead of printing hex."""
    return _COLOUR_NAMES.get(value, f"#{value:06x}")


def escape(text: str) -> str:
    """A user-supplied name or text, shown literally: no formatting, no mention."""
    return discord.utils.escape_markdown(discord.utils.escape_mentions(text))


def truncate(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def face(letter: str) -> str:
    """One die: `◉ C`."""
    return f"{FACE_SYMBOLS[letter]} {letter}"


def count(n: int, noun: str, plural: str | None = None) -> str:
    """`1 die`, `3 dice`, `0 characters`."""
    return f"{n} {noun if n == 1 else plural or noun + 's'}"


def signed(n: int) -> str:
    return f"+{n}" if n >= 0 else str(n)


# Numbers are written the same way everywhere (COMMANDS.md).


def vit(sheet: Sheet) -> str:
    return f"VIT {sheet.vit}/{sheet.max_vit}"


def stamina(sheet: Sheet) -> str:
    return f"Stamina {sheet.stamina}/{sheet.max_stamina}"


def stress(sheet: Sheet) -> str:
    return f"Stress {sheet.stress}"


def emotion(sheet: Sheet, which: Emotion) -> str:
    return f"{which.label} {sheet.stack(which)}/{sheet.threshold}"


def emotions(sheet: Sheet) -> str:
    return " · ".join(emotion(sheet, e) for e in Emotion)


def fit(embed: discord.Embed) -> discord.Embed:
    """Keep an embed inside Discord's limits: cut fields past 25 and the longest texts last."""
    if embed.title:
        embed.title = truncate(embed.title, TITLE_LIMIT)
    if embed.description:
        embed.description = truncate(embed.description, DESCRIPTION_LIMIT)
    fields = embed.fields[:FIELDS_LIMIT]
    embed.clear_fields()
    for f in fields:
        embed.add_field(
            name=truncate(f.name or "\u200b", FIELD_NAME_LIMIT),
            value=truncate(f.value or "\u200b", FIELD_VALUE_LIMIT),
            inline=bool(f.inline),
        )
    if embed.footer.text:
        embed.set_footer(text=truncate(embed.footer.text, FOOTER_LIMIT))
    while len(embed) > EMBED_TOTAL_LIMIT and embed.fields:
        embed.remove_field(len(embed.fields) - 1)
    if len(embed) > EMBED_TOTAL_LIMIT and embed.description:
        room = EMBED_TOTAL_LIMIT - (len(embed) - len(embed.description))
        embed.description = truncate(embed.description, max(room, 1))
    return embed


def percent(p: Fraction) -> str:
    """`16.67%`; never rounds a possible result to 0% or a not-certain one to 100%."""
    if p == 0:
        return "0%"
    if p == 1:
        return "100%"
    value = float(p) * 100
    if value < 0.01:
        return "<0.01%"
    if value > 99.99:
        return ">99.99%"
    return f"{value:.2f}%"


def chance(p: Fraction) -> str:
    """Exact where the fraction is short (`1/6 (16.67%)`), the percentage otherwise."""
    if p in (0, 1) or p.denominator > 10_000:
        return percent(p)
    return f"{p.numerator}/{p.denominator} ({percent(p)})"
