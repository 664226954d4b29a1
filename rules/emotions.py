"""Emotions, Stress, Breakdown and relief (E-1..E-10)."""

from __future__ import annotations

import random

from rules import notation
from rules.condition import breakdown_reminder, breakdown_started, finish, injury, refuse_if_out
from rules.emotion_texts import ADDRESS_ACTIONS
from rules.errors import RuleError
from rules.models import MAX_STRESS, Emotion, EmotionCause, GuildSettings, ReliefMethod, Sheet
from rules.outcome import Outcome
from rules.rolls import NumericRoll
from rules.text import Text, say

MAX_STAGES = 20

# E-8: the ability a situational breakdown tests.
ABILITIES: dict[Emotion, str] = {
    Emotion.ANGER: "humility",
    Emotion.FEAR: "composure",
    Emotion.SADNESS: "composure",
    Emotion.GUILT: "insight",
}

_CLEAR = {emotion.value: 0 for emotion in Emotion}


def raise_emotion(
    sheet: Sheet,
    emotion: Emotion | str,
    stages: int = 1,
    cause: EmotionCause | str = EmotionCause.OTHER,
) -> Outcome:
    """E-1, E-2: one stage at a time; at the threshold Breakdown begins, then Stress rises.
    E-10: the cause happened in the game; it is told, it changes nothing."""
    emotion, cause = Emotion(emotion), EmotionCause(cause)
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
            breakdown = breakdown or emotion  # a full stack outside Breakdown (an old sheet)
            stress = min(MAX_STRESS, stress + 1)  # the sheet's range ends there
    after = sheet.update(**{emotion.value: stack}, stress=stress, breakdown=breakdown)
    rules.append("E-10")
    name, label = sheet.name, emotion.label
    why = f" after {cause.label}"  # E-10: every cause is told, `other` too
    extra = stress - sheet.stress
    more_stress = (
        f"; the stage{'s' if extra > 1 else ''} past the threshold add{'' if extra > 1 else 's'} "
        f"{extra} Stress"
        if extra
        else ""
    )
    notes: list[str] = []
    headline: Text
    if sheet.breakdown is None and breakdown is not None:
        rules.append("E-6")
        headline = say(
            "{name} falls into a Breakdown of {label}" + why + more_stress + ".",
            name=name,
            label=label,
        )
        notes.append(breakdown_started(after))
    elif sheet.breakdown is not None:
        headline = say(
            "{name} is in a Breakdown: {label} rises" + why + " as Stress instead, "
            "+{extra} (Stress {stress}).",
            name=name,
            label=label,
            extra=stress - sheet.stress,
            stress=stress,
        )
    else:
        headline = say(
            "{name}'s {label} rises" + why + ": {label} {stack}/{threshold}.",
            name=name,
            label=label,
            stack=stack,
            threshold=sheet.threshold,
        )
    return finish("emotion", sheet, after, rules, headline=headline, notes=notes)


def _address_note(sheet: Sheet, emotion: Emotion) -> str:
    return f"To address {emotion.label}: {ADDRESS_ACTIONS[emotion]}"


def relief(
    sheet: Sheet, method: ReliefMethod | str, emotion: Emotion | str | None = None
) -> Outcome:
    """E-3..E-5: daily relief by drive, reward or address; address also ends a Breakdown."""
    method = ReliefMethod(method)
    chosen = Emotion(emotion) if emotion is not None else None
    refuse_if_out(sheet, "relief")
    cleared = sheet.update(**_CLEAR)
    name = sheet.name
    if sheet.breakdown is not None:
        cause = sheet.breakdown
        if method is not ReliefMethod.ADDRESS or chosen not in (None, cause):
            raise RuleError(
                "{name} is in a Breakdown of {cause}: only addressing {cause} (/relief address) "
                "or completing the Quest ends it (E-5).",
                name=name,
                cause=cause.label,
            )
        after = cleared.update(breakdown=None)
        headline = say(
            "{name} addresses {label} and overcomes the Breakdown: every emotion is "
            "cleared; Stress stays at {stress}.",
            name=name,
            label=cause.label,
            stress=after.stress,
        )
        notes = [_address_note(sheet, cause)]
        return finish("relief", sheet, after, ["E-5", "E-3"], headline=headline, notes=notes)
    if sheet.relief_used_today:
        raise RuleError(
            "{name} already had relief today (E-3): the next chance comes with a new day (/day).",
            name=name,
        )
    stacked = any(sheet.stacks.values())
    if method is not ReliefMethod.ADDRESS:
        if stacked:
            after = cleared.update(relief_used_today=True)
            headline = say(
                "{name} finds relief ({method}): every emotion is cleared.",
                name=name,
                method=method.value,
            )
            return finish("relief", sheet, after, ["E-3"], headline=headline)
        after = sheet.update(relief_used_today=True, daily_bonus=True)
        headline = say(
            "{name} finds relief ({method}) with no emotion stacked: +3 on all Action "
            "Rolls until the end of the day.",
            name=name,
            method=method.value,
        )
        return finish("relief", sheet, after, ["E-4", "E-3"], headline=headline)
    if not stacked:
        raise RuleError(
            "{name} has no stacked emotion to address (E-4). Relief by drive or reward gives "
            "+3 on Action Rolls instead.",
            name=name,
        )
    emotion = _closest(sheet, chosen)
    after = cleared.update(relief_used_today=True)
    headline = say(
        "{name} addresses {label}: every emotion is cleared.", name=name, label=emotion.label
    )
    notes = [_address_note(sheet, emotion)]
    return finish("relief", sheet, after, ["E-3"], headline=headline, notes=notes)


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
    ends = " and the Breakdown ends" if sheet.breakdown is not None else ""
    headline = say(
        "Quest complete: {name}'s emotions and Stress are all cleared" + ends + ".",
        name=sheet.name,
    )
    return finish("quest", sheet, after, ["E-5"], headline=headline)


def _reaction_roll(
    sheet: Sheet,
    emotion: Emotion,
    pressure: int,
    settings: GuildSettings,
    rng: random.Random,
    roll: int | None,
) -> tuple[NumericRoll, tuple[NumericRoll, ...]]:
    """E-8: the guild's reaction die plus the ability and the injury condition (H-3); in
    Breakdown twice, the lower kept (E-6). Returns the kept roll and every roll made."""
    ability = ABILITIES[emotion]
    bonuses = [(ability.capitalize(), getattr(sheet, ability)), ("injury", injury(sheet).reaction)]
    label = f"Reaction Roll ({ability.capitalize()})"
    die = settings.reaction_die
    if roll is not None:  # rolled physically; with Disadvantage the player enters the lower
        kept = notation.manual(roll, die, label=label, bonuses=bonuses, target=pressure)
        return kept, (kept,)
    kept = notation.roll(die, rng, label=label, bonuses=bonuses, target=pressure)
    if sheet.breakdown is None:
        return kept, (kept,)
    second = notation.roll(die, rng, label=label, bonuses=bonuses, target=pressure)
    if second.total < kept.total:
        kept, second = second, kept
    return kept, (kept, second.model_copy(update={"dropped": True}))


def situational_breakdown(
    sheet: Sheet,
    emotion: Emotion | str,
    pressure: int,
    settings: GuildSettings,
    rng: random.Random,
    *,
    roll: int | None = None,
) -> Outcome:
    """E-8, E-9: a Reaction Roll of the emotion's ability against the Pressure (GM). E-10: the
    roll raises nothing."""
    emotion = Emotion(emotion)
    if isinstance(pressure, bool) or not isinstance(pressure, int) or not 1 <= pressure <= 20:
        raise RuleError("The Pressure is a whole number from 1 to 20 (e.g. 4, 6 or 8).")
    refuse_if_out(sheet, "a situational breakdown")
    kept, rolls = _reaction_roll(sheet, emotion, pressure, settings, rng, roll)
    in_breakdown = sheet.breakdown is not None
    rules = ["E-8", "E-9"]
    if injury(sheet).reaction:
        rules.append("H-3")
    name, label = sheet.name, emotion.label
    verdict = f"{kept.total} against Pressure {pressure}"
    if kept.total >= pressure:
        headline = say(
            "{name} holds firm: the Reaction Roll succeeds (" + verdict + "), nothing happens.",
            name=name,
        )
        notes = [breakdown_reminder(sheet)] if in_breakdown else []
        return finish("breakdown", sheet, sheet, rules, headline=headline, rolls=rolls, notes=notes)
    if not in_breakdown:
        rules.append("E-6")
        after = sheet.update(breakdown=emotion)
        headline = say(
            "{name} breaks down: the Reaction Roll fails (" + verdict + "); a Breakdown of "
            "{label} begins.",
            name=name,
            label=label,
        )
        notes = [breakdown_started(after)]
        return finish("breakdown", sheet, after, rules, headline=headline, rolls=rolls, notes=notes)
    after = sheet.update(**_CLEAR, breakdown=None)
    rules += ["E-6", "E-5"]
    headline = say(
        "{name} fails while in a Breakdown (" + verdict + "): it must address {label} on the "
        "spot, which ends the Breakdown; every emotion is cleared, Stress stays.",
        name=name,
        label=label,
    )
    notes = [_address_note(sheet, emotion)]
    return finish("breakdown", sheet, after, rules, headline=headline, rolls=rolls, notes=notes)
