"""Emotions, Stress, Breakdown, relief, situational breakdowns: E-1..E-10."""

from __future__ import annotations

import pytest

from rules.dice import ScriptedRandom
from rules.emotion_texts import ADDRESS_ACTIONS, BREAKDOWN_EFFECTS
from rules.emotions import ABILITIES, complete_quest, raise_emotion, relief, situational_breakdown
from rules.errors import RuleError
from rules.models import Emotion, EmotionCause, GuildSettings, ReliefMethod, State
from rules.vitality import damage
from tests.rules.conftest import make

ANGER, FEAR, SADNESS, GUILT = Emotion.ANGER, Emotion.FEAR, Emotion.SADNESS, Emotion.GUILT


# --- E-1, E-2: raising ----------------------------------------------------------------------


def test_E_1_raising_below_the_threshold_stacks():
    outcome = raise_emotion(make(), FEAR, 2)
    assert outcome.after.fear == 2
    assert outcome.after.breakdown is None
    assert outcome.rules == ("E-1", "E-10")
    assert [str(c) for c in outcome.changes] == ["Fear 0/4 → 2/4"]
    assert outcome.headline == "Hero's Fear rises after something in the story: Fear 2/4."


def test_E_1_reaching_the_threshold_begins_breakdown_and_the_rest_is_stress():
    outcome = raise_emotion(make(anger=2), "anger", 4)
    assert outcome.after.anger == 4
    assert outcome.after.breakdown is ANGER
    assert outcome.after.stress == 2
    assert {"E-1", "E-6"} <= set(outcome.rules)
    assert (
        outcome.headline
        == "Hero falls into a Breakdown of Anger after something in the story; the stages past "
        "the threshold add 2 Stress."
    )
    assert outcome.notes == (f"In a Breakdown of Anger: {BREAKDOWN_EFFECTS[ANGER]}",)


def test_E_1_exactly_reaching_the_threshold_adds_no_stress():
    outcome = raise_emotion(make(threshold=1), GUILT)
    assert outcome.after.guilt == 1
    assert outcome.after.breakdown is GUILT
    assert outcome.after.stress == 0
    assert outcome.headline == "Hero falls into a Breakdown of Guilt after something in the story."


def test_E_1_a_full_stack_outside_breakdown_begins_one():
    # only an imported sheet can hold this; the next stage starts the Breakdown
    outcome = raise_emotion(make(sadness=4), SADNESS)
    assert outcome.after.breakdown is SADNESS
    assert outcome.after.stress == 1


@pytest.mark.parametrize("stages", [0, 21, True, 1.0])
def test_E_1_stages_are_1_to_20(stages):
    with pytest.raises(RuleError, match="1 to 20"):
        raise_emotion(make(), ANGER, stages)


def test_E_2_in_breakdown_any_emotion_adds_stress_not_stacks():
    sheet = make(vit=10, anger=4, fear=1, breakdown="anger")
    outcome = raise_emotion(sheet, FEAR, 3)
    assert outcome.after.fear == 1
    assert outcome.after.stress == 3
    assert outcome.rules == ("E-2", "E-10")
    assert outcome.headline == (
        "Hero is in a Breakdown: Fear rises after something in the story as Stress instead, +3 "
        "(Stress 3)."
    )


# --- E-10: what raised it -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cause", "said"),
    [
        (EmotionCause.DARING_THROW, " after a Daring Throw"),
        ("reaction_roll", " after a Reaction Roll"),
        (EmotionCause.OTHER, " after something in the story"),
    ],
)
def test_E_10_the_cause_is_in_the_headline_other_too(cause, said):
    rising = raise_emotion(make(), FEAR, 1, cause)
    assert rising.headline == f"Hero's Fear rises{said}: Fear 1/4."
    falling = raise_emotion(make(fear=3), FEAR, 2, cause)
    assert (
        falling.headline
        == f"Hero falls into a Breakdown of Fear{said}; the stage past the threshold adds 1 Stress."
    )
    stressed = raise_emotion(make(fear=4, breakdown="fear"), GUILT, 1, cause)
    assert stressed.headline == (
        f"Hero is in a Breakdown: Guilt rises{said} as Stress instead, +1 (Stress 1)."
    )


def test_E_10_the_cause_changes_nothing_on_the_sheet():
    sheets = {cause: raise_emotion(make(), ANGER, 2, cause).after for cause in EmotionCause}
    assert len(set(sheets.values())) == 1
    assert "E-10" in raise_emotion(make(), ANGER, 2, "daring_throw").rules


def test_E_10_a_situational_breakdown_raises_no_stack_and_no_stress(settings):
    sheet = make(anger=2, fear=1, stress=3)
    failed = situational_breakdown(sheet, FEAR, 10, settings, ScriptedRandom([1]))
    assert failed.after.stacks == sheet.stacks
    assert failed.after.stress == sheet.stress
    assert failed.after.breakdown is FEAR  # only E-9 decides
    held = situational_breakdown(sheet, FEAR, 1, settings, ScriptedRandom([1]))
    assert held.after == sheet
    assert "E-10" not in failed.rules + held.rules


# --- E-3..E-5: relief ---------------------------------------------------------------------


def test_E_3_drive_clears_every_stack_once_a_day():
    outcome = relief(make(anger=2, fear=3, guilt=1), ReliefMethod.DRIVE)
    assert outcome.after.stacks == dict.fromkeys(Emotion, 0)
    assert outcome.after.relief_used_today
    assert not outcome.after.daily_bonus
    assert outcome.headline == "Hero finds relief (drive): every emotion is cleared."
    with pytest.raises(RuleError, match="already had relief today") as caught:
        relief(outcome.after.update(anger=1), "reward")
    assert caught.value.values == {"name": "Hero"}


def test_E_3_address_the_emotion_closest_to_its_threshold_and_show_the_action():
    outcome = relief(make(anger=1, fear=3), "address")
    assert outcome.after.stacks == dict.fromkeys(Emotion, 0)
    assert outcome.headline == "Hero addresses Fear: every emotion is cleared."
    assert outcome.notes[0] == f"To address Fear: {ADDRESS_ACTIONS[FEAR]}"
    assert outcome.after.relief_used_today


def test_E_3_address_a_tie_needs_the_players_pick():
    sheet = make(anger=2, sadness=2, fear=1)
    with pytest.raises(RuleError, match="Anger and Sadness are tied at 2/4"):
        relief(sheet, "address")
    outcome = relief(sheet, "address", "sadness")
    assert outcome.headline.startswith("Hero addresses Sadness:")
    assert outcome.notes[0] == f"To address Sadness: {ADDRESS_ACTIONS[SADNESS]}"


def test_E_3_address_refuses_an_emotion_that_is_not_closest():
    with pytest.raises(
        RuleError, match="closest to its threshold can be addressed: Fear \\(3/4\\)"
    ):
        relief(make(anger=1, fear=3), "address", "anger")


def test_E_3_address_the_only_top_emotion_when_named():
    outcome = relief(make(anger=1, fear=3), "address", FEAR)
    assert outcome.headline == "Hero addresses Fear: every emotion is cleared."


def test_E_3_address_actions_are_the_seed_table():
    assert ADDRESS_ACTIONS[ANGER].startswith("They must hurt someone or break something beneficial")
    assert "desert the group at a critical moment" in ADDRESS_ACTIONS[FEAR]
    assert "for a full day at least" in ADDRESS_ACTIONS[SADNESS]
    assert ADDRESS_ACTIONS[GUILT].endswith("yielding to someone else’s will.")


def test_E_3_not_while_in_breakdown_except_addressing_its_cause():
    sheet = make(fear=4, anger=2, stress=1, breakdown="fear")
    with pytest.raises(RuleError, match="only addressing Fear") as caught:
        relief(sheet, "drive")
    assert caught.value.values == {"name": "Hero", "cause": "Fear"}
    with pytest.raises(RuleError, match="only addressing Fear"):
        relief(sheet, "address", "anger")


@pytest.mark.parametrize("method", ["drive", "reward"])
def test_E_4_drive_or_reward_with_nothing_stacked_gives_plus_3(method):
    outcome = relief(make(), method)
    assert outcome.after.daily_bonus
    assert outcome.after.relief_used_today
    assert set(outcome.rules) == {"E-3", "E-4"}
    assert [str(c) for c in outcome.changes] == [
        "Relief used today no → yes",
        "+3 daily bonus no → yes",
    ]
    assert outcome.headline == (
        f"Hero finds relief ({method}) with no emotion stacked: +3 on all Action Rolls until "
        "the end of the day."
    )


def test_E_4_address_with_nothing_stacked_is_refused():
    with pytest.raises(RuleError, match="no stacked emotion to address"):
        relief(make(), "address")


@pytest.mark.parametrize("chosen", [None, "fear"])
def test_E_5_address_ends_breakdown_keeps_stress_ignores_the_daily_limit(chosen):
    sheet = make(fear=4, anger=2, stress=3, breakdown="fear", relief_used_today=True)
    outcome = relief(sheet, "address", chosen)
    assert outcome.after.breakdown is None
    assert outcome.after.stacks == dict.fromkeys(Emotion, 0)
    assert outcome.after.stress == 3
    assert set(outcome.rules) == {"E-3", "E-5"}
    assert outcome.headline == (
        "Hero addresses Fear and overcomes the Breakdown: every emotion is cleared; Stress "
        "stays at 3."
    )
    assert outcome.notes[0] == f"To address Fear: {ADDRESS_ACTIONS[FEAR]}"


def test_E_5_completing_a_quest_clears_stacks_stress_and_breakdown():
    sheet = make(fear=4, anger=2, stress=3, breakdown="fear")
    outcome = complete_quest(sheet)
    assert outcome.after.breakdown is None
    assert outcome.after.stress == 0
    assert outcome.after.stacks == dict.fromkeys(Emotion, 0)
    assert outcome.headline == (
        "Quest complete: Hero's emotions and Stress are all cleared and the Breakdown ends."
    )


def test_E_5_completing_a_quest_outside_breakdown_still_clears():
    outcome = complete_quest(make(anger=1, stress=2))
    assert outcome.after.anger == 0
    assert outcome.after.stress == 0
    assert outcome.rules == ("E-5",)
    assert outcome.headline == "Quest complete: Hero's emotions and Stress are all cleared."


# --- E-6, E-7 -----------------------------------------------------------------------------


def test_E_6_breakdown_effects_are_shown_when_it_begins():
    outcome = raise_emotion(make(anger=3), ANGER)
    note = next(n for n in outcome.notes if n.startswith("In a Breakdown of"))
    assert note == f"In a Breakdown of Anger: {BREAKDOWN_EFFECTS[ANGER]}"
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
    assert outcome.headline == "Hero must retire to a different life: Stress 2 has reached VIT 2."
    assert outcome.notes[0].startswith("Hero is in a Breakdown: Guilt rises")


def test_E_7_vit_falling_to_stress_retires(settings):
    outcome = damage(make(vit=5, stress=3), 2, settings)
    assert outcome.after.state is State.RETIRED
    assert outcome.after.vit == 3


def test_E_7_not_checked_while_down(settings):
    outcome = damage(make(vit=1, res=3, stress=2), 2, settings)
    assert outcome.after.state is State.CRITICAL
    down = raise_emotion(make(vit=0, res=2, anger=4, breakdown="anger"), FEAR, 3)
    assert down.after.state is State.UNCONSCIOUS


def test_E_7_stress_zero_never_retires(settings):
    assert damage(make(vit=5), 4, settings).after.state is State.UP


def test_E_2_stress_past_its_maximum_is_refused_or_capped():
    sheet = make(vit=0, res=2, stress=10_000, anger=4, breakdown="anger")
    try:
        outcome = raise_emotion(sheet, FEAR)
    except RuleError:
        return
    assert outcome.after.stress <= 10_000


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
    assert (roll.dice, roll.value, roll.total, roll.target) == ((4,), 4, 6, 6)
    assert roll.bonuses == (("Composure", 2),)
    assert roll.label == "Reaction Roll (Composure)"
    assert outcome.after == sheet
    assert outcome.rules == ("E-8", "E-9")
    assert outcome.headline == (
        "Hero holds firm: the Reaction Roll succeeds (6 against Pressure 6), nothing happens."
    )


def test_E_8_reaction_roll_includes_the_injury_condition(settings):
    sheet = make(vit=3, insight=1)  # 70% lost: -2 on Reaction Rolls
    outcome = situational_breakdown(sheet, GUILT, 4, settings, ScriptedRandom([5]))
    assert outcome.rolls[0].bonuses == (("Insight", 1), ("injury", -2))
    assert outcome.rolls[0].total == 4
    assert "H-3" in outcome.rules


def test_E_8_a_negative_ability_lowers_the_roll(settings):
    outcome = situational_breakdown(make(humility=-3), ANGER, 4, settings, ScriptedRandom([6]))
    assert outcome.rolls[0].total == 3
    assert outcome.after.breakdown is ANGER


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
    assert dropped.label == "Reaction Roll (Composure)" and dropped.dropped and not kept.dropped
    assert "E-6" in outcome.rules
    # the lower may also be the first roll
    outcome = situational_breakdown(sheet, FEAR, 4, settings, ScriptedRandom([2, 8]))
    assert [r.total for r in outcome.rolls] == [2, 8]
    # a tie keeps the first
    tie = situational_breakdown(sheet, FEAR, 4, settings, ScriptedRandom([5, 5]))
    assert tie.rolls[0].label == "Reaction Roll (Composure)"


def test_E_8_in_breakdown_a_success_reminds_the_breakdown(settings):
    sheet = make(anger=4, breakdown="anger")
    outcome = situational_breakdown(sheet, FEAR, 4, settings, ScriptedRandom([6, 7]))
    assert outcome.after == sheet
    assert outcome.notes == (
        "In a Breakdown of Anger: Disadvantage on related actions and on all Reaction Rolls.",
    )


def test_E_8_a_physically_rolled_result(settings):
    outcome = situational_breakdown(make(humility=1), ANGER, 8, settings, ScriptedRandom(), roll=7)
    assert outcome.rolls[0].manual
    assert outcome.rolls[0].total == 8
    assert outcome.after.breakdown is None
    with pytest.raises(RuleError, match="from 1 to 10"):
        situational_breakdown(make(), ANGER, 8, settings, ScriptedRandom(), roll=11)


def test_E_8_in_breakdown_a_physical_result_is_one_roll(settings):
    sheet = make(anger=4, breakdown="anger")
    outcome = situational_breakdown(sheet, FEAR, 4, settings, ScriptedRandom(), roll=2)
    assert len(outcome.rolls) == 1


@pytest.mark.parametrize("pressure", [0, 21, True])
def test_E_8_pressure_is_1_to_20(settings, pressure):
    with pytest.raises(RuleError, match="Pressure"):
        situational_breakdown(make(), ANGER, pressure, settings, ScriptedRandom([5]))


def test_E_9_failure_outside_breakdown_begins_one(settings):
    sheet = make(anger=1)
    outcome = situational_breakdown(sheet, FEAR, 6, settings, ScriptedRandom([5]))
    assert outcome.after.breakdown is FEAR
    assert outcome.after.fear == 0 and outcome.after.anger == 1
    assert outcome.headline == (
        "Hero breaks down: the Reaction Roll fails (5 against Pressure 6); a Breakdown of "
        "Fear begins."
    )
    assert outcome.notes == (f"In a Breakdown of Fear: {BREAKDOWN_EFFECTS[FEAR]}",)
    assert outcome.rules == ("E-8", "E-9", "E-6")


def test_E_9_failure_in_breakdown_forces_addressing_the_challenged_emotion(settings):
    sheet = make(anger=4, fear=2, stress=2, breakdown="anger")
    outcome = situational_breakdown(sheet, GUILT, 8, settings, ScriptedRandom([5, 7]))
    assert outcome.after.breakdown is None
    assert outcome.after.stacks == dict.fromkeys(Emotion, 0)
    assert outcome.after.stress == 2
    assert not outcome.after.relief_used_today  # E-5 is not the daily relief
    assert outcome.notes == (f"To address Guilt: {ADDRESS_ACTIONS[GUILT]}",)
    assert outcome.rules[-2:] == ("E-6", "E-5")
    assert outcome.headline.startswith("Hero fails while in a Breakdown (5 against Pressure 8)")
    assert "must address Guilt on the spot" in outcome.headline
