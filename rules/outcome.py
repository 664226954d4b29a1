"""What applying a rule returns: the new sheet, and a record of what happened and why."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property

from pydantic import BaseModel, ConfigDict

from rules.models import Emotion, EmotionCause, Sheet
from rules.rolls import Roll
from rules.text import Text, TextField


@dataclass(frozen=True, slots=True)
class Change:
    """One field as a player reads it: `VIT 1 → -1`. (A plain record: every reply makes a
    few, and a model's validation would cost more than the rest of the diff.)"""

    label: str
    before: str
    after: str

    def __str__(self) -> str:
        return f"{self.label} {self.before} → {self.after}"


class Outcome(BaseModel):
    """One action on one character. `headline` is one plain sentence naming the character and
    saying what the result means; `notes` are the details after it. Both are Text (rules.text):
    names and typed text go in as values, which a renderer escapes one by one."""

    model_config = ConfigDict(frozen=True)

    action: str
    before: Sheet
    after: Sheet
    headline: TextField = Text("")
    rules: tuple[str, ...] = ()
    rolls: tuple[Roll, ...] = ()
    notes: tuple[TextField, ...] = ()
    public: bool = True
    failed: bool = False  # a check that failed (a Medicine check, a pushed Check)
    # K-4: a Daring Throw or a Reaction Roll offers to raise an emotion, with this cause (E-10)
    raise_cause: EmotionCause | None = None

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
        return is_change(self.before, self.after, self.rolls)

    @property
    def state_change(self) -> Change | None:
        """V-7: `Up → Critical`, or None when the state stayed."""
        before, after = self.before.state, self.after.state
        if before is after:
            return None
        return Change(label="", before=before.value, after=after.value)


def _signed(n: int) -> str:
    return f"+{n}" if n >= 0 else str(n)


def _yes(flag: bool) -> str:
    return "yes" if flag else "no"


def _breakdown(sheet: Sheet) -> str:
    return sheet.breakdown.label if sheet.breakdown else "none"


def _emotion(emotion: Emotion) -> Callable[[Sheet], str]:
    return lambda s: f"{s.stack(emotion)}/{s.threshold}"


# U-2: every field a player can see, as it is written everywhere (`VIT 3/10` is written
# `VIT 3` in a change: the maximum has its own row). V-7 reads `VIT 1 → -1 · Up → Critical`.
# Each row names the sheet fields it is written from, so that only the rows whose fields
# changed are written out (every reply computes this). An emotion is written `Fear 1/4` but
# changes only when its stack does: the threshold has its own row.
Row = tuple[str, tuple[str, ...], Callable[[Sheet], str]]

VISIBLE: tuple[Row, ...] = (
    ("VIT", ("vit",), lambda s: str(s.vit)),
    ("State", ("vit", "res", "dead", "retired"), lambda s: s.state.value),
    ("Name", ("name",), lambda s: s.name),
    ("Owner", ("owner_id",), lambda s: f"<@{s.owner_id}>"),
    ("max VIT", ("max_vit",), lambda s: str(s.max_vit)),
    ("RES", ("res",), lambda s: str(s.res)),
    (
        "Stamina",
        ("stamina", "con_base", "con_wounds"),
        lambda s: f"{s.stamina}/{s.max_stamina}",
    ),
    ("CON", ("con_base", "con_wounds"), lambda s: f"d{s.con_die}"),
    ("base CON", ("con_base",), lambda s: f"d{s.con_base}"),
    ("CON wounds", ("con_wounds",), lambda s: str(s.con_wounds)),
    ("Stress", ("stress",), lambda s: str(s.stress)),
    *((e.label, (e.value,), _emotion(e)) for e in Emotion),
    ("Threshold", ("threshold",), lambda s: str(s.threshold)),
    ("Breakdown", ("breakdown",), _breakdown),
    ("Humility", ("humility",), lambda s: _signed(s.humility)),
    ("Composure", ("composure",), lambda s: _signed(s.composure)),
    ("Insight", ("insight",), lambda s: _signed(s.insight)),
    ("Advantage", ("advantage",), lambda s: _yes(s.advantage)),
    ("Relief used today", ("relief_used_today",), lambda s: _yes(s.relief_used_today)),
    ("+3 daily bonus", ("daily_bonus",), lambda s: _yes(s.daily_bonus)),
)

# Bookkeeping: counters of the turn and the round (S-4, S-4a, S-5, R-8). Logged, never a change.
BOOKKEEPING: tuple[Row, ...] = (
    ("Next reaction costs", ("reactions_taken",), lambda s: str(s.reactions_taken + 1)),
    ("Acts early this round", ("early_this_round",), lambda s: _yes(s.early_this_round)),
    ("Spent Stamina this round", ("spent_this_round",), lambda s: _yes(s.spent_this_round)),
    (
        "Recovery roll made this round",
        ("recovered_this_round",),
        lambda s: _yes(s.recovered_this_round),
    ),
)
BOOKKEEPING_FIELDS = (
    "reactions_taken",
    "early_this_round",
    "spent_this_round",
    "recovered_this_round",
)
_BOOKKEEPING = frozenset(BOOKKEEPING_FIELDS)


def changed_fields(before: Sheet, after: Sheet) -> set[str]:
    old, new = before.__dict__, after.__dict__
    return {key for key, value in old.items() if new[key] != value}


def _by_field(rows: tuple[Row, ...]) -> dict[str, tuple[int, ...]]:
    """The rows each sheet field is written in (their positions), so that a diff looks only at
    the rows of the fields that changed."""
    index: dict[str, list[int]] = {}
    for position, (_, sources, _) in enumerate(rows):
        for field in sources:
            index.setdefault(field, []).append(position)
    return {field: tuple(positions) for field, positions in index.items()}


_VISIBLE_BY_FIELD = _by_field(VISIBLE)
_BOOKKEEPING_BY_FIELD = _by_field(BOOKKEEPING)


def _rows(
    rows: tuple[Row, ...], by_field: dict[str, tuple[int, ...]], before: Sheet, after: Sheet
) -> list[Change]:
    touched = changed_fields(before, after)
    positions = sorted({p for field in touched for p in by_field.get(field, ())})
    changed = []
    for position in positions:
        label, _, show = rows[position]
        old, new = show(before), show(after)
        if old != new:
            changed.append(Change(label=label, before=old, after=new))
    return changed


def diff(before: Sheet, after: Sheet) -> list[Change]:
    """Every visible difference (U-2), VIT and State first."""
    return _rows(VISIBLE, _VISIBLE_BY_FIELD, before, after)


def bookkeeping(before: Sheet, after: Sheet) -> list[Change]:
    return _rows(BOOKKEEPING, _BOOKKEEPING_BY_FIELD, before, after)


def is_change(before: Sheet | None, after: Sheet | None, rolls: Sequence[Roll] = ()) -> bool:
    """U-2: a creation, a deletion, any visible field changed, or a roll: a roll is the
    table's event (and used the round's roll, R-8) even when its result changes nothing."""
    if rolls:
        return True
    if before is None or after is None:
        return before is not after
    return not changed_fields(before, after) <= _BOOKKEEPING
