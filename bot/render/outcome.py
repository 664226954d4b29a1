"""An Outcome (one action on one character) as an embed: the change, every die, the rules."""

from __future__ import annotations

from collections.abc import Callable, Iterable

import discord

from bot.render.common import FACE_WORDS, count, escape, face, fit, signed, state_colour
from rules.models import Sheet, State
from rules.outcome import NarateerRoll, NumericRoll, Outcome, Roll

# What each action is called in a title; an unknown action falls back to its own name.
ACTION_TITLES = {
    "damage": "Damage",
    "heal": "Magic healing",
    "recover": "Recovery roll",
    "first_aid": "First aid",
    "turn": "Start of turn",
    "early": "Acts early",
    "react": "Reaction",
    "push": "Pushes a Check",
    "spend": "Spends Stamina",
    "emotion": "Emotion",
    "relief": "Relief",
    "breakdown": "Situational breakdown",
    "quest": "Quest complete",
    "rest": "Rest",
    "wound": "CON wound",
    "recover_wound": "CON wound recovered",
    "edit": "Sheet edited",
    "set": "Sheet set",
    "revive": "Revived",
    "undo": "Undone",
}


def title(outcome: Outcome) -> str:
    name = escape(outcome.after.name)
    if outcome.action == "recover" and outcome.before.state is State.DYING:
        return f"{name} · The Last Gasp"
    what = ACTION_TITLES.get(outcome.action, outcome.action.replace("_", " ").capitalize())
    return f"{name} · {what}"


def change_lines(outcome: Outcome) -> list[str]:
    """V-7 first (`VIT 1 → -1 · Up → Critical`), then every other change, one per line."""
    changes = {c.label: c for c in outcome.changes}
    state = changes.pop("State", None)
    vit = changes.pop("VIT", None)
    head = [str(c) for c in (vit,) if c is not None]
    if state is not None:
        head.append(f"{state.before} → {state.after}")
    lines = [f"**{' · '.join(head)}**"] if head else []
    lines += [str(c) for c in changes.values()]
    lines += flag_changes(outcome.before, outcome.after)
    return lines or ["No change."]


# Per-turn and per-day flags that `rules.outcome.diff` leaves out but a player acts on.
_FLAGS: tuple[tuple[str, Callable[[Sheet], str]], ...] = (
    ("Next reaction costs", lambda s: str(s.reactions_taken + 1)),  # S-5
    ("Acts early this round", lambda s: "yes" if s.early_this_round else "no"),  # S-4
    ("Relief used today", lambda s: "yes" if s.relief_used_today else "no"),  # E-3
)


def flag_changes(before: Sheet, after: Sheet) -> list[str]:
    return [
        f"{label} {show(before)} → {show(after)}"
        for label, show in _FLAGS
        if show(before) != show(after)
    ]


def faces_line(roll: NarateerRoll) -> str:
    """D-4: every die, with an advantage reroll shown beside the Miss it replaced (D-3)."""
    rerolls = roll.rerolls or (None,) * len(roll.faces)
    dice = [
        face(f) if r is None else f"{face(f)} → {face(r)}"
        for f, r in zip(roll.faces, rerolls, strict=True)
    ]
    return "  ".join(dice)


def tally(faces: Iterable[str]) -> str:
    """`1 Crit · 2 Misses`: the faces that stand, counted."""
    final = list(faces)
    counts = [(final.count(letter), letter) for letter in ("C", "H", "M")]
    return " · ".join(count(n, FACE_WORDS[letter], _PLURALS[letter]) for n, letter in counts if n)


_PLURALS = {"C": "Crits", "H": "Hits", "M": "Misses"}


def numeric_line(roll: NumericRoll) -> str:
    """`1d10 [7] +2 = **9** vs 8: success`; dice dropped by kh/kl struck through."""
    kept = roll.kept or (True,) * len(roll.dice)
    dice = ", ".join(str(d) if k else f"~~{d}~~" for d, k in zip(roll.dice, kept, strict=True))
    text = f"`{roll.expression}` [{dice}]"
    if roll.modifier:
        text += f" {signed(roll.modifier)}"
    text += f" = **{roll.total}**"
    if roll.target is not None:
        text += f" vs {roll.target}: {'success' if roll.success else 'failure'}"
    return text


def roll_field(roll: Roll) -> tuple[str, str]:
    if isinstance(roll, NarateerRoll):
        name = escape(roll.label) + (" · advantage" if roll.rerolls else "")
        value = f"{faces_line(roll)}\n{tally(roll.final)}"
    else:
        name, value = escape(roll.label), numeric_line(roll)
    if roll.manual:
        name += " · entered by hand"
    return name, value


def outcome_embed(outcome: Outcome) -> discord.Embed:
    lines = change_lines(outcome)
    if outcome.notes:
        # Notes quote names and what players typed: shown literally, never formatted.
        lines += ["", *(escape(note) for note in outcome.notes)]
    embed = discord.Embed(
        title=title(outcome),
        description="\n".join(lines),
        colour=state_colour(outcome.after.state),
    )
    for roll in outcome.rolls:
        name, value = roll_field(roll)
        embed.add_field(name=name, value=value, inline=False)
    if outcome.rules:
        embed.set_footer(text="Rules: " + " · ".join(outcome.rules))
    return fit(embed)
