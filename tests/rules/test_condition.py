"""What a change means for the character (rules/condition.py): H-3, H-4, V-6, V-7, E-6, E-7."""

from __future__ import annotations

import pytest

from rules.condition import (
    BADLY_INJURED,
    INJURED,
    NO_INJURY,
    action_bonuses,
    breakdown_reminder,
    breakdown_started,
    finish,
    injury,
    must_retire,
    recovery_due_note,
    refuse_if_out,
)
from rules.emotion_texts import BREAKDOWN_EFFECTS, RELATED_ACTIONS, breakdown_line
from rules.errors import RuleError
from rules.models import Emotion, GuildSettings, State
from tests.rules.conftest import INSTANT, make


@pytest.mark.parametrize(
    ("max_vit", "vit", "expected"),
    [
        (10, 10, NO_INJURY),
        (10, 8, NO_INJURY),  # 20%
        (10, 7, INJURED),  # exactly 30%
        (10, 4, INJURED),  # exactly 60%
        (10, 3, BADLY_INJURED),  # 70%
        (10, 0, BADLY_INJURED),
        (10, -5, BADLY_INJURED),  # below 0 counts as 0 left
        (3, 2, INJURED),  # 33%
        (7, 5, NO_INJURY),  # 28.6%
        (5, 2, INJURED),  # exactly 60%, no float error
        (1, 1, NO_INJURY),
    ],
)
def test_H_3_injury_condition_bands(max_vit, vit, expected):
    assert injury(make(max_vit=max_vit, vit=vit)) == expected


def test_H_3_injury_values():
    assert (INJURED.action, INJURED.reaction) == (-3, -1)
    assert (BADLY_INJURED.action, BADLY_INJURED.reaction) == (-8, -2)
    assert (NO_INJURY.action, NO_INJURY.reaction) == (0, 0)


def test_H_3_E_4_action_bonuses_name_the_injury_and_the_daily_bonus():
    assert action_bonuses(make()) == [("injury", 0), ("daily bonus", 0)]
    assert action_bonuses(make(vit=6, daily_bonus=True)) == [("injury", -3), ("daily bonus", 3)]
    assert action_bonuses(make(vit=1)) == [("injury", -8), ("daily bonus", 0)]


@pytest.mark.parametrize(
    ("fields", "retires"),
    [
        ({"vit": 3, "stress": 3}, True),
        ({"vit": 3, "stress": 4}, True),
        ({"vit": 3, "stress": 2}, False),
        ({"vit": 1, "stress": 0}, False),  # Stress 0 never retires
        ({"vit": 0, "res": 2, "stress": 5}, False),  # down: the death rules decide
        ({"vit": 3, "stress": 3, "dead": True}, False),
        ({"vit": 3, "stress": 3, "retired": True}, False),
    ],
)
def test_E_7_must_retire_only_while_up_with_stress_at_vit(fields, retires):
    assert must_retire(make(**fields)) is retires


@pytest.mark.parametrize(("flag", "state"), [("dead", "Dead"), ("retired", "Retired")])
def test_V_5_refuse_if_out_names_the_state_and_the_revive(flag, state):
    with pytest.raises(RuleError) as caught:
        refuse_if_out(make(name="Lenora", **{flag: True}), "healing")
    assert str(caught.value) == (
        f"Lenora is {state}: healing is not possible. The GM can bring it back with "
        "/character revive."
    )
    assert caught.value.values == {"name": "Lenora"}


def test_V_5_refuse_if_out_lets_the_living_pass():
    refuse_if_out(make(vit=-2, res=2), "healing")  # Dying is not out


@pytest.mark.parametrize(
    ("fields", "text"),
    [
        ({"vit": 0, "res": 2}, "Hero is Unconscious: a recovery roll is due"),
        ({"vit": -1, "res": 2}, "Hero is Critical: a recovery roll is due"),
        ({"vit": -2, "res": 2}, "Hero is Dying: the Last Gasp is due"),
    ],
)
def test_C_3_recovery_due_note_names_the_roll(fields, text):
    assert recovery_due_note(make(**fields), in_combat=True).startswith(text)


@pytest.mark.parametrize("emotion", list(Emotion))
def test_E_6_breakdown_texts_name_every_effect(emotion):
    sheet = make(**{emotion.value: 4}, breakdown=emotion)
    started = breakdown_started(sheet)
    assert started == f"In a Breakdown of {emotion.label}: {BREAKDOWN_EFFECTS[emotion]}"
    related = RELATED_ACTIONS[emotion].removeprefix("If they’re ").rstrip(".")
    for effect in (
        f"Disadvantage on actions related to {emotion.label}",
        related,
        "Disadvantage on all Reaction Rolls",
        "No Ability XP",
        "Nearby allies -3 on Action Rolls",
    ):
        assert effect in started
    assert breakdown_reminder(sheet) == breakdown_line(emotion)
    assert emotion.label in breakdown_reminder(sheet)


# --- finish: what every action's Outcome gets ------------------------------------------------


def test_V_7_finish_records_the_state_change_and_its_rule():
    outcome = finish("x", make(vit=1), make(vit=-1), ["H-1"], headline="Hit.")
    assert str(outcome.state_change) == " Up → Critical"
    assert outcome.rules == ("H-1", "V-3", "V-7", "H-3")
    assert outcome.headline == "Hit."


def test_V_7_finish_no_state_change_no_state_rule():
    outcome = finish("x", make(vit=10), make(vit=9), ["H-1"], headline="Hit.")
    assert outcome.state_change is None
    assert outcome.rules == ("H-1", "H-3")
    assert outcome.notes == ()  # 10% lost: no condition, no note


def test_H_3_finish_notes_the_condition_after_a_change_of_vit():
    outcome = finish("x", make(vit=10), make(vit=7), [], headline="Hit.")
    assert outcome.notes == ("Injury: -3 on Action Rolls, -1 on Reaction Rolls.",)


def test_H_3_finish_notes_the_end_of_the_condition():
    outcome = finish("x", make(vit=5), make(vit=10), [], headline="Healed.")
    assert outcome.notes == ("No injury condition any more.",)


def test_H_3_finish_notes_no_condition_for_a_character_that_is_down():
    """The condition weighs on the rolls of a character that acts; the headline of a fall
    already says which roll is due (C-3)."""
    outcome = finish("x", make(vit=1), make(vit=0), [], headline="Down.")
    assert outcome.notes == ()
    assert "H-3" in outcome.rules


def test_V_6_finish_kills_below_zero_under_instant_and_says_why():
    outcome = finish("x", make(vit=2), make(vit=-1), ["H-1"], headline="Ouch.", settings=INSTANT)
    assert outcome.after.dead
    assert outcome.headline.startswith("Killed outright: Hero dies at VIT -1")
    assert "instant death" in outcome.headline
    assert "Ouch." not in outcome.notes  # it did not happen: the death is the news
    assert {"V-6", "V-5", "V-7"} <= set(outcome.rules)


def test_V_6_finish_without_settings_does_not_judge_instant_death():
    outcome = finish("x", make(vit=2), make(vit=-1), [], headline="Ouch.")
    assert outcome.after.state is State.CRITICAL


def test_V_6_finish_does_not_kill_when_vit_rises_below_zero():
    outcome = finish(
        "x", make(vit=-5, res=9), make(vit=-2, res=9), [], headline="", settings=INSTANT
    )
    assert outcome.after.state is State.CRITICAL


def test_V_6_finish_thresholds_keeps_vit_below_zero_alive():
    outcome = finish("x", make(vit=2), make(vit=-1), [], headline="", settings=GuildSettings())
    assert outcome.after.state is State.CRITICAL


def test_E_7_finish_retires_when_vit_falls_to_the_stress():
    outcome = finish("x", make(vit=5, stress=3), make(vit=3, stress=3), [], headline="Hit.")
    assert outcome.after.retired
    assert outcome.headline == ("Hero must retire to a different life: Stress 3 has reached VIT 3.")
    assert outcome.notes[0] == "Hit."
    assert "E-7" in outcome.rules


def test_E_7_finish_does_not_retire_when_nothing_got_worse():
    # Stress already at VIT (an imported sheet): only a rise of Stress or a fall of VIT checks
    sheet = make(vit=3, stress=3)
    outcome = finish("x", sheet, sheet.update(humility=1), [], headline="Edited.")
    assert outcome.after.state is State.UP


def test_E_7_finish_can_skip_the_check():
    outcome = finish(
        "x", make(vit=5, stress=3), make(vit=3, stress=3), [], headline="", retirement=False
    )
    assert outcome.after.state is State.UP


def test_H_4_finish_clears_unused_advantage_on_waking():
    outcome = finish("x", make(vit=0, advantage=True), make(vit=2, advantage=True), [], headline="")
    assert not outcome.after.advantage
    assert "H-4" in outcome.rules


def test_H_4_finish_keeps_advantage_while_still_down():
    before = make(vit=-1, res=3, advantage=True)
    outcome = finish("x", before, before.update(vit=0), [], headline="")
    assert outcome.after.advantage
    assert "H-4" not in outcome.rules
