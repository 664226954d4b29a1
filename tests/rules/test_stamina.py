"""Stamina: S-1..S-9."""

from __future__ import annotations

import pytest

from rules.dice import ScriptedRandom
from rules.models import RestKind
from rules.outcome import RuleError
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


def test_S_2_wound_steps_down_and_drops_stamina_to_the_new_max():
    outcome = wound(make(con_base=12, stamina=12))
    assert outcome.after.con_die == 10
    assert outcome.after.stamina == 10
    assert [str(c) for c in outcome.changes] == ["Stamina 12/12 → 10/10", "CON d12 → d10"]
    assert outcome.rules == ("S-1", "S-2")


def test_S_2_wound_keeps_stamina_below_the_new_max():
    outcome = wound(make(con_base=8, stamina=3))
    assert outcome.after.stamina == 3
    assert outcome.after.max_stamina == 6


def test_S_2_d6_is_the_floor():
    with pytest.raises(RuleError, match="already d6"):
        wound(make(con_base=6, stamina=6))
    with pytest.raises(RuleError, match="already d6"):
        wound(make(con_base=8, con_wounds=1, stamina=6))


def test_S_3_recovering_a_wound_raises_the_max_not_stamina():
    outcome = recover_wound(make(con_base=12, con_wounds=2, stamina=5))
    assert outcome.after.con_die == 10
    assert outcome.after.stamina == 5
    assert outcome.after.max_stamina == 10
    assert outcome.rules == ("S-1", "S-3")


def test_S_3_never_above_the_base_die():
    with pytest.raises(RuleError, match="no CON wound"):
        recover_wound(make(con_base=8))


def test_S_4_act_early_costs_one_once_per_round():
    outcome = act_early(make(stamina=3), in_combat=True)
    assert outcome.after.stamina == 2
    assert outcome.after.early_this_round
    assert outcome.rules == ("S-4",)
    with pytest.raises(RuleError, match="once per round"):
        act_early(outcome.after, in_combat=True)


def test_S_4_act_early_only_in_combat():
    with pytest.raises(RuleError, match="not in a combat"):
        act_early(make(), in_combat=False)


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
    assert outcome.notes == ("Reaction 4 for 4 Stamina: parry. The next one costs 5.",)


def test_S_5_too_little_stamina_refuses_and_spends_nothing():
    sheet = make(stamina=2, reactions_taken=2)
    with pytest.raises(RuleError, match="Reaction 3 costs 3 Stamina but Hero has only 2/8"):
        react(sheet)
    assert sheet.stamina == 2


def test_S_6_push_spends_n_for_plus_n():
    outcome = push(make(stamina=5), 3, ScriptedRandom(), what="the gate")
    assert outcome.after.stamina == 2
    assert outcome.rolls == ()
    assert outcome.rules == ("S-6",)


def test_S_6_push_rolled_adds_n_and_compares_with_the_target():
    rng = ScriptedRandom([4])
    outcome = push(make(stamina=5), 2, rng, roll="1d8", target=6, what="climb")
    roll = outcome.rolls[0]
    assert roll.dice == (4,)
    assert roll.modifier == 2
    assert roll.total == 6
    assert roll.success is True
    assert roll.label == "Check: climb"


def test_S_6_push_rolled_adds_the_injury_condition_and_daily_bonus():
    injured = push(make(vit=5, stamina=5), 2, ScriptedRandom([4]), roll="1d8", target=6)
    assert injured.rolls[0].modifier == 2 - 3
    assert injured.rolls[0].total == 3
    assert injured.rolls[0].success is False
    assert "H-3" in injured.rules
    cheered = push(make(stamina=5, daily_bonus=True), 1, ScriptedRandom([4]), roll="1d8")
    assert cheered.rolls[0].total == 4 + 1 + 3
    assert cheered.rolls[0].success is None


def test_S_6_stamina_is_lost_even_when_the_check_fails():
    outcome = push(make(stamina=5), 1, ScriptedRandom([1]), roll="1d8", target=8)
    assert outcome.rolls[0].success is False
    assert outcome.after.stamina == 4


def test_S_6_push_refusals_spend_nothing():
    with pytest.raises(RuleError, match="Pushing for \\+4 costs 4 Stamina"):
        push(make(stamina=3), 4, ScriptedRandom())
    with pytest.raises(RuleError, match="from 1 to 20"):
        push(make(), 0, ScriptedRandom())
    with pytest.raises(RuleError, match="needs a roll"):
        push(make(), 1, ScriptedRandom(), target=5)
    with pytest.raises(RuleError, match="dice expression"):
        push(make(), 1, ScriptedRandom(), roll="1d", target=5)


def test_S_6_push_in_breakdown_shows_its_effects():
    outcome = push(make(stamina=5, fear=4, breakdown="fear"), 1, ScriptedRandom())
    assert "E-6" in outcome.rules
    assert "Breakdown of Fear" in outcome.notes[-1]


def test_S_7_other_spending_with_a_reason():
    outcome = spend(make(stamina=5), 2, "Channel Casting")
    assert outcome.after.stamina == 3
    assert outcome.notes == ("2 Stamina: Channel Casting.",)
    assert outcome.rules == ("S-7",)
    with pytest.raises(RuleError, match="Say what"):
        spend(make(), 1, "  ")
    with pytest.raises(RuleError, match="Channel Casting costs 6"):
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


def test_S_8_dead_cannot_spend():
    with pytest.raises(RuleError, match="Dead"):
        spend(make(vit=-3, dead=True), 1, "x")


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


def test_S_9_rest_everyone_skips_the_dead_and_retired():
    sheets = [make(name="A", stamina=0), make(name="B", vit=-3, dead=True, stamina=0)]
    outcomes = rest_all([*sheets, make(name="C", retired=True, stamina=1)], RestKind.RESPITE)
    assert [o.after.name for o in outcomes] == ["A"]
    assert outcomes[0].after.stamina == 8
    with pytest.raises(RuleError, match="Dead"):
        rest(sheets[1], RestKind.SHORT)
