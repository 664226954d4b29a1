"""Creating, editing, setting and reviving a sheet (section 1, V-5, E-7, S-2)."""

from __future__ import annotations

import pytest

from rules.models import Emotion, GuildSettings, State
from rules.outcome import RuleError
from rules.sheet_ops import create_sheet, edit_sheet, revive, set_fields
from tests.rules.conftest import make


def test_create_uses_the_defaults_of_section_1(settings):
    sheet = create_sheet("  Roryn ", 7, settings)
    assert sheet.name == "Roryn"
    assert (sheet.max_vit, sheet.vit, sheet.res, sheet.con_base) == (10, 10, 2, 8)
    assert (sheet.stamina, sheet.threshold, sheet.stress) == (8, 4, 0)
    assert sheet.state is State.UP


def test_create_starts_full_and_takes_the_guild_threshold():
    settings = GuildSettings(emotion_threshold=6)
    sheet = create_sheet("Taomkin", 7, settings, max_vit=14, res=3, con_base=12, humility=None)
    assert (sheet.vit, sheet.stamina, sheet.threshold, sheet.humility) == (14, 12, 6, 0)
    assert create_sheet("T", 7, settings, threshold=2).threshold == 2


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"max_vit": 0}, "Max VIT"),
        ({"res": 21}, "RES"),
        ({"con_base": 7}, "The CON die"),
        ({"humility": -11}, "Humility"),
        ({"vit": 3}, "vit cannot be changed here"),
    ],
)
def test_create_refuses_out_of_range_fields(settings, fields, message):
    with pytest.raises(RuleError, match=message):
        create_sheet("X", 1, settings, **fields)


def test_create_refuses_a_bad_name(settings):
    with pytest.raises(RuleError, match="The name: a name has at most 32 characters"):
        create_sheet("x" * 33, 1, settings)
    with pytest.raises(RuleError, match="one line"):
        create_sheet("a\nb", 1, settings)


def test_edit_clamps_vit_stamina_and_stacks_to_new_maxima():
    sheet = make(vit=9, con_base=12, stamina=11, anger=2, threshold=4)
    outcome = edit_sheet(sheet, max_vit=6, con_base=8, threshold=3)
    after = outcome.after
    assert (after.max_vit, after.vit, after.stamina, after.anger) == (6, 6, 8, 2)
    assert outcome.rules == ("H-3",)


def test_edit_a_stack_clamped_to_the_threshold_begins_a_breakdown():
    outcome = edit_sheet(make(fear=3), threshold=2)
    assert outcome.after.fear == 2
    assert outcome.after.breakdown is Emotion.FEAR
    assert outcome.rules == ("E-1",)


def test_edit_keeps_a_breakdown_and_clamps_wounds_to_the_base_die():
    sheet = make(con_base=12, con_wounds=3, stamina=6, anger=4, breakdown="anger")
    outcome = edit_sheet(sheet, con_base=8, name="Renamed")
    assert outcome.after.con_wounds == 1
    assert outcome.after.con_die == 6
    assert outcome.after.breakdown is Emotion.ANGER
    assert outcome.after.name == "Renamed"


def test_edit_lowering_max_vit_to_the_stress_retires():
    outcome = edit_sheet(make(vit=10, stress=4), max_vit=4)
    assert outcome.after.state is State.RETIRED


def test_edit_refuses_state_fields_and_nothing():
    with pytest.raises(RuleError, match="stress cannot be changed here"):
        edit_sheet(make(), stress=2)
    with pytest.raises(RuleError, match="Nothing to change"):
        edit_sheet(make(), name=None)
    with pytest.raises(RuleError, match="Max VIT"):
        edit_sheet(make(), max_vit=1000)


def test_set_state_fields_within_range():
    outcome = set_fields(make(), vit=-1, stamina=3, anger=2, stress=0)
    assert (outcome.after.vit, outcome.after.stamina, outcome.after.anger) == (-1, 3, 2)
    assert outcome.after.state is State.CRITICAL
    assert "V-3" in outcome.rules


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"vit": 11}, "VIT 11 is above max VIT 10"),
        ({"stamina": 9}, "Stamina 9 is above its maximum 8"),
        ({"anger": 5}, "Anger 5 is above the threshold 4"),
        ({"stress": -1}, "Stress"),
        ({"con_wounds": 2}, "at most 1 wounds"),
        ({"res": 2}, "res cannot be changed here"),
        ({}, "Nothing to set"),
    ],
)
def test_set_refuses_out_of_range(fields, message):
    with pytest.raises(RuleError, match=message):
        set_fields(make(con_base=8), **fields)


def test_set_wounds_drop_stamina_and_a_full_stack_begins_breakdown():
    outcome = set_fields(make(con_base=12, stamina=12), con_wounds=2, guilt=4)
    assert outcome.after.stamina == 8
    assert outcome.after.breakdown is Emotion.GUILT
    both = set_fields(make(con_base=12, stamina=12), con_wounds=1, stamina=4)
    assert both.after.stamina == 4


def test_set_stress_to_vit_retires():
    outcome = set_fields(make(vit=3), stress=3)
    assert outcome.after.state is State.RETIRED
    assert "E-7" in outcome.rules


def test_revive_the_dead_comes_back_up_at_vit_1():
    outcome = revive(make(vit=-4, res=2, dead=True, advantage=True, stress=2))
    assert outcome.after.vit == 1
    assert outcome.after.state is State.UP
    assert not outcome.after.advantage
    assert outcome.rules[0] == "V-5"


def test_revive_the_retired_keeps_a_positive_vit():
    outcome = revive(make(vit=4, stress=6, retired=True))
    assert outcome.after.vit == 4
    assert outcome.after.state is State.UP
    assert outcome.rules == ("E-7", "V-1", "V-7")


def test_revive_refuses_the_living():
    with pytest.raises(RuleError, match="nothing to revive"):
        revive(make(vit=0))


def test_create_refuses_an_empty_name(settings):
    with pytest.raises(RuleError, match="at least one character"):
        create_sheet("   ", 1, settings)


def test_create_and_edit_accept_the_con_die_written_d10(settings):
    sheet = create_sheet("X", 1, settings, con_base="d10")
    assert (sheet.con_base, sheet.stamina) == (10, 10)
    assert edit_sheet(sheet, con_base="D6").after.con_die == 6
