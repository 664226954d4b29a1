"""What a change means for the character: injury (H-3), state (V-1..V-7), instant death
(V-6), retirement (E-7).

Every action builds its Outcome through `finish`, so that these checks are made the same way
everywhere.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum
from typing import NamedTuple

from rules.emotion_texts import BREAKDOWN_EFFECTS, breakdown_line
from rules.errors import RuleError
from rules.models import DeathRule, GuildSettings, Sheet, State
from rules.outcome import Outcome
from rules.rolls import Roll
from rules.text import Text, say


class Injury(NamedTuple):
    """H-3: the condition modifiers from lost VIT."""

    action: int
    reaction: int
    label: str


NO_INJURY = Injury(0, 0, "no injury condition")
INJURED = Injury(-3, -1, "-3 on Action Rolls, -1 on Reaction Rolls")
BADLY_INJURED = Injury(-8, -2, "-8 on Action Rolls, -2 on Reaction Rolls")


def injury(sheet: Sheet) -> Injury:
    """H-3, in whole numbers so that 30% and 60% fall exactly where the rule says:
    lost / max VIT < 3/10 is 10 × lost < 3 × max VIT (max VIT is at least 1)."""
    lost, most = sheet.max_vit - max(sheet.vit, 0), sheet.max_vit
    if 10 * lost < 3 * most:
        return NO_INJURY
    if 10 * lost <= 6 * most:
        return INJURED
    return BADLY_INJURED


def action_bonuses(sheet: Sheet) -> list[tuple[str, int]]:
    """What adds to an Action Roll: the injury condition (H-3) and the daily +3 (E-4)."""
    return [("injury", injury(sheet).action), ("daily bonus", 3 if sheet.daily_bonus else 0)]


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
            "{name} is " + state.value + ": " + doing + " is not possible. "
            "The GM can bring it back with /character revive.",
            name=sheet.name,
        )


def must_retire(sheet: Sheet) -> bool:
    """E-7: Stress > 0 and Stress ≥ current VIT, judged only while the character is up."""
    return not sheet.state.is_out and sheet.vit > 0 and 0 < sheet.stress >= sheet.vit


class RollDue(StrEnum):
    """R-8: when the recovery roll of a character that is down may be made."""

    NOW = "now"  # in combat, this round's roll not yet made: by its owner or the GM
    NEXT_ROUND = "next round"  # in combat, this round's roll made
    GM_CALLS = "the GM calls for it"  # outside combat: narrative time is the GM's


def roll_due(sheet: Sheet, *, in_combat: bool) -> RollDue | None:
    """R-8, the one place it is decided (/recover, /turn, the recovery button, the board);
    None for a character that is not down."""
    if not sheet.state.is_down:
        return None
    if not in_combat:
        return RollDue.GM_CALLS
    return RollDue.NEXT_ROUND if sheet.recovered_this_round else RollDue.NOW


def recovery_due_note(sheet: Sheet, *, in_combat: bool) -> Text:
    """C-3, R-8: the reminder for a character that is down, saying when its roll comes."""
    state = sheet.state
    last_gasp = state is State.DYING
    due = roll_due(sheet, in_combat=in_combat)
    if due is RollDue.NOW:
        what = "the Last Gasp" if last_gasp else "a recovery roll"
        tail = what + " is due now, at the start of its turn (/recover)."
    elif due is RollDue.NEXT_ROUND:
        what = "the Last Gasp" if last_gasp else "the next one"
        tail = "this round's recovery roll is made; " + what + " comes next round (R-8)."
    else:
        what = "the Last Gasp" if last_gasp else "a recovery roll"
        tail = "outside combat the GM calls for " + what + " (R-8)."
    return say("{name} is " + state.value + ": " + tail, name=sheet.name)


def breakdown_started(sheet: Sheet) -> str:
    """E-6 in full: shown once, when the Breakdown begins."""
    assert sheet.breakdown is not None
    emotion = sheet.breakdown
    return f"In a Breakdown of {emotion.label}: {BREAKDOWN_EFFECTS[emotion]}"


def breakdown_reminder(sheet: Sheet) -> str:
    """E-6 in one line, on every later roll of a character in Breakdown."""
    assert sheet.breakdown is not None
    return breakdown_line(sheet.breakdown)


def _killed_outright(before: Sheet, after: Sheet, settings: GuildSettings | None) -> bool:
    """V-6, `instant`: whatever takes VIT below 0 kills at once."""
    return (
        settings is not None
        and settings.death_rule is DeathRule.INSTANT
        and not after.state.is_out
        and after.vit < 0
        and after.vit < before.vit
    )


def finish(
    action: str,
    before: Sheet,
    after: Sheet,
    rules: Sequence[str],
    *,
    headline: Text,  # say(): a name or typed text goes in as a value (rules.text)
    settings: GuildSettings | None = None,
    rolls: Sequence[Roll] = (),
    notes: Sequence[str] = (),
    retirement: bool = True,
    public: bool = True,
    failed: bool = False,
) -> Outcome:
    """The Outcome of an action: adds instant death (V-6, when `settings` are given), the
    retirement check (E-7), the state change (V-7) and the injury condition after a change of
    VIT (H-3). A death or a retirement becomes the headline, its rule first; a retirement keeps
    what brought it as the first note. (The headline of a fall already says which roll is due
    and when: C-3.)

    E-7 is checked when Stress rose, VIT fell or the character woke; `retirement=False` skips
    it (the GM reviving a character).
    """
    rule_ids = list(rules)
    all_notes = list(notes)
    if _killed_outright(before, after, settings):
        after = after.update(dead=True)
        rule_ids.insert(0, "V-6")  # the rule the headline is about
        headline = say(
            "Killed outright: {name} dies at VIT {vit}, for this server plays "
            "with instant death (VIT below 0).",
            name=after.name,
            vit=after.vit,
        )
    woke = before.vit <= 0 < after.vit
    worse = woke or after.stress > before.stress or after.vit < before.vit
    if retirement and worse and must_retire(after):
        after = after.update(retired=True)
        rule_ids.insert(0, "E-7")
        all_notes.insert(0, headline)  # what happened first: it brought the retirement
        headline = say(
            "{name} must retire to a different life: Stress {stress} has reached VIT {vit}.",
            name=after.name,
            stress=after.stress,
            vit=after.vit,
        )
    if woke and before.advantage and after.advantage:
        after = after.update(advantage=False)  # H-4: unused advantage is lost on waking
        rule_ids.append("H-4")
    if after.state is not before.state:
        rule_ids += [STATE_RULES[after.state], "V-7"]
    if after.vit != before.vit:
        rule_ids.append("H-3")
        now, was = injury(after), injury(before)
        # It weighs on the rolls of a character that acts: one that is up.
        if after.state is State.UP and (now != was or now != NO_INJURY):
            all_notes.append(
                "No injury condition any more." if now == NO_INJURY else f"Injury: {now.label}."
            )
    return Outcome(
        action=action,
        before=before,
        after=after,
        headline=headline,
        rules=tuple(dict.fromkeys(rule_ids)),
        rolls=tuple(rolls),
        notes=tuple(all_notes),
        public=public,
        failed=failed,
    )
