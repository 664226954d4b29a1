"""Changes as a player reads them, the same in a result, a list and /history: `VIT 1 → -1`,
`Up → Critical`, a flag as words ("relief used today"), never `no → yes`."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from bot.render.common import escape, truncate
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


def change_text(
    change: Change,
    action: str | None = None,
    *,
    shown: Callable[[str], str] = escape,
    owner: Callable[[str], str] | None = None,
) -> str:
    """`shown`: how a name goes into the text (escaped for Discord; the campaign page's
    templates escape for HTML instead); `owner`: how an owner's mention reads (the page knows
    no member's name)."""
    if change.label == "Advantage" and change.after == "no" and action == "recover":
        return "advantage used"  # the roll it applied to used it up
    if change.label in _FLAGS:
        on, off = _FLAGS[change.label]
        return on if change.after == "yes" else off
    if change.label == "State":
        return f"{change.before} → {change.after}"
    if change.label == "Name":
        return f"Name {shown(change.before)} → {shown(change.after)}"  # each name alone
    if change.label == "Owner" and owner is not None:
        return f"Owner {owner(change.before)} → {owner(change.after)}"
    if change.label == "Breakdown":
        if change.before == "none":
            return f"Breakdown of {change.after} begins"
        if change.after == "none":
            return f"Breakdown of {change.before} ends"
    return str(change)


def change_texts(
    changes: Sequence[Change],
    action: str | None = None,
    *,
    vit: int | None = None,
    shown: Callable[[str], str] = escape,
    owner: Callable[[str], str] | None = None,
) -> list[str]:
    """Each change once: the current CON die follows its base (C-3), so a changed base names
    the die alone. V-7: a change of state names VIT too, `vit` (the VIT after) when it did
    not move: `VIT -1 · Dying → Dead`."""
    labels = {c.label for c in changes}
    texts = []
    for change in changes:
        if change.label == "CON" and "base CON" in labels:
            continue
        if change.label == "State" and "VIT" not in labels and vit is not None:
            texts.append(f"VIT {vit}")
        texts.append(change_text(change, action, shown=shown, owner=owner))
    return texts


_CAUSES = {c.value for c in EmotionCause}


def told(
    inputs: dict[str, object], user_id: int, *, shown: Callable[[str], str] = escape
) -> str | None:
    """What the command was told beyond numbers: the cause of an emotion (E-10), the reason
    of a spend, what a push was for; why the bot's upgrade renamed a character."""
    if user_id == 0 and isinstance(inputs.get("reason"), str):
        return f"Renamed by the bot: {shown(str(inputs['reason']))}."
    parts = []
    cause = inputs.get("cause")
    if isinstance(cause, str) and cause in _CAUSES:
        parts.append(f"raised by {EmotionCause(cause).label}")
    for key, label in (("reason", "for"), ("what", "for")):
        text = inputs.get(key)
        if isinstance(text, str) and text:
            parts.append(f"{label} “{shown(truncate(text, 100))}”")
    return " · ".join(parts) or None


def changes_line(texts: Sequence[str]) -> str | None:
    """The texts on one line, starting with a capital."""
    line = " · ".join(texts)
    return line[:1].upper() + line[1:] if line else None
