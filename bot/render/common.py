"""Shared pieces of every reply: colours and state marks, escaping, number formats, the limits of
Discord's choices (a message's own limits: bot/render/card.py)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from fractions import Fraction
from functools import lru_cache

from rules.models import Emotion, GuildSettings, RuleIds, Sheet, State
from rules.names import graphemes

# Discord's limits of an autocomplete's choices, and of a file the bot sends.
CHOICES_LIMIT = 25
CHOICE_NAME_LIMIT = 100
FILE_LIMIT = 8 * 1024 * 1024

# Colours by what happened, each with a contrast of at least 3:1 against both of Discord's
# themes (#313338 dark, #FFFFFF light): docs/commands.md, "Colours".
STATE_COLOURS: dict[State, int] = {
    State.UP: 0x2E9E4F,  # green
    State.UNCONSCIOUS: 0xB58900,  # yellow
    State.CRITICAL: 0xE06C00,  # orange
    State.DYING: 0xE74C3C,  # red
    State.DEAD: 0xFF3366,  # crimson, bright enough for the dark theme
    State.RETIRED: 0x808B96,  # grey
}
EMOTION_COLOUR = 0xA970E0  # purple: emotions, Stress, Breakdowns
FAILURE_COLOUR = 0xD35F4E  # brick: a failed check, never green
LAST_GASP_COLOUR = 0x1F8FD1  # the Last Gasp's own colour
INFO_COLOUR = 0x6A75F2  # replies about no single character (lists, settings)
COLOUR_NAMES = {
    **{value: state.value.lower() for state, value in STATE_COLOURS.items()},
    EMOTION_COLOUR: "purple",
    FAILURE_COLOUR: "brick",
    LAST_GASP_COLOUR: "last gasp blue",
    INFO_COLOUR: "blurple",
}

# One mark per state, in titles and lists.
STATE_MARKS: dict[State, str] = {
    State.UP: "🟢",
    State.UNCONSCIOUS: "🟡",
    State.CRITICAL: "🟠",
    State.DYING: "🔴",
    State.DEAD: "💀",
    State.RETIRED: "🕊️",
}


def colour_name(value: int) -> str:
    """The console names colours instead of printing hex."""
    return COLOUR_NAMES.get(value, f"#{value:06x}")


# Every ASCII character that opens or closes markup in Discord wherever it stands: emphasis,
# underline, strike, spoiler, code, quote, heading, a masked link's brackets, a mention's or a
# token's `<` (`<@…>`, `<#…>`, `<t:…>`, `<:emoji:…>`, `<https://…>`), `@everyone`/`@here`, and
# the backslash itself. Discord drops a backslash before any ASCII punctuation, so each one
# escaped reads as itself; `(` and `)` open nothing once `[` and `]` are escaped.
_ANYWHERE = re.compile(r"[\\*_~|`>#\[\]<@]|(?<=\w):(?=//)")  # `://`: a bare link
# Markup only at a line's start (a value may stand there): a list item (`- `, `+ `, `1. `)
# or small text (`-# `). A value is escaped as if it began a line.
_LINE_START = re.compile(r"^([ \t]*)([-+]|\d+\.)", re.MULTILINE)


def _escape_line_start(match: re.Match[str]) -> str:
    marker = match[2]
    return f"{match[1]}{marker[:-1]}\\{marker[-1]}"


@lru_cache(maxsize=4096)  # the same names come back in every reply
def escape(text: str) -> str:
    """A user-supplied name or text, shown literally: no formatting, no link, no mention.
    Text with nothing to escape (most names) comes back as it is."""
    if _ANYWHERE.search(text) is None and _LINE_START.search(text) is None:
        return text
    escaped = _ANYWHERE.sub(r"\\\g<0>", text)
    return _LINE_START.sub(_escape_line_start, escaped)


def utf16_units(text: str) -> int:
    """Length in UTF-16 units: an emoji takes two or more (Discord's count, to be safe)."""
    return len(text.encode("utf-16-le")) // 2


def fit_units(text: str, limit: int) -> str:
    """`text` cut to `limit` UTF-16 units between characters as the user sees them (never
    inside an emoji), with an ellipsis: a choice's or an option's label."""
    if utf16_units(text) <= limit:
        return text
    kept, used = [], 1  # the ellipsis
    for cluster in graphemes(text):
        used += utf16_units(cluster)
        if used > limit:
            break
        kept.append(cluster)
    return "".join(kept) + "…"


def choice_label(sheet: Sheet) -> str:
    """`🟠 Roryn · Critical, VIT -1/10`: how a character is offered in a list of choices (an
    autocomplete, a menu). Not markdown: shown as typed."""
    return (
        f"{STATE_MARKS[sheet.state]} {sheet.name} · {sheet.state.value}, "
        f"VIT {sheet.vit}/{sheet.max_vit}"
    )


def truncate(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def count(n: int, noun: str, plural: str | None = None) -> str:
    """`1 die`, `3 dice`, `0 characters`."""
    return f"{n} {noun if n == 1 else plural or noun + 's'}"


def signed(n: int) -> str:
    return f"+{n}" if n >= 0 else str(n)


def named(sheet: Sheet) -> str:
    """`🟠 **Roryn**`: the state mark and the escaped name, for titles and lists."""
    return f"{STATE_MARKS[sheet.state]} {escape(sheet.name)}"


# Numbers are written the same way everywhere (docs/commands.md).


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


# Rules behind nearly every result (dice, the state line, injury, turn, cause): named in
# /history, in a footer only when nothing more telling fills it.
_EVERYWHERE = ("D-1", "D-2", "D-4", "V-7", "H-3", "C-3", "E-10")


def rule_footer(rules: Sequence[str], settings: GuildSettings | None) -> str | None:
    """At most three rule IDs, the most telling first (an action lists its own rule first);
    none when the guild turned them off. The full list is in /history."""
    if not rules or (settings is not None and settings.rule_ids is RuleIds.OFF):
        return None
    unique = list(dict.fromkeys(rules))
    telling = [r for r in unique if r not in _EVERYWHERE] + [r for r in unique if r in _EVERYWHERE]
    return "Rules: " + " · ".join(telling[:3])


def _rounded(p: Fraction, places: int) -> str:
    """p as a percentage with `places` decimals, rounded half up on the exact fraction: 1/32 is
    3.13%, 5/8 is 63% (a float would see 3.125 as 3.12 and round 62.5 half to even). In whole
    numbers, not Fraction's arithmetic: the odds chart and its table write dozens a page."""
    scale = 100 * 10**places
    units = (2 * p.numerator * scale + p.denominator) // (2 * p.denominator)
    if not places:
        return f"{units}%"
    whole, part = divmod(units, 10**places)
    return f"{whole}.{part:0{places}d}%"


def _below(p: Fraction, numerator: int, denominator: int) -> bool:
    return p.numerator * denominator < numerator * p.denominator


def _above(p: Fraction, numerator: int, denominator: int) -> bool:
    return p.numerator * denominator > numerator * p.denominator


def percent(p: Fraction) -> str:
    """`16.67%`; never rounds a possible result to 0% or a not-certain one to 100%."""
    if p == 0:
        return "0%"
    if p == 1:
        return "100%"
    if _below(p, 1, 10_000):
        return "<0.01%"
    if _above(p, 9_999, 10_000):
        return ">99.99%"
    return _rounded(p, 2)


def short_percent(p: Fraction) -> str:
    """`17%`, `<1%`, `>99%`: for headlines, short tables and the odds chart."""
    if p == 0:
        return "0%"
    if p == 1:
        return "100%"
    if _below(p, 1, 100):
        return "<1%"
    if _above(p, 99, 100):
        return ">99%"
    return _rounded(p, 0)


def chance(p: Fraction) -> str:
    """Exact where the fraction is short (`1/6 (16.67%)`), the percentage otherwise."""
    if p in (0, 1) or p.denominator > 10_000:
        return percent(p)
    return f"{p.numerator}/{p.denominator} ({percent(p)})"
