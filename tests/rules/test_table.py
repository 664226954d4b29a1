"""Start of turn, rounds, combat membership and days: C-1..C-4, S-5, and U-2 for each."""

from __future__ import annotations

import pytest

from rules.errors import RuleError
from rules.models import GuildSettings, ReactionReset
from rules.stamina import react
from rules.table import early_actors, join_or_leave_combat, new_day, new_round, start_turn
from tests.rules.conftest import make

ROUND_RESET = GuildSettings(reaction_reset=ReactionReset.ROUND)


def test_C_1_new_round_clears_early_and_recovery_flags(settings):
    sheets = [
        make(name="A", early_this_round=True, recovered_this_round=True, reactions_taken=2),
        make(name="B"),
    ]
    outcomes = new_round(sheets, settings)
    assert [o.after.name for o in outcomes] == ["A", "B"]
    assert not outcomes[0].after.early_this_round
    assert not outcomes[0].after.recovered_this_round
    assert outcomes[0].after.reactions_taken == 2  # reaction_reset=turn: the turn resets it
    assert outcomes[0].rules == ("C-1", "S-4", "R-8")
    assert outcomes[0].headline == "A new round begins for A."
    assert outcomes[1].after == sheets[1]


def test_C_1_new_round_resets_reactions_when_reaction_reset_is_round():
    (outcome,) = new_round([make(reactions_taken=3)], ROUND_RESET)
    assert outcome.after.reactions_taken == 0
    assert "S-5" in outcome.rules


def test_C_1_the_round_lists_its_early_actors():
    sheets = [
        make(name="A", early_this_round=True),
        make(name="B"),
        make(name="C", early_this_round=True),
    ]
    assert early_actors(sheets) == ["A", "C"]


def test_C_2_one_character_outcome_per_sheet_in_the_round(settings):
    # the one-combat-per-character rule lives in persistence; here a round touches each sheet once
    sheets = [make(name="A"), make(name="B")]
    assert len(new_round(sheets, settings)) == 2


def test_C_3_start_of_turn_resets_the_reaction_cost(settings):
    outcome = start_turn(make(reactions_taken=3), settings, in_combat=True)
    assert outcome.after.reactions_taken == 0
    assert outcome.rules == ("C-3", "S-5")
    assert outcome.notes == ()
    assert outcome.headline == "Hero's turn begins: the next reaction costs 1."


def test_C_3_start_of_turn_with_round_reset_keeps_the_count():
    outcome = start_turn(make(reactions_taken=3), ROUND_RESET, in_combat=True)
    assert outcome.after.reactions_taken == 3
    assert outcome.rules == ("C-3",)
    assert outcome.headline == "Hero's turn begins: the next reaction costs 4."


@pytest.mark.parametrize(
    ("fields", "reminder"),
    [
        ({"vit": 0, "res": 2}, "Hero is Unconscious: a recovery roll is due"),
        ({"vit": -1, "res": 2}, "Hero is Critical: a recovery roll is due"),
        ({"vit": -2, "res": 2}, "Hero is Dying: the Last Gasp is due"),
    ],
)
def test_C_3_start_of_turn_reminds_a_downed_character(settings, fields, reminder):
    outcome = start_turn(make(**fields), settings, in_combat=True)
    assert outcome.headline.startswith(reminder)


def test_C_3_the_dead_take_no_turn(settings):
    with pytest.raises(RuleError, match="Dead"):
        start_turn(make(vit=-2, dead=True), settings, in_combat=True)


def test_C_4_new_day_clears_relief_and_the_daily_bonus():
    sheets = [make(name="A", relief_used_today=True, daily_bonus=True), make(name="B")]
    outcomes = new_day(sheets)
    assert not outcomes[0].after.relief_used_today
    assert not outcomes[0].after.daily_bonus
    assert outcomes[0].rules == ("C-4",)
    assert [str(c) for c in outcomes[0].changes] == [
        "Relief used today yes → no",
        "+3 daily bonus yes → no",
    ]
    assert outcomes[0].headline == "A new day begins for A."
    assert outcomes[1].after == sheets[1]


# --- S-5: a new fight starts the reaction count fresh ---------------------------------------


@pytest.mark.parametrize(("joins", "verb"), [(True, "joins"), (False, "leaves")])
def test_S_5_joining_or_leaving_a_combat_resets_the_count_and_round_flags(joins, verb):
    sheet = make(reactions_taken=3, early_this_round=True, recovered_this_round=True)
    outcome = join_or_leave_combat(sheet, joins=joins)
    assert outcome.after.reactions_taken == 0
    assert not outcome.after.early_this_round
    assert not outcome.after.recovered_this_round
    assert outcome.rules == ("C-2", "S-5")
    assert outcome.headline == f"Hero {verb} the combat."


def test_S_5_the_first_reaction_of_a_new_fight_costs_1():
    tired = make(con_base=12, stamina=12)
    for _ in range(3):
        tired = react(tired).after  # 1 + 2 + 3 in the old fight
    assert tired.reactions_taken == 3
    fresh = join_or_leave_combat(tired, joins=True).after
    outcome = react(fresh)
    assert fresh.stamina - outcome.after.stamina == 1


def test_S_5_the_end_of_a_combat_resets_every_member():
    members = [make(name="A", reactions_taken=2), make(name="B", early_this_round=True)]
    ended = [join_or_leave_combat(sheet, joins=False).after for sheet in members]
    assert [(s.reactions_taken, s.early_this_round) for s in ended] == [(0, False), (0, False)]


def test_S_5_leaving_resets_the_count_whatever_reaction_reset_says():
    # with reaction_reset=round the count would wait for the next /round; a new fight resets it
    left = join_or_leave_combat(make(reactions_taken=2, stamina=8), joins=False).after
    assert react(left).after.stamina == 7


# --- U-2: bookkeeping is logged but is not a change -----------------------------------------


def test_U_2_a_new_round_is_bookkeeping():
    sheet = make(early_this_round=True, recovered_this_round=True, reactions_taken=2)
    (outcome,) = new_round([sheet], ROUND_RESET)
    assert not outcome.is_change
    assert outcome.changes == []
    assert [str(c) for c in outcome.bookkeeping] == [
        "Next reaction costs 3 → 1",
        "Acts early this round yes → no",
        "Recovery roll made this round yes → no",
    ]


def test_U_2_a_start_of_turn_is_bookkeeping(settings):
    outcome = start_turn(make(reactions_taken=2), settings, in_combat=True)
    assert not outcome.is_change
    assert [str(c) for c in outcome.bookkeeping] == ["Next reaction costs 3 → 1"]


@pytest.mark.parametrize("joins", [True, False])
def test_U_2_joining_or_leaving_a_combat_is_bookkeeping(joins):
    outcome = join_or_leave_combat(make(reactions_taken=1, early_this_round=True), joins=joins)
    assert not outcome.is_change
    assert len(outcome.bookkeeping) == 2


def test_U_2_a_new_day_with_nothing_to_clear_is_not_a_change():
    (outcome,) = new_day([make(anger=2)])
    assert not outcome.is_change
    assert outcome.changes == []
    assert outcome.bookkeeping == []


@pytest.mark.parametrize("flag", ["relief_used_today", "daily_bonus"])
def test_U_2_a_new_day_that_clears_relief_or_the_bonus_is_a_change(flag):
    (outcome,) = new_day([make(**{flag: True})])
    assert outcome.is_change
    assert len(outcome.changes) == 1
