"""What applying a rule returns: the new sheet, and a record of what happened and why."""

from __future__ import annotations

from collections.abc import Callable
from functools import cached_property

from pydantic import BaseModel, ConfigDict

from rules.models import Emotion, Sheet
from rules.rolls import Roll


class Change(BaseModel):
    """One field as a player reads it: `VIT 1 → -1`."""

    model_config = ConfigDict(frozen=True)

    label: str
    before: str
    after: str

    def __str__(self) -> str:
        return f"{self.label} {self.before} → {self.after}"


class Outcome(BaseModel):
    """One action on one character. `headline` is one plain sentence naming the character and
    saying what the result means; `notes` are the details after it. Both hold names as they
    are: a renderer escapes them."""

    model_config = ConfigDict(frozen=True)

    action: str
    before: Sheet
    after: Sheet
    headline: str = ""
    rules: tuple[str, ...] = ()
    rolls: tuple[Roll, ...] = ()
    notes: tuple[str, ...] = ()
    public: bool = True
    failed: bool = False  # a check that failed (a Medicine check, a pushed Check)

    @cached_property
    def changes(self) -> list[Change]:
        """What a player sees change (U-2), in reading order."""
        return diff(self.before, self.after)

    @property
    def bookkeeping(self) -> list[Change]:
        """Counters and per-round flags that changed: shown small, never a change (U-2)."""
        return bookkeeping(self.before, self.after)

    @property
    def is_change(self) -> bool:
        """U-2: whether /history lists it by default and /undo may revert it."""
        return is_change(self.before, self.after)

    @property
    def state_change(self) -> Change | None:
        """V-7: `Up → Critical`, or None when the state stayed."""
        before, after = self.before.state, self.after.state
        return None if before is after else Change(label="", before=before, after=after)


def _signed(n: int) -> str:
    return f"+{n}" if n >= 0 else str(n)


def _yes(flag: bool) -> str:
    return "yes" if flag else "no"


def _breakdown(sheet: Sheet) -> str:
    return sheet.breakdown.label if sheet.breakdown else "none"


def _emotion(emotion: Emotion) -> Callable[[Sheet], str]:
    return lambda s: f"{s.stack(emotion)}/{s.threshold}"


def _stack(emotion: Emotion) -> Callable[[Sheet], object]:
    return lambda s: s.stack(emotion)


# U-2: every field a player can see, as it is written everywhere (`VIT 3/10` is written
# `VIT 3` in a change: the maximum has its own row). V-7 reads `VIT 1 → -1 · Up → Critical`.
# An emotion is written `Fear 1/4` but changes only when its stack does (the threshold has its
# own row): those rows say what they compare (SAME_WHEN).
VISIBLE: tuple[tuple[str, Callable[[Sheet], str]], ...] = (
    ("VIT", lambda s: str(s.vit)),
    ("State", lambda s: s.state.value),
    ("Name", lambda s: s.name),
    ("Owner", lambda s: f"<@{s.owner_id}>"),
    ("max VIT", lambda s: str(s.max_vit)),
    ("RES", lambda s: str(s.res)),
    ("Stamina", lambda s: f"{s.stamina}/{s.max_stamina}"),
    ("CON", lambda s: f"d{s.con_die}"),
    ("base CON", lambda s: f"d{s.con_base}"),
    ("CON wounds", lambda s: str(s.con_wounds)),
    ("Stress", lambda s: str(s.stress)),
    *((e.label, _emotion(e)) for e in Emotion),
    ("Threshold", lambda s: str(s.threshold)),
    ("Breakdown", _breakdown),
    ("Humility", lambda s: _signed(s.humility)),
    ("Composure", lambda s: _signed(s.composure)),
    ("Insight", lambda s: _signed(s.insight)),
    ("Advantage", lambda s: _yes(s.advantage)),
    ("Relief used today", lambda s: _yes(s.relief_used_today)),
    ("+3 daily bonus", lambda s: _yes(s.daily_bonus)),
)

# Bookkeeping: counters of the turn and the round (S-4, S-5, R-8). Logged, never a change.
BOOKKEEPING: tuple[tuple[str, Callable[[Sheet], str]], ...] = (
    ("Next reaction costs", lambda s: str(s.reactions_taken + 1)),
    ("Acts early this round", lambda s: _yes(s.early_this_round)),
    ("Recovery roll made this round", lambda s: _yes(s.recovered_this_round)),
)
BOOKKEEPING_FIELDS = ("reactions_taken", "early_this_round", "recovered_this_round")
SAME_WHEN: dict[str, Callable[[Sheet], object]] = {e.label: _stack(e) for e in Emotion}


def _rows(
    fields: tuple[tuple[str, Callable[[Sheet], str]], ...], before: Sheet, after: Sheet
) -> list[Change]:
    changed = []
    for label, show in fields:
        same = SAME_WHEN.get(label)
        if same is not None and same(before) == same(after):
            continue
        old, new = show(before), show(after)
        if old != new:
            changed.append(Change(label=label, before=old, after=new))
    return changed


def diff(before: Sheet, after: Sheet) -> list[Change]:
    """Every visible difference (U-2), VIT and State first."""
    return _rows(VISIBLE, before, after)


def bookkeeping(before: Sheet, after: Sheet) -> list[Change]:
    return _rows(BOOKKEEPING, before, after)


def is_change(before: Sheet | None, after: Sheet | None) -> bool:
    """U-2: a creation, a deletion, or any visible field changed."""
    if before is None or after is None:
        return before is not after
    visible = {k: v for k, v in before.model_dump().items() if k not in BOOKKEEPING_FIELDS}
    return any(getattr(after, key) != value for key, value in visible.items())
