"""Vitality states, damage, healing, recovery rolls and first aid: V-*, H-*, R-*, F-1."""

from __future__ import annotations

import random

import pytest

from rules.dice import ScriptedRandom
from rules.errors import RuleError
from rules.models import CriticalBleed, DeathRule, DyingDamage, GuildSettings, State
from rules.vitality import advantage_applies, damage, first_aid, heal, recover
from tests.rules.conftest import COMBAT, INSTANT, dice, make

KILLS = GuildSettings(dying_damage=DyingDamage.KILLS)
NO_GASP_ADVANTAGE = GuildSettings(last_gasp_advantage="no")


# --- V: the states ------------------------------------------------------------------------


def test_V_1_positive_vit_is_up():
    assert make(vit=1).state is State.UP


def test_V_1_a_character_that_is_up_has_no_recovery_dice():
    assert make(vit=3, res=4).recovery_dice == 0
    assert make(vit=-9, res=2, dead=True).recovery_dice == 0


def test_V_2_vit_zero_with_res_is_unconscious():
    assert make(vit=0, res=1).state is State.UNCONSCIOUS
    assert make(vit=0, res=1).recovery_dice == 1


def test_V_3_negative_vit_with_dice_left_is_critical():
    sheet = make(vit=-1, res=3)
    assert sheet.state is State.CRITICAL
    assert sheet.recovery_dice == 2


def test_V_4_no_recovery_dice_is_dying_including_vit_zero_res_zero():
    assert make(vit=-2, res=2).state is State.DYING
    assert make(vit=0, res=0).state is State.DYING
    assert make(vit=-2, res=2).recovery_dice == 1  # the Last Gasp die


def test_V_4_damage_past_the_dice_makes_dying(settings):
    outcome = damage(make(vit=1, res=2), 3, settings)
    assert outcome.after.vit == -2
    assert outcome.after.state is State.DYING
    assert outcome.rules[:3] == ("H-1", "V-4", "V-7")
    assert outcome.headline == (
        "Hero is Dying at VIT -2: only the Last Gasp is left, at its next turn."
    )


def test_V_5_dead_only_after_failed_last_gasp_never_from_damage(settings):
    outcome = damage(make(vit=1, res=2), 500, settings)
    assert outcome.after.vit == -499
    assert outcome.after.state is State.DYING
    assert not outcome.after.dead


@pytest.mark.parametrize("flag", ["dead", "retired"])
def test_V_5_dead_or_retired_refuses_damage_healing_rolls_and_aid(settings, flag):
    sheet = make(vit=-3, res=2, **{flag: True})
    with pytest.raises(RuleError, match="revive"):
        damage(sheet, 1, settings)
    with pytest.raises(RuleError, match="revive"):
        heal(sheet, 1, settings)
    with pytest.raises(RuleError, match="revive"):
        recover(sheet, settings, dice("C"), in_combat=True, by_gm=True)
    with pytest.raises(RuleError, match="revive"):
        first_aid(sheet, settings, random.Random(1), success=True)


def test_V_5_refusing_damage_to_the_dead_passes_the_name_as_a_value(settings):
    with pytest.raises(RuleError) as caught:
        damage(make(name="Lenora", vit=-3, dead=True), 2, settings)
    assert str(caught.value).startswith("Lenora is Dead: taking damage is not possible.")
    assert caught.value.values == {"name": "Lenora"}


# --- V-6: instant death ---------------------------------------------------------------------


def test_V_6_instant_death_from_damage_says_why():
    outcome = damage(make(vit=2, res=5), 3, INSTANT)
    assert outcome.after.dead
    assert outcome.after.vit == -1
    assert outcome.after.state is State.DEAD
    assert outcome.rules[:4] == ("V-6", "H-1", "V-5", "V-7")  # the rule the headline is about
    assert outcome.headline.startswith("Killed outright: Hero dies at VIT -1")
    assert "instant death (VIT below 0)" in outcome.headline
    # what the damage alone would have said becomes the first note
    assert not any(note.startswith("Hero collapses") for note in outcome.notes)


def test_V_6_instant_death_from_a_critical_bleed():
    # a Critical character under `instant` (the guild changed the setting): R-4 loses 1 VIT
    rng = dice("MM")
    outcome = recover(make(vit=-1, res=3), INSTANT, rng, **COMBAT)
    assert rng.remaining == 0
    assert outcome.after.dead
    assert outcome.after.vit == -2
    assert {"R-4", "V-6", "V-5"} <= set(outcome.rules)
    assert outcome.headline.startswith("Killed outright: Hero dies at VIT -2")
    assert not any(note.startswith("No Crit: Hero loses 1 VIT") for note in outcome.notes)


def test_V_6_instant_death_no_bleed_no_death():
    outcome = recover(make(vit=-1, res=3), INSTANT, dice("MH"), **COMBAT)
    assert outcome.after.state is State.CRITICAL
    assert "V-6" not in outcome.rules


def test_V_6_instant_vit_zero_still_follows_V_2():
    outcome = damage(make(vit=2, res=5), 2, INSTANT)
    assert outcome.after.state is State.UNCONSCIOUS
    assert not outcome.after.dead
    assert "V-6" not in outcome.rules


def test_V_6_instant_vit_zero_with_res_zero_is_dying_not_dead():
    outcome = damage(make(vit=2, res=0), 2, INSTANT)
    assert outcome.after.state is State.DYING
    assert not outcome.after.dead


def test_V_6_instant_a_dying_character_at_vit_zero_dies_of_damage():
    # V-8 `nothing` would keep it Dying, but the damage takes VIT below 0
    outcome = damage(make(vit=0, res=0), 1, INSTANT)
    assert outcome.after.dead
    assert {"V-8", "V-6"} <= set(outcome.rules)
    assert outcome.headline.startswith("Killed outright: Hero dies at VIT -1")


def test_V_6_thresholds_default_does_not_kill(settings):
    assert settings.death_rule is DeathRule.THRESHOLDS
    assert damage(make(vit=2, res=5), 3, settings).after.state is State.CRITICAL


def test_V_6_instant_healing_below_zero_does_not_kill():
    outcome = heal(make(vit=-5, res=9), 1, INSTANT)
    assert outcome.after.state is State.UNCONSCIOUS


# --- V-7 ------------------------------------------------------------------------------------


def test_V_7_state_change_has_old_and_new_vit_and_state(settings):
    outcome = damage(make(vit=1, res=2), 2, settings)
    assert [str(c) for c in outcome.changes] == ["VIT 1 → -1", "State Up → Critical"]
    assert str(outcome.state_change) == " Up → Critical"
    assert "V-7" in outcome.rules


def test_V_7_no_state_change_no_v7(settings):
    outcome = damage(make(vit=10), 1, settings)
    assert outcome.state_change is None
    assert "V-7" not in outcome.rules
    assert [str(c) for c in outcome.changes] == ["VIT 10 → 9"]


# --- V-8: damage while Dying ----------------------------------------------------------------


def test_V_8_nothing_damage_to_a_dying_character_lowers_vit_and_keeps_it_dying(settings):
    assert settings.dying_damage is DyingDamage.NOTHING
    outcome = damage(make(vit=-2, res=2), 3, settings)
    assert outcome.after.vit == -5
    assert outcome.after.state is State.DYING
    assert not outcome.after.dead
    assert outcome.rules[:2] == ("H-1", "V-8")
    assert outcome.headline == (
        "Hero takes 3 damage and is still Dying at VIT -5: the Last Gasp decides, at its next turn."
    )


def test_V_8_nothing_the_dying_character_still_rolls_its_last_gasp(settings):
    hurt = damage(make(vit=-2, res=2), 3, settings).after
    outcome = recover(hurt, settings, dice("C"), **COMBAT)
    assert outcome.rolls[0].label == "Last Gasp"
    assert outcome.after.vit == 0
    assert outcome.after.state is State.UNCONSCIOUS


def test_V_8_kills_any_damage_to_a_dying_character_kills():
    outcome = damage(make(vit=-2, res=2), 1, KILLS)
    assert outcome.after.dead
    assert outcome.after.vit == -3
    assert {"H-1", "V-8", "V-5", "V-7"} <= set(outcome.rules)
    assert outcome.headline == "Hero dies: on this server any damage to a Dying character kills."


def test_V_8_kills_also_at_vit_zero_with_res_zero():
    outcome = damage(make(vit=0, res=0), 1, KILLS)
    assert outcome.after.dead


def test_V_8_kills_does_not_touch_a_character_that_only_becomes_dying():
    outcome = damage(make(vit=1, res=2), 3, KILLS)
    assert outcome.after.state is State.DYING
    assert not outcome.after.dead
    assert "V-8" not in outcome.rules


def test_V_8_kills_under_instant_is_still_one_death():
    settings = GuildSettings(death_rule="instant", dying_damage="kills")
    outcome = damage(make(vit=0, res=0), 1, settings)
    assert outcome.after.dead
    assert "V-6" not in outcome.rules  # V-8 decided first
    assert outcome.headline.startswith("Hero dies: on this server any damage")


# --- H: damage and healing ----------------------------------------------------------------


def test_H_1_damage_subtracts_with_no_floor(settings):
    outcome = damage(make(vit=5, res=20), 10_000, settings)
    assert outcome.after.vit == -9995
    assert outcome.rules[0] == "H-1"


def test_H_1_damage_past_the_vit_floor_is_refused_or_kept_in_range(settings):
    sheet = make(vit=-9_999, res=20)
    try:
        outcome = damage(sheet, 2, settings)
    except RuleError:
        return
    assert outcome.after.vit >= -10_000


@pytest.mark.parametrize(
    ("before", "amount", "headline"),
    [
        ({"vit": 10}, 3, "Hero takes 3 damage."),
        (
            {"vit": 3},
            3,
            "Hero falls Unconscious at VIT 0: a recovery roll is due at its next turn.",
        ),
        (
            {"vit": 1, "res": 3},
            2,
            "Hero collapses, Critical at VIT -1: 2 recovery dice at its next turn.",
        ),
        (
            {"vit": -1, "res": 3},
            1,
            "Hero is still Critical at VIT -2: 1 recovery die at its next turn.",
        ),
    ],
)
def test_H_1_the_damage_headline_says_where_it_leaves_the_character(
    settings, before, amount, headline
):
    assert damage(make(**before), amount, settings).headline == headline


@pytest.mark.parametrize("amount", [0, -1, 10_001, True, 2.5, "3"])
def test_H_1_damage_amount_is_1_to_10000(settings, amount):
    with pytest.raises(RuleError, match="1 to 10,000"):
        damage(make(), amount, settings)


def test_H_2_healing_up_adds_capped_at_max(settings):
    assert heal(make(vit=5), 3, settings).after.vit == 8
    assert heal(make(vit=5), 30, settings).after.vit == 10
    outcome = heal(make(vit=5), 3, settings)
    assert outcome.rules == ("H-2", "H-3")
    assert outcome.headline == "Hero heals 3: VIT 8/10."


def test_H_2_healing_unconscious_sets_vit_to_n_and_wakes(settings):
    outcome = heal(make(vit=0, res=2), 4, settings)
    assert outcome.after.vit == 4
    assert outcome.after.state is State.UP
    assert outcome.headline == "Hero wakes up at VIT 4/10."
    assert heal(make(vit=0, res=2), 40, settings).after.vit == 10


def test_H_2_healing_critical_first_point_stabilises(settings):
    one = heal(make(vit=-1, res=3), 1, settings)
    assert one.after.vit == 0
    assert one.after.state is State.UNCONSCIOUS
    assert one.headline.startswith("Hero is stabilised at VIT 0: Unconscious")
    two = heal(make(vit=-1, res=3), 2, settings)
    assert two.after.vit == 1
    assert two.after.state is State.UP
    assert heal(make(vit=-1, res=3), 50, settings).after.vit == 10


def test_H_2_healing_dying_follows_the_critical_rule(settings):
    outcome = heal(make(vit=-5, res=2), 4, settings)
    assert outcome.after.vit == 3
    assert heal(make(vit=-5, res=2), 1, settings).after.vit == 0
    assert heal(make(vit=-5, res=2), 1, settings).after.state is State.UNCONSCIOUS


def test_H_2_healing_dying_at_vit_zero_res_zero_uses_the_dying_rule(settings):
    sheet = make(vit=0, res=0)
    assert heal(sheet, 1, settings).after.state is State.DYING
    assert heal(sheet, 3, settings).after.vit == 2


def test_H_2_healing_that_changes_nothing_says_so_and_why(settings):
    outcome = heal(make(vit=0, res=0), 1, settings)
    assert outcome.after == outcome.before
    assert not outcome.is_change
    assert outcome.headline == "The healing changes nothing: Hero is still Dying at VIT 0."
    assert "RES 0, VIT 0 is still Dying" in outcome.notes[0]
    assert "Heal 2 or more" in outcome.notes[0]


def test_H_2_healing_at_full_vit_changes_nothing_and_says_so(settings):
    outcome = heal(make(vit=10), 4, settings)
    assert not outcome.is_change
    assert outcome.headline == "The healing changes nothing: Hero is already at full VIT (10/10)."


def test_H_2_healing_res_zero_below_zero_rises_to_zero_still_dying(settings):
    outcome = heal(make(vit=-3, res=0), 1, settings)
    assert outcome.after.vit == 0
    assert outcome.after.state is State.DYING
    assert outcome.is_change
    assert "still Dying" in outcome.headline
    assert "heal 2 or more" in outcome.headline


@pytest.mark.parametrize("amount", [0, 10_001, False])
def test_H_2_healing_amount_is_1_to_10000(settings, amount):
    with pytest.raises(RuleError, match="Healing"):
        heal(make(), amount, settings)


def test_H_2_healing_the_dead_is_refused(settings):
    with pytest.raises(RuleError, match="Dead: healing is not possible"):
        heal(make(vit=-3, dead=True), 5, settings)


def test_H_3_injury_condition_note_after_a_change_of_vit(settings):
    outcome = damage(make(vit=10), 3, settings)  # 30% lost
    assert "H-3" in outcome.rules
    assert "Injury: -3 on Action Rolls, -1 on Reaction Rolls." in outcome.notes
    outcome = damage(make(vit=10), 7, settings)  # 70% lost
    assert "Injury: -8 on Action Rolls, -2 on Reaction Rolls." in outcome.notes


def test_H_3_no_note_while_uninjured(settings):
    outcome = damage(make(vit=10), 2, settings)
    assert "H-3" in outcome.rules
    assert not outcome.notes


def test_H_3_healing_out_of_injury_says_so(settings):
    outcome = heal(make(vit=5), 5, settings)
    assert "No injury condition any more." in outcome.notes


def test_H_3_no_condition_note_for_a_character_that_goes_down_or_dies(settings):
    for outcome in (
        damage(make(vit=10), 10, settings),  # Unconscious
        damage(make(vit=10, res=3), 12, settings),  # Critical
        damage(make(vit=2, res=5), 3, INSTANT),  # Dead
        recover(make(vit=-1, res=3), settings, dice("MM"), **COMBAT),  # bleeds, still down
    ):
        assert "H-3" in outcome.rules
        assert not any("Injury condition" in note for note in outcome.notes)


def test_H_3_waking_shows_the_condition(settings):
    outcome = recover(make(vit=0, res=2), settings, dice("CC"), **COMBAT)
    assert "Injury: -8 on Action Rolls, -2 on Reaction Rolls." in outcome.notes


def test_H_4_waking_by_healing_clears_unused_advantage(settings):
    outcome = heal(make(vit=0, res=2, advantage=True), 2, settings)
    assert not outcome.after.advantage
    assert "H-4" in outcome.rules


def test_H_4_stabilising_without_waking_keeps_advantage(settings):
    outcome = heal(make(vit=-1, res=3, advantage=True), 1, settings)
    assert outcome.after.advantage
    assert "H-4" not in outcome.rules


def test_E_7_waking_by_healing_with_stress_at_vit_retires(settings):
    outcome = heal(make(vit=0, res=2, stress=3), 2, settings)
    assert outcome.after.state is State.RETIRED
    assert outcome.headline.startswith("Hero must retire")
    assert outcome.notes[0] == "Hero wakes up at VIT 2/10."


# --- R: recovery rolls --------------------------------------------------------------------


def test_R_1_unconscious_rolls_res_dice(settings):
    rng = dice("MMH")
    outcome = recover(make(vit=0, res=3), settings, rng, **COMBAT)
    assert outcome.rolls[0].faces == ("M", "M", "H")
    assert outcome.rolls[0].label == "Unconscious recovery roll"
    assert rng.remaining == 0
    assert "R-1" in outcome.rules


def test_R_1_a_character_that_is_up_cannot_roll(settings):
    with pytest.raises(RuleError, match="is Up") as caught:
        recover(make(vit=7), settings, dice("C"), **COMBAT)
    assert caught.value.values == {"name": "Hero", "vit": 7, "max_vit": 10}


def test_R_1_manual_faces_wrong_count_refused(settings):
    with pytest.raises(RuleError, match="exactly 2 letters"):
        recover(make(vit=0, res=2), settings, ScriptedRandom(), faces="C", **COMBAT)


def test_R_2_unconscious_without_crit_changes_nothing_but_the_round_flag(settings):
    outcome = recover(make(vit=0, res=2), settings, dice("HM"), **COMBAT)
    assert outcome.after.vit == 0
    assert outcome.after.state is State.UNCONSCIOUS
    assert outcome.changes == []
    assert outcome.is_change  # U-2: a roll is a change even when its result changes nothing
    assert outcome.after.recovered_this_round
    assert outcome.headline == (
        "No Crit (only Crits count): Hero stays Unconscious; the next roll comes at its next turn."
    )


def test_R_2_each_crit_wakes_one_more_vit(settings):
    outcome = recover(make(vit=0, res=3), settings, dice("CCH"), **COMBAT)
    assert outcome.after.vit == 2
    assert {"R-1", "R-2", "C-3", "D-1", "D-2", "D-4", "V-1", "V-7"} <= set(outcome.rules)
    assert outcome.headline == "Hero wakes up! 2 Crits: VIT 2/10."


def test_R_2_one_crit_wakes_at_one(settings):
    outcome = recover(make(vit=0, res=3), settings, dice("MCH"), **COMBAT)
    assert outcome.after.vit == 1
    assert outcome.headline == "Hero wakes up! One Crit: VIT 1/10."


def test_R_2_wake_is_capped_at_max_vit(settings):
    outcome = recover(make(max_vit=2, vit=0, res=4), settings, dice("CCCC"), **COMBAT)
    assert outcome.after.vit == 2
    assert outcome.headline == "Hero wakes up! 4 Crits: VIT 2/2."


def test_R_2_waking_with_stress_at_vit_retires(settings):
    outcome = recover(make(vit=0, res=2, stress=1), settings, dice("CH"), **COMBAT)
    assert outcome.after.state is State.RETIRED
    assert "E-7" in outcome.rules
    assert outcome.headline == "Hero must retire to a different life: Stress 1 has reached VIT 1."
    assert outcome.notes[0] == "Hero wakes up! One Crit: VIT 1/10."


def test_R_3_critical_rolls_res_plus_vit_dice_one_crit_stabilises(settings):
    rng = dice("MCH")
    outcome = recover(make(vit=-2, res=5), settings, rng, **COMBAT)
    assert len(outcome.rolls[0].faces) == 3
    assert outcome.rolls[0].label == "Critical recovery roll"
    assert outcome.after.vit == 0
    assert outcome.after.state is State.UNCONSCIOUS
    assert "R-3" in outcome.rules
    assert outcome.headline == "Stabilised! One Crit: Hero is Unconscious at VIT 0."


def test_R_3_each_further_crit_restores_one_vit(settings):
    outcome = recover(make(vit=-1, res=4), settings, dice("CCC"), **COMBAT)
    assert outcome.after.vit == 2
    assert outcome.after.state is State.UP
    assert outcome.headline == "Hero wakes up! 3 Crits: VIT 2/10."
    capped = recover(make(max_vit=1, vit=-1, res=4), settings, dice("CCC"), **COMBAT)
    assert capped.after.vit == 1


def test_R_4_all_miss_costs_one_vit_still_critical(settings):
    outcome = recover(make(vit=-1, res=4), settings, dice("MMM"), **COMBAT)
    assert outcome.after.vit == -2
    assert outcome.after.state is State.CRITICAL
    assert "R-4" in outcome.rules
    assert outcome.headline == (
        "No Crit: Hero loses 1 VIT and is still Critical at VIT -2; the next roll comes at its "
        "next turn."
    )


def test_R_4_bleeding_can_make_dying_and_says_so(settings):
    outcome = recover(make(vit=-1, res=2), settings, dice("M"), **COMBAT)
    assert outcome.after.vit == -2
    assert outcome.after.state is State.DYING
    assert outcome.rules[-3:] == ("V-4", "V-7", "H-3")
    assert outcome.headline == (
        "No Crit: Hero loses 1 VIT and is now Dying at VIT -2: the Last Gasp comes next."
    )


def test_R_4_all_miss_spares_a_roll_with_a_hit(settings):
    outcome = recover(make(vit=-1, res=3), settings, dice("MH"), **COMBAT)
    assert outcome.after.vit == -1
    assert "R-4" in outcome.rules
    assert outcome.headline == (
        "No Crit (only Crits count): Hero stays Critical at VIT -1; the next roll comes at its "
        "next turn."
    )


def test_R_4_no_crit_setting_bleeds_on_hits_too():
    settings = GuildSettings(critical_bleed=CriticalBleed.NO_CRIT)
    outcome = recover(make(vit=-1, res=3), settings, dice("HH"), **COMBAT)
    assert outcome.after.vit == -2


def test_R_4_never_setting_does_not_bleed():
    settings = GuildSettings(critical_bleed=CriticalBleed.NEVER)
    outcome = recover(make(vit=-1, res=3), settings, dice("MM"), **COMBAT)
    assert outcome.after.vit == -1
    assert "stays Critical" in outcome.headline


def test_R_5_last_gasp_crit_with_res_stabilises_unconscious_and_says_so(settings):
    outcome = recover(make(vit=-3, res=2), settings, dice("C"), **COMBAT)
    assert outcome.rolls[0].label == "Last Gasp"
    assert outcome.rolls[0].faces == ("C",)
    assert outcome.after.vit == 0
    assert outcome.after.state is State.UNCONSCIOUS
    assert outcome.public
    assert outcome.headline == (
        "A Crit on the Last Gasp: Hero survives, stabilised and Unconscious at VIT 0."
    )


@pytest.mark.parametrize("vit", [0, -3])
def test_R_5_last_gasp_crit_with_res_zero_stays_dying_at_zero_and_says_so(settings, vit):
    outcome = recover(make(vit=vit, res=0), settings, dice("C"), **COMBAT)
    assert outcome.after.vit == 0
    assert outcome.after.state is State.DYING
    assert not outcome.after.dead
    assert outcome.headline == (
        "A Crit on the Last Gasp: Hero survives, but with RES 0 it is still Dying: "
        "another Last Gasp at its next turn."
    )


@pytest.mark.parametrize("face", ["M", "H"])
def test_R_5_last_gasp_anything_else_is_death(settings, face):
    outcome = recover(make(vit=-3, res=2), settings, dice(face), **COMBAT)
    assert outcome.after.state is State.DEAD
    assert outcome.after.vit == -3
    assert outcome.public
    assert "R-5" in outcome.rules
    assert "V-5" in outcome.rules
    assert outcome.headline == "The Last Gasp fails: Hero is dead."


def test_R_5_the_last_gasp_is_public_even_when_the_gm_rolls_it(settings):
    outcome = recover(make(vit=-2, res=2), settings, dice("C"), in_combat=False, by_gm=True)
    assert outcome.public


# --- advantage -------------------------------------------------------------------------


def test_R_6_advantage_applies_to_the_last_gasp_and_is_used_up(settings):
    outcome = recover(make(vit=-2, res=2, advantage=True), settings, dice("MC"), **COMBAT)
    assert outcome.rolls[0].rerolls == ("C",)
    assert outcome.after.vit == 0
    assert not outcome.after.advantage
    assert "R-6" in outcome.rules and "D-3" in outcome.rules


def test_R_6_advantage_is_used_up_even_when_the_roll_fails(settings):
    outcome = recover(make(vit=0, res=2, advantage=True), settings, dice("MH" + "M"), **COMBAT)
    assert outcome.rolls[0].final == ("M", "H")
    assert outcome.after.vit == 0
    assert not outcome.after.advantage
    assert [str(c) for c in outcome.changes] == ["Advantage yes → no"]


def test_R_6_advantage_on_a_critical_roll(settings):
    outcome = recover(make(vit=-1, res=3, advantage=True), settings, dice("MM" + "CC"), **COMBAT)
    assert outcome.after.vit == 1
    assert outcome.after.state is State.UP


def test_R_6_manual_faces_with_advantage_are_final(settings):
    sheet = make(vit=0, res=2, advantage=True)
    outcome = recover(sheet, settings, ScriptedRandom(), faces="c m", **COMBAT)
    assert outcome.rolls[0].manual
    assert outcome.after.vit == 1
    assert {"D-5", "R-6"} <= set(outcome.rules)


def test_R_6_no_the_last_gasp_is_never_rerolled():
    rng = dice("M")  # one die, no reroll: a second draw would run the script out
    outcome = recover(make(vit=-2, res=2, advantage=True), NO_GASP_ADVANTAGE, rng, **COMBAT)
    assert rng.remaining == 0
    assert outcome.rolls[0].rerolls == ()
    assert outcome.after.dead
    assert "D-3" not in outcome.rules


def test_R_6_no_advantage_waits_for_the_next_recovery_roll():
    sheet = make(vit=-2, res=2, advantage=True)
    gasp = recover(sheet, NO_GASP_ADVANTAGE, dice("C"), in_combat=False, by_gm=True)
    assert gasp.after.state is State.UNCONSCIOUS
    assert gasp.after.advantage
    assert "R-6" in gasp.rules
    assert "waits for the next recovery roll" in gasp.notes[0]
    # the next roll (Unconscious, 2 dice) has it: both Misses rerolled to Crits
    rng = dice("MM" + "CC")
    woke = recover(gasp.after, NO_GASP_ADVANTAGE, rng, in_combat=False, by_gm=True)
    assert rng.remaining == 0
    assert woke.rolls[0].final == ("C", "C")
    assert woke.after.vit == 2
    assert not woke.after.advantage


def test_R_6_no_advantage_still_applies_to_critical_and_unconscious_rolls():
    rng = dice("M" + "C")
    outcome = recover(make(vit=-1, res=2, advantage=True), NO_GASP_ADVANTAGE, rng, **COMBAT)
    assert outcome.rolls[0].final == ("C",)
    assert outcome.after.vit == 0
    assert not outcome.after.advantage


def test_R_6_no_without_advantage_says_nothing_of_advantage():
    outcome = recover(make(vit=-2, res=2), NO_GASP_ADVANTAGE, dice("C"), **COMBAT)
    assert not any("R-6" in note for note in outcome.notes)
    assert "R-6" not in outcome.rules


@pytest.mark.parametrize(
    ("advantage", "state", "setting", "applies"),
    [
        (True, State.UNCONSCIOUS, "yes", True),
        (True, State.CRITICAL, "no", True),
        (True, State.DYING, "yes", True),
        (True, State.DYING, "no", False),
        (False, State.DYING, "yes", False),
        (False, State.UNCONSCIOUS, "no", False),
    ],
)
def test_R_6_advantage_applies(advantage, state, setting, applies):
    settings = GuildSettings(last_gasp_advantage=setting)
    assert advantage_applies(advantage, state, settings) is applies


# --- R-7, R-8 -------------------------------------------------------------------------------


def test_R_7_nothing_but_the_result_is_stored(settings):
    before = make(vit=-1, res=3)
    outcome = recover(before, settings, dice("MH"), **COMBAT)
    changed = {k for k, v in outcome.after.model_dump().items() if before.model_dump()[k] != v}
    assert changed == {"recovered_this_round"}
    assert outcome.after.res == 3
    # the next roll has the same number of dice: nothing was spent
    assert outcome.after.recovery_dice == 2


def test_R_8_in_combat_one_recovery_per_round(settings):
    sheet = make(vit=0, res=2, recovered_this_round=True)
    with pytest.raises(RuleError, match="already made its recovery roll this round"):
        recover(sheet, settings, dice("CC"), in_combat=True, by_gm=True)


def test_R_8_outside_combat_only_the_gm(settings):
    sheet = make(vit=0, res=2)
    with pytest.raises(RuleError, match="only the GM"):
        recover(sheet, settings, dice("CC"), in_combat=False, by_gm=False)
    outcome = recover(sheet, settings, dice("CC"), in_combat=False, by_gm=True)
    assert outcome.after.vit == 2
    assert not outcome.after.recovered_this_round


def test_R_8_recover_marks_the_start_of_turn(settings):
    outcome = recover(make(vit=0, res=2, reactions_taken=3), settings, dice("MM"), **COMBAT)
    assert outcome.after.reactions_taken == 0
    assert "C-3" in outcome.rules and "S-5" in outcome.rules


def test_R_8_reaction_reset_per_round_is_not_touched_by_recover():
    settings = GuildSettings(reaction_reset="round")
    outcome = recover(make(vit=0, res=2, reactions_taken=3), settings, dice("MM"), **COMBAT)
    assert outcome.after.reactions_taken == 3
    assert "S-5" not in outcome.rules


# --- F: first aid -------------------------------------------------------------------------


def test_F_1_reported_success_gives_advantage(settings):
    outcome = first_aid(make(vit=0, res=2), settings, random.Random(1), success=True)
    assert outcome.after.advantage
    assert outcome.rules == ("F-1",)
    assert outcome.rolls == ()
    assert outcome.headline == "First aid works: Hero has advantage on its next recovery roll."


def test_F_1_reported_failure_changes_nothing(settings):
    outcome = first_aid(make(vit=-1, res=3), settings, random.Random(1), success=False)
    assert outcome.after == outcome.before
    assert outcome.headline == "The Medicine check fails: Hero gets no advantage."


def test_F_1_rolled_medicine_check_against_target(settings):
    ok = first_aid(make(vit=-1, res=3), settings, ScriptedRandom([7]), roll="1d10+2", target=9)
    assert ok.after.advantage
    assert ok.rolls[0].total == 9
    assert ok.rolls[0].success is True
    miss = first_aid(make(vit=-1, res=3), settings, ScriptedRandom([6]), roll="1d10+2", target=9)
    assert not miss.after.advantage
    assert miss.rolls[0].success is False


def test_F_1_advantage_does_not_stack(settings):
    outcome = first_aid(
        make(vit=0, res=2, advantage=True), settings, ScriptedRandom(), success=True
    )
    assert outcome.changes == []
    assert "already has advantage" in outcome.headline


def test_F_1_only_for_a_character_that_is_down(settings):
    with pytest.raises(RuleError, match="is Up") as caught:
        first_aid(make(), settings, ScriptedRandom(), success=True)
    assert caught.value.values == {"name": "Hero"}


def test_F_1_needs_exactly_one_way_of_reporting(settings):
    sheet = make(vit=0, res=2)
    with pytest.raises(RuleError, match="Give one of them: success"):
        first_aid(sheet, settings, ScriptedRandom())
    with pytest.raises(RuleError, match="not both"):
        first_aid(sheet, settings, ScriptedRandom(), success=True, roll="1d20")
    with pytest.raises(RuleError, match="target number"):
        first_aid(sheet, settings, ScriptedRandom(), roll="1d20")
    with pytest.raises(RuleError, match="needs a roll"):
        first_aid(sheet, settings, ScriptedRandom(), success=True, target=12)
    with pytest.raises(RuleError, match="dice expression"):
        first_aid(sheet, settings, ScriptedRandom(), roll="banana", target=12)
