"""Emotions, Stress, Breakdown, relief, situational breakdowns: E-1..E-9."""

from __future__ import annotations

import pytest

from rules.dice import ScriptedRandom
from rules.emotions import (
    ABILITIES,
    ADDRESS_ACTIONS,
    BREAKDOWN_EFFECTS,
    complete_quest,
    raise_emotion,
    relief,
    situational_breakdown,
)
from rules.models import Emotion, GuildSettings, ReliefMethod, State
from rules.outcome import RuleError
from tests.rules.conftest import make

ANGER, FEAR, SADNESS, GUILT = Emotion.ANGER, Emotion.FEAR, Emotion.SADNESS, Emotion.GUILT


# --- E-1, E-2: raising ----------------------------------------------------------------------


def test_E_1_raising_below_the_threshold_stacks():
    outcome = raise_emotion(make(), FEAR, 2)
    assert outcome.after.fear == 2
    assert outcome.after.breakdown is None
    assert outcome.rules == ("E-1",)
    assert [str(c) for c in outcome.changes] == ["Fear 0/4 → 2/4"]


def test_E_1_reaching_the_threshold_begins_breakdown_and_the_rest_is_stress():
    outcome = raise_emotion(make(anger=2), "anger", 4)
    assert outcome.after.anger == 4
    assert outcome.after.breakdown is ANGER
    assert outcome.after.stress == 2
    assert outcome.rules == ("E-1", "E-6")
    assert "Hero falls into a Breakdown of Anger." in outcome.notes
    assert "+2 Stress instead of Anger (E-2)." in outcome.notes


def test_E_1_exactly_reaching_the_threshold_adds_no_stress():
    outcome = raise_emotion(make(threshold=1), GUILT)
    assert outcome.after.guilt == 1
    assert outcome.after.breakdown is GUILT
    assert outcome.after.stress == 0


def test_E_1_a_full_stack_outside_breakdown_begins_one():
    # only an imported sheet can hold this; the next stage starts the Breakdown
    outcome = raise_emotion(make(sadness=4), SADNESS)
    assert outcome.after.breakdown is SADNESS
    assert outcome.after.stress == 1


def test_E_1_stages_are_1_to_20():
    for stages in (0, 21, True):
        with pytest.raises(RuleError, match="1 to 20"):
            raise_emotion(make(), ANGER, stages)


def test_E_2_in_breakdown_any_emotion_adds_stress_not_stacks():
    sheet = make(vit=10, anger=4, fear=1, breakdown="anger")
    outcome = raise_emotion(sheet, FEAR, 3)
    assert outcome.after.fear == 1
    assert outcome.after.stress == 3
    assert outcome.rules == ("E-2",)


# --- E-3..E-5: relief ---------------------------------------------------------------------


def test_E_3_drive_clears_every_stack_once_a_day():
    outcome = relief(make(anger=2, fear=3, guilt=1), ReliefMethod.DRIVE)
    assert outcome.after.stacks == dict.fromkeys(Emotion, 0)
    assert outcome.after.relief_used_today
    assert not outcome.after.daily_bonus
    with pytest.raises(RuleError, match="already had relief today"):
        relief(outcome.after.update(anger=1), "reward")


def test_E_3_address_the_emotion_closest_to_its_threshold_and_show_the_action():
    outcome = relief(make(anger=1, fear=3), "address")
    assert outcome.after.stacks == dict.fromkeys(Emotion, 0)
    assert outcome.notes[0] == f"Hero addresses Fear: {ADDRESS_ACTIONS[FEAR]}"
    assert outcome.after.relief_used_today


def test_E_3_address_a_tie_needs_the_players_pick():
    sheet = make(anger=2, sadness=2, fear=1)
    with pytest.raises(RuleError, match="Anger and Sadness are tied at 2/4"):
        relief(sheet, "address")
    outcome = relief(sheet, "address", "sadness")
    assert outcome.notes[0].startswith("Hero addresses Sadness:")


def test_E_3_address_refuses_an_emotion_that_is_not_closest():
    with pytest.raises(
        RuleError, match="closest to its threshold can be addressed: Fear \\(3/4\\)"
    ):
        relief(make(anger=1, fear=3), "address", "anger")


def test_E_3_address_actions_are_the_seed_table():
    assert ADDRESS_ACTIONS[ANGER].startswith("They must hurt someone or break something beneficial")
    assert "desert the group at a critical moment" in ADDRESS_ACTIONS[FEAR]
    assert "for a full day at least" in ADDRESS_ACTIONS[SADNESS]
    assert ADDRESS_ACTIONS[GUILT].endswith("yielding to someone else’s will.")


def test_E_3_not_while_in_breakdown_except_addressing_its_cause():
    sheet = make(fear=4, anger=2, stress=1, breakdown="fear")
    with pytest.raises(RuleError, match="only addressing Fear"):
        relief(sheet, "drive")
    with pytest.raises(RuleError, match="only addressing Fear"):
        relief(sheet, "address", "anger")


@pytest.mark.parametrize("method", ["drive", "reward"])
def test_E_4_drive_or_reward_with_nothing_stacked_gives_plus_3(method):
    outcome = relief(make(), method)
    assert outcome.after.daily_bonus
    assert outcome.after.relief_used_today
    assert outcome.rules == ("E-3", "E-4")
    assert [str(c) for c in outcome.changes] == ["+3 daily bonus no → yes"]


def test_E_4_address_with_nothing_stacked_is_refused():
    with pytest.raises(RuleError, match="no stacked emotion to address"):
        relief(make(), "address")


def test_E_5_address_ends_breakdown_keeps_stress_ignores_the_daily_limit():
    sheet = make(fear=4, anger=2, stress=3, breakdown="fear", relief_used_today=True)
    outcome = relief(sheet, "address")
    assert outcome.after.breakdown is None
    assert outcome.after.stacks == dict.fromkeys(Emotion, 0)
    assert outcome.after.stress == 3
    assert outcome.rules == ("E-3", "E-5")
    assert outcome.notes[0] == f"Hero addresses Fear: {ADDRESS_ACTIONS[FEAR]}"


def test_E_5_completing_a_quest_clears_stacks_stress_and_breakdown():
    sheet = make(fear=4, anger=2, stress=3, breakdown="fear")
    outcome = complete_quest(sheet)
    assert outcome.after.breakdown is None
    assert outcome.after.stress == 0
    assert outcome.after.stacks == dict.fromkeys(Emotion, 0)
    assert "The Breakdown is overcome (E-5)." in outcome.notes


def test_E_5_completing_a_quest_outside_breakdown_still_clears():
    outcome = complete_quest(make(anger=1, stress=2))
    assert outcome.after.anger == 0
    assert outcome.after.stress == 0
    assert outcome.rules == ("E-5",)


# --- E-6, E-7 -----------------------------------------------------------------------------


def test_E_6_breakdown_effects_are_shown_when_it_begins():
    outcome = raise_emotion(make(anger=3), ANGER)
    note = next(n for n in outcome.notes if "(E-6)" in n)
    assert note == f"Hero is in a Breakdown of Anger (E-6): {BREAKDOWN_EFFECTS[ANGER]}"
    assert "help, comfort or support someone" in note
    assert "Disadvantage on all Reaction Rolls" in note
    assert "No Ability XP" in note
    assert "Nearby allies -3 on Action Rolls" in note


def test_E_7_stress_reaching_vit_retires():
    sheet = make(vit=2, anger=4, stress=1, breakdown="anger")
    outcome = raise_emotion(sheet, GUILT)
    assert outcome.after.retired
    assert outcome.after.state is State.RETIRED
    assert "E-7" in outcome.rules
    assert any("must retire" in note for note in outcome.notes)


def test_E_7_vit_falling_to_stress_retires(settings):
    from rules.vitality import damage

    outcome = damage(make(vit=5, stress=3), 2, settings)
    assert outcome.after.state is State.RETIRED
    assert outcome.after.vit == 3


def test_E_7_not_checked_while_down(settings):
    from rules.vitality import damage

    outcome = damage(make(vit=1, res=3, stress=2), 2, settings)
    assert outcome.after.state is State.CRITICAL


def test_E_7_stress_zero_never_retires(settings):
    from rules.vitality import damage

    assert damage(make(vit=5), 4, settings).after.state is State.UP


def test_E_7_retired_refuses_emotions_relief_and_quests():
    sheet = make(retired=True, stress=12)
    with pytest.raises(RuleError, match="Retired"):
        raise_emotion(sheet, ANGER)
    with pytest.raises(RuleError, match="Retired"):
        relief(sheet, "drive")
    with pytest.raises(RuleError, match="Retired"):
        complete_quest(sheet)
    with pytest.raises(RuleError, match="Retired"):
        situational_breakdown(sheet, ANGER, 4, GuildSettings(), ScriptedRandom())


# --- E-8, E-9: situational breakdowns -----------------------------------------------------


def test_E_8_abilities_tested():
    assert ABILITIES == {
        ANGER: "humility",
        FEAR: "composure",
        SADNESS: "composure",
        GUILT: "insight",
    }


def test_E_8_reaction_roll_adds_the_ability_and_succeeds_at_the_pressure(settings):
    sheet = make(composure=2)
    outcome = situational_breakdown(sheet, FEAR, 6, settings, ScriptedRandom([4]))
    roll = outcome.rolls[0]
    assert (roll.dice, roll.modifier, roll.total, roll.target) == ((4,), 2, 6, 6)
    assert roll.label == "Reaction Roll (Composure)"
    assert outcome.after == sheet
    assert outcome.rules == ("E-8", "E-9")
    assert outcome.notes == ("Success (6 against Pressure 6): nothing happens (E-9).",)


def test_E_8_reaction_roll_includes_the_injury_condition(settings):
    sheet = make(vit=3, insight=1)  # 70% lost: -2 on Reaction Rolls
    outcome = situational_breakdown(sheet, GUILT, 4, settings, ScriptedRandom([5]))
    assert outcome.rolls[0].modifier == -1
    assert outcome.rolls[0].total == 4
    assert "H-3" in outcome.rules


def test_E_8_uses_the_guild_reaction_die():
    settings = GuildSettings(reaction_die="2d6")
    outcome = situational_breakdown(make(), ANGER, 8, settings, ScriptedRandom([3, 6]))
    assert outcome.rolls[0].dice == (3, 6)
    assert outcome.rolls[0].total == 9


def test_E_8_in_breakdown_roll_twice_keep_the_lower(settings):
    sheet = make(anger=4, breakdown="anger")
    outcome = situational_breakdown(sheet, FEAR, 4, settings, ScriptedRandom([9, 3]))
    kept, dropped = outcome.rolls
    assert kept.total == 3
    assert dropped.total == 9
    assert dropped.label.endswith("dropped for Disadvantage")
    assert "E-6" in outcome.rules
    # the lower may also be the first roll
    outcome = situational_breakdown(sheet, FEAR, 4, settings, ScriptedRandom([2, 8]))
    assert [r.total for r in outcome.rolls] == [2, 8]


def test_E_8_a_physically_rolled_result(settings):
    outcome = situational_breakdown(make(humility=1), ANGER, 8, settings, ScriptedRandom(), roll=7)
    assert outcome.rolls[0].manual
    assert outcome.rolls[0].total == 8
    assert outcome.after.breakdown is None
    with pytest.raises(RuleError, match="from 1 to 10"):
        situational_breakdown(make(), ANGER, 8, settings, ScriptedRandom(), roll=11)


def test_E_8_pressure_is_1_to_20(settings):
    with pytest.raises(RuleError, match="Pressure"):
        situational_breakdown(make(), ANGER, 21, settings, ScriptedRandom([5]))


def test_E_9_failure_outside_breakdown_begins_one(settings):
    sheet = make(anger=1)
    outcome = situational_breakdown(sheet, FEAR, 6, settings, ScriptedRandom([5]))
    assert outcome.after.breakdown is FEAR
    assert outcome.after.fear == 0 and outcome.after.anger == 1
    assert outcome.notes[0] == "Failure (5 against Pressure 6)."
    assert outcome.rules == ("E-8", "E-9", "E-6")


def test_E_9_failure_in_breakdown_forces_addressing_the_challenged_emotion(settings):
    sheet = make(anger=4, fear=2, stress=2, breakdown="anger")
    outcome = situational_breakdown(sheet, GUILT, 8, settings, ScriptedRandom([5, 7]))
    assert outcome.after.breakdown is None
    assert outcome.after.stacks == dict.fromkeys(Emotion, 0)
    assert outcome.after.stress == 2
    assert f"Hero addresses Guilt: {ADDRESS_ACTIONS[GUILT]}" in outcome.notes
    assert outcome.rules[-2:] == ("E-9", "E-5")
