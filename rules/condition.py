"""What a change means for the character: injury (H-3), state (V-1..V-7), retirement (E-7).

Every action builds its Outcome through `finish`, so that these checks are made the same
way everywhere.
"""

from __future__ import annotations

from fractions import Fraction
from typing import NamedTuple

from rules.models import Emotion, Sheet, State
from rules.outcome import Outcome, Roll, RuleError


class Injury(NamedTuple):
    """H-3: the condition modifiers from lost VIT."""

    action: int
    reaction: int
    label: str


NO_INJURY = Injury(0, 0, "no injury condition")
INJURED = Injury(-3, -1, "-3 on Action Rolls, -1 on Reaction Rolls")
BADLY_INJURED = Injury(-8, -2, "-8 on Action Rolls, -2 on Reaction Rolls")


def injury(sheet: Sheet) -> Injury:
    """H-3, with exact fractions so that 30% and 60% fall where the rule says."""
    lost = Fraction(sheet.max_vit - max(sheet.vit, 0), sheet.max_vit)
    if lost < Fraction(3, 10):
        return NO_INJURY
    if lost <= Fraction(6, 10):
        return INJURED
    return BADLY_INJURED


def action_modifier(sheet: Sheet) -> int:
    """The condition on Action Rolls: injury (H-3) plus the daily +3 (E-4)."""
    return injury(sheet).action + (3 if sheet.daily_bonus else 0)


STATE_RULES: dict[State, str] = {
    State.UP: "V-1",
    State.UNCONSCIOUS: "V-2",
    State.CRITICAL: "V-3",
    State.DYING: "V-4",
    State.DEAD: "V-5",
    State.RETIRED: "E-7",
}

DOWN_RULES: dict[State, str] = {State.UNCONSCIOUS: "R-1", State.CRITICAL: "R-3", State.DYING: "R-5"}


def refuse_if_out(sheet: Sheet, doing: str) -> None:
    """V-5, E-7: a Dead or Retired character takes no part until the GM revives it."""
    state = sheet.state
    if state.is_out:
        raise RuleError(
            f"{sheet.name} is {state.value}: {doing} is not possible. "
            "The GM can bring it back with /character revive."
        )


def must_retire(sheet: Sheet) -> bool:
    """E-7: Stress > 0 and Stress ≥ current VIT, judged only while the character is up."""
    return not sheet.state.is_out and sheet.vit > 0 and 0 < sheet.stress >= sheet.vit


def recovery_due_note(sheet: Sheet) -> str:
    """C-3: the reminder for a character that is down."""
    state = sheet.state
    what = "the Last Gasp" if state is State.DYING else "a recovery roll"
    return (
        f"{sheet.name} is {state.value} ({DOWN_RULES[state]}): {what} is due at the start of "
        "its turn (/recover)."
    )


def breakdown_note(sheet: Sheet) -> str:
    """E-6, for the sheet and every roll of a character in Breakdown."""
    from rules.emotions import BREAKDOWN_EFFECTS  # emotions builds on this module

    emotion: Emotion = sheet.breakdown  # type: ignore[assignment]
    return f"{sheet.name} is in a Breakdown of {emotion.label} (E-6): {BREAKDOWN_EFFECTS[emotion]}"


def finish(
    action: str,
    before: Sheet,
    after: Sheet,
    rules: tuple[str, ...] | list[str],
    *,
    rolls: tuple[Roll, ...] | list[Roll] = (),
    notes: tuple[str, ...] | list[str] = (),
    retirement: bool = True,
    public: bool = True,
) -> Outcome:
    """The Outcome of an action: adds the retirement check (E-7), the state change (V-7)
    and the injury condition after a change of VIT (H-3).

    E-7 is checked when Stress rose, VIT fell or the character woke; `retirement=False` skips
    it (the GM reviving a character).
    """
    rule_ids = list(rules)
    all_notes = list(notes)
    woke = before.vit <= 0 < after.vit
    changed = woke or after.stress > before.stress or after.vit < before.vit
    if retirement and changed and must_retire(after):
        after = after.update(retired=True)
        rule_ids.append("E-7")
        all_notes.append(
            f"{after.name}'s Stress ({after.stress}) has reached its VIT ({after.vit}): "
            f"{after.name} must retire to a different life (E-7)."
        )
    if woke and before.advantage and after.advantage:
        after = after.update(advantage=False)  # H-4: unused advantage is lost on waking
        rule_ids.append("H-4")
    if after.state is not before.state:
        rule_ids += [STATE_RULES[after.state], "V-7"]
    if after.vit != before.vit:
        rule_ids.append("H-3")
        now, was = injury(after), injury(before)
        if now != was or now != NO_INJURY:
            all_notes.append(f"Injury condition (H-3): {now.label}.")
    if after.state.is_down and after.state is not before.state:
        all_notes.append(recovery_due_note(after))
    return Outcome(
        action=action,
        before=before,
        after=after,
        rules=tuple(dict.fromkeys(rule_ids)),
        rolls=tuple(rolls),
        notes=tuple(all_notes),
        public=public,
    )
