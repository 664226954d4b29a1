"""Changes and typed text as the page writes them: bot/render/changes.py's change_texts and
bot/render/table.py's `_told`, copied without Discord's escaping (the page's templates escape
every value for HTML) and with the owner named in the page's words (it knows no member's name).
Kept in step with those two by tests/web/test_pages.py, which reads a history both ways."""

from __future__ import annotations

from collections.abc import Sequence

from bot.render.common import truncate
from rules.models import EmotionCause
from rules.outcome import Change

# A yes/no field: what it reads when it turns on, and when it turns off.
_FLAGS = {
    "Advantage": ("advantage on the next recovery roll", "no advantage any more"),
    "Relief used today": ("relief used today", "relief available again"),
    "+3 daily bonus": ("+3 daily bonus", "the +3 daily bonus ends"),
    "Acts early this round": ("acts early this round", "no longer acting early"),
    "Recovery roll made this round": ("recovery roll made this round", "recovery roll due again"),
}
_CAUSES = {c.value for c in EmotionCause}


def _owner(mention: str, viewer: int) -> str:
    return "you" if mention == f"<@{viewer}>" else "another member"


def change_text(change: Change, action: str | None, viewer: int) -> str:
    if change.label == "Advantage" and change.after == "no" and action == "recover":
        return "advantage used"  # the roll it applied to used it up
    if change.label in _FLAGS:
        on, off = _FLAGS[change.label]
        return on if change.after == "yes" else off
    if change.label == "State":
        return f"{change.before} → {change.after}"
    if change.label == "Owner":
        return f"Owner {_owner(change.before, viewer)} → {_owner(change.after, viewer)}"
    if change.label == "Breakdown":
        if change.before == "none":
            return f"Breakdown of {change.after} begins"
        if change.after == "none":
            return f"Breakdown of {change.before} ends"
    return str(change)


def change_texts(
    changes: Sequence[Change], action: str | None = None, *, vit: int, viewer: int
) -> list[str]:
    """Each change once (the current CON die follows its base, C-3); V-7: a change of state
    names VIT too."""
    labels = {c.label for c in changes}
    texts = []
    for change in changes:
        if change.label == "CON" and "base CON" in labels:
            continue
        if change.label == "State" and "VIT" not in labels:
            texts.append(f"VIT {vit}")
        texts.append(change_text(change, action, viewer))
    return texts


def told(inputs: dict[str, object], user_id: int) -> str | None:
    """What the command was told beyond numbers: the cause of an emotion (E-10), the reason
    of a spend, what a push was for; why the bot's upgrade renamed a character."""
    if user_id == 0 and isinstance(inputs.get("reason"), str):
        return f"Renamed by the bot: {inputs['reason']}."
    parts = []
    cause = inputs.get("cause")
    if isinstance(cause, str) and cause in _CAUSES:
        parts.append(f"raised by {EmotionCause(cause).label}")
    for key, label in (("reason", "for"), ("what", "for")):
        text = inputs.get(key)
        if isinstance(text, str) and text:
            parts.append(f"{label} “{truncate(text, 100)}”")
    return " · ".join(parts) or None
