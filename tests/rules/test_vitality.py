"""Vitality states, damage, healing, recovery rolls and first aid: V-*, H-*, R-*, F-1."""

from __future__ import annotations

import random

import pytest

from rules.dice import ScriptedRandom
from rules.models import CriticalBleed, DeathRule, GuildSettings, State
from rules.outcome import RuleError
from rules.vitality import damage, first_aid, heal, recover
from tests.rules.conftest import dice, make

COMBAT = {"in_combat": True, "by_gm": False}


# --- V: the states ------------------------------------------------------------------------


def test_V_1_positive_vit_is_up():
    assert make(vit=1).state is State.UP


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


def test_V_6_instant_death_rule_kills_below_zero():
    settings = GuildSettings(death_rule=DeathRule.INSTANT)
    outcome = damage(make(vit=2, res=5), 3, settings)
    assert outcome.after.dead
    assert outcome.after.state is State.DEAD
    assert outcome.rules[:4] == ("H-1", "V-6", "V-5", "V-7")


def test_V_6_instant_death_rule_still_lets_vit_zero_be_unconscious():
    settings = GuildSettings(death_rule=DeathRule.INSTANT)
    outcome = damage(make(vit=2, res=5), 2, settings)
    assert outcome.after.state is State.UNCONSCIOUS
    assert not outcome.after.dead


def test_V_6_thresholds_default_does_not_kill(settings):
    assert settings.death_rule is DeathRule.THRESHOLDS
    assert damage(make(vit=2, res=5), 3, settings).after.state is State.CRITICAL


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


# --- H: damage and healing ----------------------------------------------------------------


def test_H_1_damage_subtracts_with_no_floor(settings):
    outcome = damage(make(vit=5, res=20), 10_000, settings)
    assert outcome.after.vit == -9995
    assert outcome.rules[0] == "H-1"


@pytest.mark.parametrize("amount", [0, -1, 10_001, True, 2.5])
def test_H_1_damage_amount_is_1_to_10000(settings, amount):
    with pytest.raises(RuleError, match="1 to 10,000"):
        damage(make(), amount, settings)


def test_H_2_healing_up_adds_capped_at_max(settings):
    assert heal(make(vit=5), 3, settings).after.vit == 8
    assert heal(make(vit=5), 30, settings).after.vit == 10
    assert heal(make(vit=5), 3, settings).rules == ("H-2", "H-3")


def test_H_2_healing_unconscious_sets_vit_to_n_and_wakes(settings):
    outcome = heal(make(vit=0, res=2), 4, settings)
    assert outcome.after.vit == 4
    assert outcome.after.state is State.UP
    assert heal(make(vit=0, res=2), 40, settings).after.vit == 10


def test_H_2_healing_critical_first_point_stabilises(settings):
    one = heal(make(vit=-1, res=3), 1, settings)
    assert one.after.vit == 0
    assert one.after.state is State.UNCONSCIOUS
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


@pytest.mark.parametrize("amount", [0, 10_001])
def test_H_2_healing_amount_is_1_to_10000(settings, amount):
    with pytest.raises(RuleError, match="Healing"):
        heal(make(), amount, settings)


def test_H_2_healing_the_dead_is_refused(settings):
    with pytest.raises(RuleError, match="Dead: healing is not possible"):
        heal(make(vit=-3, dead=True), 5, settings)


def test_H_3_injury_condition_note_after_a_change_of_vit(settings):
    outcome = damage(make(vit=10), 3, settings)  # 30% lost
    assert "H-3" in outcome.rules
    assert "Injury condition (H-3): -3 on Action Rolls, -1 on Reaction Rolls." in outcome.notes
    outcome = damage(make(vit=10), 7, settings)  # 70% lost
    assert "Injury condition (H-3): -8 on Action Rolls, -2 on Reaction Rolls." in outcome.notes


def test_H_3_no_note_while_uninjured(settings):
    outcome = damage(make(vit=10), 2, settings)
    assert "H-3" in outcome.rules
    assert not outcome.notes


def test_H_3_healing_out_of_injury_says_so(settings):
    outcome = heal(make(vit=5), 5, settings)
    assert "Injury condition (H-3): no injury condition." in outcome.notes


def test_H_4_waking_by_healing_clears_unused_advantage(settings):
    outcome = heal(make(vit=0, res=2, advantage=True), 2, settings)
    assert not outcome.after.advantage
    assert "H-4" in outcome.rules


def test_H_4_stabilising_without_waking_keeps_advantage(settings):
    outcome = heal(make(vit=-1, res=3, advantage=True), 1, settings)
    assert outcome.after.advantage
    assert "H-4" not in outcome.rules


# --- R: recovery rolls --------------------------------------------------------------------


def test_R_1_unconscious_rolls_res_dice(settings):
    rng = dice("MMH")
    outcome = recover(make(vit=0, res=3), settings, rng, **COMBAT)
    assert outcome.rolls[0].faces == ("M", "M", "H")
    assert outcome.rolls[0].label == "Unconscious recovery roll"
    assert rng.remaining == 0
    assert "R-1" in outcome.rules


def test_R_2_unconscious_without_crit_changes_nothing_but_the_round_flag(settings):
    outcome = recover(make(vit=0, res=2), settings, dice("HM"), **COMBAT)
    assert outcome.after.vit == 0
    assert outcome.after.state is State.UNCONSCIOUS
    assert outcome.changes == []
    assert outcome.after.recovered_this_round


def test_R_2_each_crit_wakes_one_more_vit(settings):
    outcome = recover(make(vit=0, res=3), settings, dice("CCH"), **COMBAT)
    assert outcome.after.vit == 2
    assert outcome.rules[:6] == ("D-1", "D-2", "D-4", "R-1", "R-2", "C-3")
    assert "V-1" in outcome.rules


def test_R_2_wake_is_capped_at_max_vit(settings):
    outcome = recover(make(max_vit=2, vit=0, res=4), settings, dice("CCCC"), **COMBAT)
    assert outcome.after.vit == 2


def test_R_3_critical_rolls_res_plus_vit_dice_one_crit_stabilises(settings):
    rng = dice("MCH")
    outcome = recover(make(vit=-2, res=5), settings, rng, **COMBAT)
    assert len(outcome.rolls[0].faces) == 3
    assert outcome.after.vit == 0
    assert outcome.after.state is State.UNCONSCIOUS
    assert "R-3" in outcome.rules


def test_R_3_each_further_crit_restores_one_vit(settings):
    outcome = recover(make(vit=-1, res=4), settings, dice("CCC"), **COMBAT)
    assert outcome.after.vit == 2
    assert outcome.after.state is State.UP
    capped = recover(make(max_vit=1, vit=-1, res=4), settings, dice("CCC"), **COMBAT)
    assert capped.after.vit == 1


def test_R_4_all_miss_costs_one_vit(settings):
    outcome = recover(make(vit=-1, res=3), settings, dice("MM"), **COMBAT)
    assert outcome.after.vit == -2
    assert "R-4" in outcome.rules
    assert "No Crit: Hero loses 1 VIT (R-4)." in outcome.notes


def test_R_4_all_miss_spares_a_roll_with_a_hit(settings):
    outcome = recover(make(vit=-1, res=3), settings, dice("MH"), **COMBAT)
    assert outcome.after.vit == -1
    assert "R-4" in outcome.rules


def test_R_4_no_crit_setting_bleeds_on_hits_too():
    settings = GuildSettings(critical_bleed=CriticalBleed.NO_CRIT)
    outcome = recover(make(vit=-1, res=3), settings, dice("HH"), **COMBAT)
    assert outcome.after.vit == -2


def test_R_4_never_setting_does_not_bleed():
    settings = GuildSettings(critical_bleed=CriticalBleed.NEVER)
    outcome = recover(make(vit=-1, res=3), settings, dice("MM"), **COMBAT)
    assert outcome.after.vit == -1


def test_R_4_bleeding_can_make_dying(settings):
    outcome = recover(make(vit=-1, res=2), settings, dice("M"), **COMBAT)
    assert outcome.after.vit == -2
    assert outcome.after.state is State.DYING
    assert outcome.rules[-3:] == ("V-4", "V-7", "H-3")


def test_R_5_last_gasp_crit_stabilises_at_zero(settings):
    outcome = recover(make(vit=-3, res=2), settings, dice("C"), **COMBAT)
    assert outcome.rolls[0].label == "Last Gasp"
    assert outcome.rolls[0].faces == ("C",)
    assert outcome.after.vit == 0
    assert outcome.after.state is State.UNCONSCIOUS
    assert outcome.public


@pytest.mark.parametrize("face", ["M", "H"])
def test_R_5_last_gasp_anything_else_is_death(settings, face):
    outcome = recover(make(vit=-3, res=2), settings, dice(face), **COMBAT)
    assert outcome.after.state is State.DEAD
    assert outcome.after.vit == -3
    assert outcome.public
    assert "R-5" in outcome.rules
    assert "V-5" in outcome.rules


def test_R_5_last_gasp_with_res_zero_stays_dying_at_zero(settings):
    outcome = recover(make(vit=0, res=0), settings, dice("C"), **COMBAT)
    assert outcome.after.vit == 0
    assert outcome.after.state is State.DYING


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


def test_R_1_a_character_that_is_up_cannot_roll(settings):
    with pytest.raises(RuleError, match="is Up"):
        recover(make(), settings, dice("C"), **COMBAT)


def test_R_1_manual_faces_wrong_count_refused(settings):
    with pytest.raises(RuleError, match="exactly 2 letters"):
        recover(make(vit=0, res=2), settings, ScriptedRandom(), faces="C", **COMBAT)


def test_R_2_waking_with_stress_at_vit_retires(settings):
    outcome = recover(make(vit=0, res=2, stress=1), settings, dice("CH"), **COMBAT)
    assert outcome.after.state is State.RETIRED
    assert "E-7" in outcome.rules


# --- F: first aid -------------------------------------------------------------------------


def test_F_1_reported_success_gives_advantage(settings):
    outcome = first_aid(make(vit=0, res=2), settings, random.Random(1), success=True)
    assert outcome.after.advantage
    assert outcome.rules == ("F-1",)
    assert outcome.rolls == ()


def test_F_1_reported_failure_changes_nothing(settings):
    outcome = first_aid(make(vit=-1, res=3), settings, random.Random(1), success=False)
    assert outcome.after == outcome.before
    assert "fails" in outcome.notes[0]


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
    assert "already has advantage" in outcome.notes[0]


def test_F_1_only_for_a_character_that_is_down(settings):
    with pytest.raises(RuleError, match="is Up"):
        first_aid(make(), settings, ScriptedRandom(), success=True)


def test_F_1_needs_exactly_one_way_of_reporting(settings):
    sheet = make(vit=0, res=2)
    with pytest.raises(RuleError, match="not both"):
        first_aid(sheet, settings, ScriptedRandom())
    with pytest.raises(RuleError, match="not both"):
        first_aid(sheet, settings, ScriptedRandom(), success=True, roll="1d20")
    with pytest.raises(RuleError, match="target number"):
        first_aid(sheet, settings, ScriptedRandom(), roll="1d20")
    with pytest.raises(RuleError, match="needs a roll"):
        first_aid(sheet, settings, ScriptedRandom(), success=True, target=12)
    with pytest.raises(RuleError, match="dice expression"):
        first_aid(sheet, settings, ScriptedRandom(), roll="banana", target=12)


def test_V_1_a_character_that_is_up_has_no_recovery_dice():
    assert make(vit=3, res=4).recovery_dice == 0
    assert make(vit=-9, res=2, dead=True).recovery_dice == 0
