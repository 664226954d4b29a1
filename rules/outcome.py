"""What applying a rule returns: the new sheet and a record of what happened."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from rules.models import Emotion, Sheet


class RuleError(Exception):
    """A refused action. The message is shown to the player as it is: say what to do instead."""


class NarateerRoll(BaseModel):
    """Narateer dice (D-1..D-4): every face kept, with the advantage rerolls beside them."""

    model_config = ConfigDict(frozen=True)

    label: str
    faces: tuple[str, ...]
    # D-3: the face each Miss was rerolled to, in the order of `faces`; None where no reroll.
    rerolls: tuple[str | None, ...] = ()
    manual: bool = False

    @property
    def final(self) -> tuple[str, ...]:
        if not self.rerolls:
            return self.faces
        return tuple(
            r if r is not None else f for f, r in zip(self.faces, self.rerolls, strict=True)
        )

    @property
    def crits(self) -> int:
        return self.final.count("C")


class NumericRoll(BaseModel):
    """A roll of a dice expression (`1d10+2`): each die, which were kept, and the total."""

    model_config = ConfigDict(frozen=True)

    label: str
    expression: str
    dice: tuple[int, ...]
    kept: tuple[bool, ...] = ()
    modifier: int = 0  # added on top of the expression: push, condition, ability
    total: int
    target: int | None = None
    manual: bool = False

    @property
    def success(self) -> bool | None:
        return None if self.target is None else self.total >= self.target


Roll = NarateerRoll | NumericRoll


class Change(BaseModel):
    model_config = ConfigDict(frozen=True)

    label: str
    before: str
    after: str

    def __str__(self) -> str:
        return f"{self.label} {self.before} → {self.after}"


class Outcome(BaseModel):
    """One action on one character. `changes` is derived from the two sheets."""

    model_config = ConfigDict(frozen=True)

    action: str
    before: Sheet
    after: Sheet
    rules: tuple[str, ...] = ()
    rolls: tuple[Roll, ...] = ()
    notes: tuple[str, ...] = ()
    public: bool = True

    @property
    def changes(self) -> list[Change]:
        return diff(self.before, self.after)

    @property
    def state_change(self) -> Change | None:
        """V-7: `Up → Critical`, or None when the state stayed."""
        before, after = self.before.state, self.after.state
        return None if before is after else Change(label="", before=before, after=after)


def _emotion_label(sheet: Sheet, emotion: Emotion) -> str:
    return f"{sheet.stack(emotion)}/{sheet.threshold}"


def diff(before: Sheet, after: Sheet) -> list[Change]:
    """Every visible difference, written the way COMMANDS.md writes numbers."""
    rows: list[tuple[str, str, str]] = [
        ("VIT", str(before.vit), str(after.vit)),
        ("max VIT", str(before.max_vit), str(after.max_vit)),
        (
            "Stamina",
            f"{before.stamina}/{before.max_stamina}",
            f"{after.stamina}/{after.max_stamina}",
        ),
        ("CON", f"d{before.con_die}", f"d{after.con_die}"),
        ("Stress", str(before.stress), str(after.stress)),
        ("RES", str(before.res), str(after.res)),
    ]
    rows += [(e.label, _emotion_label(before, e), _emotion_label(after, e)) for e in Emotion]
    rows += [
        ("Breakdown", _breakdown(before), _breakdown(after)),
        ("Advantage", _yes(before.advantage), _yes(after.advantage)),
        ("+3 daily bonus", _yes(before.daily_bonus), _yes(after.daily_bonus)),
        ("State", before.state.value, after.state.value),
    ]
    return [Change(label=label, before=b, after=a) for label, b, a in rows if b != a]


def _breakdown(sheet: Sheet) -> str:
    return sheet.breakdown.label if sheet.breakdown else "none"


def _yes(flag: bool) -> str:
    return "yes" if flag else "no"
