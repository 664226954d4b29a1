"""Emotions, Stress, Breakdown and relief (seed 002: E-1..E-9)."""

from __future__ import annotations

import random

from rules import notation
from rules.condition import breakdown_note, finish, injury, refuse_if_out
from rules.models import Emotion, GuildSettings, ReliefMethod, Sheet
from rules.outcome import NumericRoll, Outcome, RuleError

MAX_STAGES = 20

# Seed 002, "Addressing an Emotion", word for word.
ADDRESS_ACTIONS: dict[Emotion, str] = {
    Emotion.ANGER: (
        "They must hurt someone or break something beneficial, either physically or "
        "emotionally, and whether willingly or by accident."
    ),
    Emotion.FEAR: (
        "They must desert the group at a critical moment, or take a foolish action that puts "
        "them in a difficult position."
    ),
    Emotion.SADNESS: (
        "They must take a temporary leave from the group, for a full day at least, while the "
        "plot progresses without them."
    ),
    Emotion.GUILT: (
        "They must make a sacrifice to redeem themselves, like giving up something of value or "
        "yielding to someone else’s will."
    ),
}

# Seed 002, "Breakdown & Stress": the actions rolled with Disadvantage, word for word.
RELATED_ACTIONS: dict[Emotion, str] = {
    Emotion.ANGER: "If they’re trying to help, comfort or support someone.",
    Emotion.FEAR: "If they’re trying to directly engage an obstacle or threat.",
    Emotion.SADNESS: "If they’re trying to focus on calm or intellectual tasks.",
    Emotion.GUILT: "If they’re trying to hurt, harm or provoke someone.",
}

# E-6: what a Breakdown imposes, for the sheet and every roll of the character.
BREAKDOWN_EFFECTS: dict[Emotion, str] = {
    emotion: (
        f"Disadvantage on actions related to {emotion.label} "
        f"({related[0].lower()}{related[1:].rstrip('.')}). Disadvantage on all Reaction Rolls. "
        "No Ability XP. Nearby allies -3 on Action Rolls."
    )
    for emotion, related in RELATED_ACTIONS.items()
}

# E-8: the ability a situational breakdown tests.
ABILITIES: dict[Emotion, str] = {
    Emotion.ANGER: "humility",
    Emotion.FEAR: "composure",
    Emotion.SADNESS: "composure",
    Emotion.GUILT: "insight",
}

_CLEAR = {emotion.value: 0 for emotion in Emotion}


def _breakdown_started(sheet: Sheet, emotion: Emotion) -> list[str]:
    return [f"{sheet.name} falls into a Breakdown of {emotion.label}.", breakdown_note(sheet)]


def raise_emotion(sheet: Sheet, emotion: Emotion | str, stages: int = 1) -> Outcome:
    """E-1, E-2: one stage at a time; at the threshold Breakdown begins, then Stress rises."""
    emotion = Emotion(emotion)
    if isinstance(stages, bool) or not isinstance(stages, int) or not 1 <= stages <= MAX_STAGES:
        raise RuleError(f"Raise an emotion by 1 to {MAX_STAGES} stages.")
    refuse_if_out(sheet, "raising an emotion")
    stack, stress, breakdown = sheet.stack(emotion), sheet.stress, sheet.breakdown
    rules = ["E-2"] if breakdown is not None else ["E-1"]
    for _ in range(stages):
        if breakdown is None and stack < sheet.threshold:
            stack += 1
            if stack == sheet.threshold:
                breakdown = emotion
        else:
            breakdown = breakdown or emotion  # a full stack outside Breakdown (imported sheet)
            stress += 1
    after = sheet.update(**{emotion.value: stack}, stress=stress, breakdown=breakdown)
    notes = []
    if sheet.breakdown is None and breakdown is not None:
        rules.append("E-6")
        notes += _breakdown_started(after, emotion)
    if stress > sheet.stress:
        notes.append(f"+{stress - sheet.stress} Stress instead of {emotion.label} (E-2).")
    return finish("emotion", sheet, after, rules, notes=notes)


def _address_note(sheet: Sheet, emotion: Emotion) -> str:
    return f"{sheet.name} addresses {emotion.label}: {ADDRESS_ACTIONS[emotion]}"


def relief(
    sheet: Sheet, method: ReliefMethod | str, emotion: Emotion | str | None = None
) -> Outcome:
    """E-3..E-5: daily relief by drive, reward or address; address also ends a Breakdown."""
    method = ReliefMethod(method)
    chosen = Emotion(emotion) if emotion is not None else None
    refuse_if_out(sheet, "relief")
    cleared = sheet.update(**_CLEAR)
    if sheet.breakdown is not None:
        cause = sheet.breakdown
        if method is not ReliefMethod.ADDRESS or chosen not in (None, cause):
            raise RuleError(
                f"{sheet.name} is in a Breakdown of {cause.label}: only addressing {cause.label} "
                "(/relief address) or completing the Quest ends it (E-5)."
            )
        after = cleared.update(breakdown=None)
        notes = [_address_note(sheet, cause), "The Breakdown is overcome; Stress stays (E-5)."]
        return finish("relief", sheet, after, ["E-3", "E-5"], notes=notes)
    if sheet.relief_used_today:
        raise RuleError(
            f"{sheet.name} already had relief today (E-3): the next chance comes with a new "
            "day (/day)."
        )
    stacked = any(sheet.stacks.values())
    if method is not ReliefMethod.ADDRESS:
        if stacked:
            after = cleared.update(relief_used_today=True)
            return finish("relief", sheet, after, ["E-3"], notes=["Every emotion is cleared."])
        after = sheet.update(relief_used_today=True, daily_bonus=True)
        note = "No emotion was stacked: +3 on all Action Rolls until the end of the day (E-4)."
        return finish("relief", sheet, after, ["E-3", "E-4"], notes=[note])
    if not stacked:
        raise RuleError(
            f"{sheet.name} has no stacked emotion to address (E-4). "
            "Relief by drive or reward gives +3 on Action Rolls instead."
        )
    emotion = _closest(sheet, chosen)
    after = cleared.update(relief_used_today=True)
    notes = [_address_note(sheet, emotion), "Every emotion is cleared."]
    return finish("relief", sheet, after, ["E-3"], notes=notes)


def _closest(sheet: Sheet, chosen: Emotion | None) -> Emotion:
    """E-3: the emotion closest to its threshold; among a tie, the player's pick."""
    top = max(sheet.stacks.values())
    tied = [e for e, stack in sheet.stacks.items() if stack == top]
    names = " and ".join(e.label for e in tied)
    if chosen is not None and chosen not in tied:
        raise RuleError(
            f"Only the emotion closest to its threshold can be addressed: {names} "
            f"({top}/{sheet.threshold})."
        )
    if chosen is None and len(tied) > 1:
        raise RuleError(
            f"{names} are tied at {top}/{sheet.threshold}: choose which one to address with the "
            "emotion option."
        )
    return chosen or tied[0]


def complete_quest(sheet: Sheet) -> Outcome:
    """E-5: ends any Breakdown, clears every stack and all Stress (GM)."""
    refuse_if_out(sheet, "completing a Quest")
    after = sheet.update(**_CLEAR, stress=0, breakdown=None)
    notes = ["Quest complete: every emotion and all Stress are cleared."]
    if sheet.breakdown is not None:
        notes.append("The Breakdown is overcome (E-5).")
    return finish("quest", sheet, after, ["E-5"], notes=notes)


def situational_breakdown(
    sheet: Sheet,
    emotion: Emotion | str,
    pressure: int,
    settings: GuildSettings,
    rng: random.Random,
    *,
    roll: int | None = None,
) -> Outcome:
    """E-8, E-9: a Reaction Roll of the emotion's ability against the Pressure (GM)."""
    emotion = Emotion(emotion)
    if isinstance(pressure, bool) or not isinstance(pressure, int) or not 1 <= pressure <= 20:
        raise RuleError("The Pressure is a whole number from 1 to 20 (e.g. 4, 6 or 8).")
    refuse_if_out(sheet, "a situational breakdown")
    ability = ABILITIES[emotion]
    condition = injury(sheet).reaction
    modifier = getattr(sheet, ability) + condition
    label = f"Reaction Roll ({ability.capitalize()})"
    in_breakdown = sheet.breakdown is not None
    rules = ["E-8"]
    if condition:
        rules.append("H-3")
    rolls: tuple[NumericRoll, ...]
    if roll is not None:
        # the player rolled physically; with Disadvantage they enter the lower result
        kept = notation.manual(
            roll, settings.reaction_die, label=label, modifier=modifier, target=pressure
        )
        rolls = (kept,)
    else:
        kept = notation.roll(
            settings.reaction_die, rng, label=label, modifier=modifier, target=pressure
        )
        rolls = (kept,)
        if in_breakdown:  # E-6, E-8: roll twice, keep the lower
            second = notation.roll(
                settings.reaction_die, rng, label=label, modifier=modifier, target=pressure
            )
            dropped_label = f"{label}, dropped for Disadvantage"
            if second.total < kept.total:
                kept, second = second, kept
            rolls = (kept, second.model_copy(update={"label": dropped_label}))
    if in_breakdown:
        rules.append("E-6")
    rules.append("E-9")
    verdict = f"{kept.total} against Pressure {pressure}"
    if kept.total >= pressure:
        notes = [f"Success ({verdict}): nothing happens (E-9)."]
        return finish("breakdown", sheet, sheet, rules, rolls=rolls, notes=notes)
    if not in_breakdown:
        rules.append("E-6")
        after = sheet.update(breakdown=emotion)
        notes = [f"Failure ({verdict}).", *_breakdown_started(after, emotion)]
        return finish("breakdown", sheet, after, rules, rolls=rolls, notes=notes)
    after = sheet.update(**_CLEAR, breakdown=None)
    rules.append("E-5")
    notes = [
        f"Failure in Breakdown ({verdict}): {sheet.name} is forced to address "
        f"{emotion.label} on the spot.",
        _address_note(sheet, emotion),
        "This overcomes the Breakdown: every emotion is cleared, Stress stays (E-5).",
    ]
    return finish("breakdown", sheet, after, rules, rolls=rolls, notes=notes)
