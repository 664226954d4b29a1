"""Start of turn, rounds and days: C-1..C-4 (the combat tables themselves are persistence)."""

from __future__ import annotations

import pytest

from rules.models import GuildSettings, ReactionReset
from rules.outcome import RuleError
from rules.table import early_actors, new_day, new_round, start_turn
from tests.rules.conftest import make


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
    assert outcomes[1].after == sheets[1]


def test_C_1_new_round_resets_reactions_when_reaction_reset_is_round():
    settings = GuildSettings(reaction_reset=ReactionReset.ROUND)
    (outcome,) = new_round([make(reactions_taken=3)], settings)
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
    outcome = start_turn(make(reactions_taken=3), settings)
    assert outcome.after.reactions_taken == 0
    assert outcome.rules == ("C-3", "S-5")
    assert outcome.notes == ()


def test_C_3_start_of_turn_with_round_reset_keeps_the_count():
    settings = GuildSettings(reaction_reset="round")
    outcome = start_turn(make(reactions_taken=3), settings)
    assert outcome.after.reactions_taken == 3
    assert outcome.rules == ("C-3",)


@pytest.mark.parametrize(
    ("fields", "reminder"),
    [
        ({"vit": 0, "res": 2}, "Hero is Unconscious (R-1): a recovery roll is due"),
        ({"vit": -1, "res": 2}, "Hero is Critical (R-3): a recovery roll is due"),
        ({"vit": -2, "res": 2}, "Hero is Dying (R-5): the Last Gasp is due"),
    ],
)
def test_C_3_start_of_turn_reminds_a_downed_character(settings, fields, reminder):
    outcome = start_turn(make(**fields), settings)
    assert outcome.notes[0].startswith(reminder)


def test_C_3_the_dead_take_no_turn(settings):
    with pytest.raises(RuleError, match="Dead"):
        start_turn(make(vit=-2, dead=True), settings)


def test_C_4_new_day_clears_relief_and_the_daily_bonus():
    sheets = [make(name="A", relief_used_today=True, daily_bonus=True), make(name="B")]
    outcomes = new_day(sheets)
    assert not outcomes[0].after.relief_used_today
    assert not outcomes[0].after.daily_bonus
    assert outcomes[0].rules == ("C-4",)
    assert [str(c) for c in outcomes[0].changes] == ["+3 daily bonus yes → no"]
    assert outcomes[1].after == sheets[1]
