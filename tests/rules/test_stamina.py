"""Stamina: S-1..S-9, and V-5 for CON wounds."""

from __future__ import annotations

import pytest

from rules.dice import ScriptedRandom
from rules.errors import RuleError
from rules.models import RestKind
from rules.stamina import (
    act_early,
    push,
    react,
    recover_wound,
    rest,
    rest_all,
    rest_amount,
    spend,
    wound,
)
from tests.rules.conftest import make


@pytest.mark.parametrize(("con", "maximum"), [(12, 12), (10, 10), (8, 8), (6, 6)])
def test_S_1_max_stamina_is_the_con_die(con, maximum):
    assert make(con_base=con, stamina=0).max_stamina == maximum


# --- S-2, S-3: CON wounds -------------------------------------------------------------------


def test_S_2_wound_steps_down_and_drops_stamina_to_the_new_max():
    outcome = wound(make(con_base=12, stamina=12))
    assert outcome.after.con_die == 10
    assert outcome.after.stamina == 10
    assert [str(c) for c in outcome.changes] == [
        "Stamina 12/12 → 10/10",
        "CON d12 → d10",
        "CON wounds 0 → 1",
    ]
    assert set(outcome.rules) == {"S-1", "S-2"}
    assert outcome.headline == "Hero takes a CON wound (1 wound): CON d10, Stamina 10/10."


def test_S_2_wound_keeps_stamina_below_the_new_max():
    outcome = wound(make(con_base=8, stamina=3))
    assert outcome.after.stamina == 3
    assert outcome.after.max_stamina == 6


def test_S_2_a_wound_at_d6_is_recorded_and_lowers_nothing():
    outcome = wound(make(con_base=6, stamina=6))
    assert outcome.after.con_wounds == 1
    assert (outcome.after.con_die, outcome.after.stamina) == (6, 6)
    assert [str(c) for c in outcome.changes] == ["CON wounds 0 → 1"]
    assert outcome.is_change
    assert outcome.headline == (
        "Hero takes a CON wound (1 wound); its CON die is already d6, the smallest, so "
        "nothing else changes."
    )


def test_S_2_wounds_past_the_d6_floor_count_up_to_3():
    sheet = make(con_base=8, stamina=8)
    dice = []
    for _ in range(3):
        sheet = wound(sheet).after
        dice.append(sheet.con_die)
    assert dice == [6, 6, 6]
    assert sheet.con_wounds == 3
    assert "(3 wounds)" in wound(make(con_base=6, con_wounds=2, stamina=6)).headline


def test_S_2_a_fourth_wound_is_refused():
    with pytest.raises(RuleError, match="already carries 3 CON wounds") as caught:
        wound(make(con_base=12, con_wounds=3, stamina=6))
    assert caught.value.values == {"name": "Hero", "wounds": 3}


def test_S_3_recovering_a_wound_raises_the_max_not_stamina():
    outcome = recover_wound(make(con_base=12, con_wounds=2, stamina=5))
    assert outcome.after.con_die == 10
    assert outcome.after.stamina == 5
    assert outcome.after.max_stamina == 10
    assert set(outcome.rules) == {"S-1", "S-3"}
    assert outcome.headline == (
        "Hero recovers a CON wound (1 wound left): CON d10, Stamina can rise to 10 again."
    )


def test_S_3_wounds_below_the_floor_step_back_one_at_a_time():
    sheet = make(con_base=8, con_wounds=3, stamina=6)
    seen = []
    for _ in range(3):
        sheet = recover_wound(sheet).after
        seen.append((sheet.con_wounds, sheet.con_die))
    assert seen == [(2, 6), (1, 6), (0, 8)]
    assert sheet.stamina == 6


def test_S_3_twelve_with_three_wounds_steps_back_to_d8():
    outcome = recover_wound(make(con_base=12, con_wounds=3, stamina=6))
    assert outcome.after.con_die == 8


def test_S_3_never_above_the_base_die():
    with pytest.raises(RuleError, match="no CON wound") as caught:
        recover_wound(make(con_base=8))
    assert caught.value.values == {"name": "Hero", "die": 8}


@pytest.mark.parametrize("flag", ["dead", "retired"])
def test_V_5_no_con_wound_and_no_wound_recovery_for_the_dead_or_retired(flag):
    sheet = make(con_base=10, con_wounds=1, stamina=8, vit=1, **{flag: True})
    with pytest.raises(RuleError, match="a CON wound is not possible"):
        wound(sheet)
    with pytest.raises(RuleError, match="recovering a CON wound is not possible"):
        recover_wound(sheet)


def test_S_2_a_character_that_is_down_can_still_be_wounded():
    assert wound(make(vit=-1, res=3, con_base=10, stamina=10)).after.con_die == 8


# --- S-4, S-5: act early and reactions ------------------------------------------------------


def test_S_4_act_early_costs_one_once_per_round():
    outcome = act_early(make(stamina=3), in_combat=True)
    assert outcome.after.stamina == 2
    assert outcome.after.early_this_round
    assert outcome.rules == ("S-4",)
    assert outcome.headline == "Hero acts before the enemy this round, for 1 Stamina."
    with pytest.raises(RuleError, match="once per round"):
        act_early(outcome.after, in_combat=True)


def test_S_4_act_early_only_in_combat():
    with pytest.raises(RuleError, match="not in a combat") as caught:
        act_early(make(), in_combat=False)
    assert caught.value.values == {"name": "Hero"}


def test_S_4_no_stamina_acts_after_the_enemy():
    with pytest.raises(RuleError, match="0 Stamina"):
        act_early(make(stamina=0), in_combat=True)


def test_S_5_reaction_costs_rise_1_2_3_4():
    sheet = make(con_base=12, stamina=12)
    costs = []
    for _ in range(4):
        outcome = react(sheet, "parry")
        costs.append(sheet.stamina - outcome.after.stamina)
        sheet = outcome.after
    assert costs == [1, 2, 3, 4]
    assert sheet.stamina == 2
    assert sheet.reactions_taken == 4
    assert outcome.headline == ("Hero reacts (parry) for 4 Stamina; the next reaction costs 5.")


def test_S_5_a_reaction_without_a_description():
    assert react(make(), "  ").headline.startswith("Hero reacts for 1 Stamina")


def test_S_5_too_little_stamina_refuses_and_spends_nothing():
    sheet = make(stamina=2, reactions_taken=2)
    with pytest.raises(RuleError, match="Reaction 3 costs 3 Stamina but Hero has only 2/8") as e:
        react(sheet)
    assert sheet.stamina == 2
    assert e.value.values["name"] == "Hero"
    assert "nothing was spent" in str(e.value)


def test_S_5_E_6_a_reaction_in_breakdown_is_reminded_of_the_disadvantage():
    outcome = react(make(anger=4, breakdown="anger"))
    assert "E-6" in outcome.rules
    assert outcome.notes == (
        "In a Breakdown of Anger: Disadvantage on related actions and on all Reaction Rolls.",
    )


# --- S-6: push ------------------------------------------------------------------------------


def test_S_6_push_spends_n_for_plus_n():
    outcome = push(make(stamina=5), 3, ScriptedRandom(), what="the gate")
    assert outcome.after.stamina == 2
    assert outcome.rolls == ()
    assert outcome.rules == ("S-6",)
    assert outcome.headline == "Hero spends 3 Stamina: +3 on the Check."
    assert "whether the Check succeeds or not" in outcome.notes[0]


def test_S_6_push_rolled_adds_n_and_compares_with_the_target():
    rng = ScriptedRandom([4])
    outcome = push(make(stamina=5), 2, rng, roll="1d8", target=6, what="climb")
    roll = outcome.rolls[0]
    assert roll.dice == (4,)
    assert roll.value == 4
    assert roll.bonuses == (("push", 2),)
    assert roll.total == 6
    assert roll.success is True
    assert roll.label == "Check (climb)"
    assert outcome.headline == "Hero pushes for +2: the Check succeeds (6 against 6)."


def test_S_6_push_rolled_adds_the_injury_condition():
    injured = push(make(vit=5, stamina=5), 2, ScriptedRandom([4]), roll="1d8", target=6)
    assert injured.rolls[0].bonuses == (("push", 2), ("injury", -3))
    assert injured.rolls[0].total == 3
    assert injured.rolls[0].success is False
    assert "H-3" in injured.rules
    assert injured.headline == "Hero pushes for +2: the Check fails (3 against 6)."


def test_S_6_push_rolled_adds_the_daily_bonus():
    cheered = push(make(stamina=5, daily_bonus=True), 1, ScriptedRandom([4]), roll="1d8")
    assert cheered.rolls[0].bonuses == (("push", 1), ("daily bonus", 3))
    assert cheered.rolls[0].total == 4 + 1 + 3
    assert cheered.rolls[0].success is None
    assert cheered.headline == "Hero pushes for +1: the Check totals 8."


def test_S_6_E_4_the_daily_bonus_alone_cites_E_4_not_H_3():
    cheered = push(make(stamina=5, daily_bonus=True), 1, ScriptedRandom([4]), roll="1d8")
    assert "H-3" not in cheered.rules
    assert "E-4" in cheered.rules


def test_S_6_push_rolled_with_injury_and_daily_bonus():
    both = push(make(vit=3, stamina=5, daily_bonus=True), 1, ScriptedRandom([5]), roll="1d8")
    assert both.rolls[0].bonuses == (("push", 1), ("injury", -8), ("daily bonus", 3))
    assert both.rolls[0].total == 5 + 1 - 8 + 3


def test_S_6_stamina_is_lost_even_when_the_check_fails():
    outcome = push(make(stamina=5), 1, ScriptedRandom([1]), roll="1d8", target=8)
    assert outcome.rolls[0].success is False
    assert outcome.after.stamina == 4


def test_S_6_push_refusals_spend_nothing():
    with pytest.raises(RuleError, match="Pushing for \\+4 costs 4 Stamina"):
        push(make(stamina=3), 4, ScriptedRandom())
    with pytest.raises(RuleError, match="from 1 to 20"):
        push(make(), 0, ScriptedRandom())
    with pytest.raises(RuleError, match="from 1 to 20"):
        push(make(), True, ScriptedRandom())
    with pytest.raises(RuleError, match="needs a roll"):
        push(make(), 1, ScriptedRandom(), target=5)
    with pytest.raises(RuleError, match="dice expression"):
        push(make(), 1, ScriptedRandom(), roll="1d", target=5)


def test_S_6_push_in_breakdown_shows_its_effects():
    outcome = push(make(stamina=5, fear=4, breakdown="fear"), 1, ScriptedRandom())
    assert "E-6" in outcome.rules
    assert "Breakdown of Fear" in outcome.notes[-1]


# --- S-7, S-8 -------------------------------------------------------------------------------


def test_S_7_other_spending_with_a_reason():
    outcome = spend(make(stamina=5), 2, "Channel Casting")
    assert outcome.after.stamina == 3
    assert outcome.headline == "Hero spends 2 Stamina on Channel Casting."
    assert outcome.rules == ("S-7",)
    with pytest.raises(RuleError, match="Say what"):
        spend(make(), 1, "  ")
    with pytest.raises(RuleError, match="Spending Stamina costs 6 Stamina but Hero has only 5/8"):
        spend(make(stamina=5), 6, "Channel Casting")


def test_S_8_zero_stamina_refuses_every_spending():
    sheet = make(stamina=0)
    for attempt in (
        lambda: act_early(sheet, in_combat=True),
        lambda: react(sheet),
        lambda: push(sheet, 1, ScriptedRandom()),
        lambda: spend(sheet, 1, "resist cold"),
    ):
        with pytest.raises(RuleError, match="S-8"):
            attempt()


@pytest.mark.parametrize(("vit", "state"), [(0, "Unconscious"), (-1, "Critical"), (-2, "Dying")])
def test_S_4_to_S_7_a_character_that_is_down_cannot_spend(vit, state):
    """[interpretation] Down, a character takes no actions: nothing is spent."""
    sheet = make(vit=vit, res=2, stamina=8)
    for attempt in (
        lambda: act_early(sheet, in_combat=True),
        lambda: react(sheet),
        lambda: push(sheet, 1, ScriptedRandom()),
        lambda: spend(sheet, 1, "resist cold"),
    ):
        with pytest.raises(RuleError, match=f"{state} and cannot act or spend Stamina"):
            attempt()
    assert sheet.stamina == 8


def test_V_5_the_dead_cannot_spend():
    with pytest.raises(RuleError, match="Dead"):
        spend(make(vit=-3, dead=True), 1, "x")


# --- S-9: rest ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "maximum", "gained"),
    [
        (RestKind.SHORT, 12, 1),
        (RestKind.UNSAFE_LONG, 12, 4),
        (RestKind.UNSAFE_LONG, 10, 3),
        (RestKind.UNSAFE_LONG, 6, 2),
        (RestKind.SAFE_LONG, 12, 8),
        (RestKind.SAFE_LONG, 10, 6),
        (RestKind.SAFE_LONG, 8, 5),
        (RestKind.RESPITE, 8, 8),
        (RestKind.UNSAFE_LONG, 2, 1),
        (RestKind.SAFE_LONG, 1, 1),
    ],
)
def test_S_9_rest_amounts_round_down_minimum_one(kind, maximum, gained):
    assert rest_amount(kind, maximum) == gained


def test_S_9_rest_never_above_the_maximum():
    assert rest(make(stamina=7), RestKind.SAFE_LONG).after.stamina == 8
    assert rest(make(stamina=0), RestKind.UNSAFE_LONG).after.stamina == 2
    assert rest(make(stamina=0), "respite").after.stamina == 8
    assert rest(make(stamina=0), RestKind.SHORT).rules == ("S-9",)


def test_S_9_rest_headlines():
    assert rest(make(stamina=3), RestKind.SHORT).headline == (
        "Hero takes a short rest and gets back 1 Stamina."
    )
    full = rest(make(), RestKind.RESPITE)
    assert full.headline == "Hero takes a respite; its Stamina was already full."
    assert not full.is_change


def test_S_9_rest_everyone_skips_the_dead_and_retired():
    sheets = [make(name="A", stamina=0), make(name="B", vit=-3, dead=True, stamina=0)]
    outcomes = rest_all([*sheets, make(name="C", retired=True, stamina=1)], RestKind.RESPITE)
    assert [o.after.name for o in outcomes] == ["A"]
    assert outcomes[0].after.stamina == 8
    with pytest.raises(RuleError, match="Dead"):
        rest(sheets[1], RestKind.SHORT)
