"""Creating, editing, setting and reviving a sheet: section 1, P-4, P-5, V-5, V-6, E-7, S-2."""

from __future__ import annotations

import pytest

from rules.errors import RuleError
from rules.models import Emotion, GuildSettings, State
from rules.sheet_ops import create_sheet, edit_sheet, revive, set_fields
from tests.rules.conftest import INSTANT, make

GM = {"by_gm": True, "in_combat": False}
OWNER = {"by_gm": False, "in_combat": False}
OWNER_IN_COMBAT = {"by_gm": False, "in_combat": True}


# --- creation -------------------------------------------------------------------------------


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


def test_create_refuses_a_bad_name_saying_what_to_type_instead(settings):
    """Section 1: a name's refusal names the problem and never says "Enter a value in range"."""
    with pytest.raises(RuleError, match=r"^A name has at most 32 characters") as caught:
        create_sheet("x" * 33, 1, settings)
    assert "in range" not in str(caught.value)
    with pytest.raises(RuleError, match="U\\+000A, a line break, which does not show: type"):
        create_sheet("a\nb", 1, settings)


def test_create_refuses_an_empty_name(settings):
    with pytest.raises(RuleError, match="at least one character"):
        create_sheet("   ", 1, settings)


def test_create_and_edit_accept_the_con_die_written_d10(settings):
    sheet = create_sheet("X", 1, settings, con_base="d10")
    assert (sheet.con_base, sheet.stamina) == (10, 10)
    assert edit_sheet(sheet, con_base="D6", **OWNER).after.con_die == 6


# --- editing (P-4, P-5) ---------------------------------------------------------------------


def test_P_5_edit_clamps_vit_stamina_and_stacks_to_new_maxima():
    sheet = make(vit=9, con_base=12, stamina=11, anger=2, threshold=4)
    outcome = edit_sheet(sheet, max_vit=6, con_base=8, threshold=3, **OWNER)
    after = outcome.after
    assert (after.max_vit, after.vit, after.stamina, after.anger) == (6, 6, 8, 2)
    assert {"P-5", "H-3"} <= set(outcome.rules)
    assert outcome.headline == "Hero's sheet is edited."


def test_E_1_edit_a_stack_clamped_to_the_threshold_begins_a_breakdown():
    outcome = edit_sheet(make(fear=3), threshold=2, **OWNER)
    assert outcome.after.fear == 2
    assert outcome.after.breakdown is Emotion.FEAR
    assert {"E-1", "E-6"} <= set(outcome.rules)
    assert outcome.notes[1].startswith("In a Breakdown of Fear: Disadvantage")
    assert outcome.notes[0] == "Fear is at the threshold (2): a Breakdown begins."


def test_S_2_editing_the_base_die_keeps_the_wounds_and_a_breakdown():
    """S-2: wounds are kept up to 3 even where the die can step no lower (they used to be
    clamped to what the new base die could take)."""
    sheet = make(con_base=12, con_wounds=3, stamina=6, anger=4, breakdown="anger")
    outcome = edit_sheet(sheet, con_base=8, name="Renamed", **GM)
    assert outcome.after.con_wounds == 3
    assert outcome.after.con_die == 6
    assert outcome.after.breakdown is Emotion.ANGER
    assert outcome.after.name == "Renamed"


def test_E_7_edit_lowering_max_vit_to_the_stress_retires():
    outcome = edit_sheet(make(vit=10, stress=4), max_vit=4, **OWNER)
    assert outcome.after.state is State.RETIRED
    assert outcome.headline.startswith("Hero must retire")


def test_P_4_edit_refuses_state_fields_and_nothing():
    with pytest.raises(RuleError, match="stress cannot be changed here"):
        edit_sheet(make(), stress=2, **GM)
    with pytest.raises(RuleError, match="Nothing to change"):
        edit_sheet(make(), name=None, **GM)
    with pytest.raises(RuleError, match="Max VIT"):
        edit_sheet(make(), max_vit=1000, **GM)


def test_P_4_a_rename_is_told_with_both_names():
    outcome = edit_sheet(make(name="Roryn"), name="Taomkin", **OWNER)
    assert outcome.headline == "Roryn is renamed Taomkin."
    assert [str(c) for c in outcome.changes] == ["Name Roryn → Taomkin"]
    assert outcome.rules == ("P-4",)


def test_P_4_an_edit_to_the_same_values_says_nothing_changes():
    outcome = edit_sheet(make(humility=2), humility=2, **OWNER)
    assert outcome.headline == "Nothing changes: Hero already has those values."
    assert not outcome.is_change


def test_P_5_the_owner_edits_rule_fields_while_up_out_of_combat():
    outcome = edit_sheet(make(), max_vit=12, res=3, con_base=10, threshold=5, **OWNER)
    after = outcome.after
    assert (after.max_vit, after.res, after.con_base, after.threshold) == (12, 3, 10, 5)
    assert (after.vit, after.stamina) == (10, 8)  # raised maxima do not fill VIT or Stamina
    assert outcome.rules == ("P-5",)


@pytest.mark.parametrize(
    ("sheet", "context", "why"),
    [
        (make(vit=0, res=2), OWNER, "it is Unconscious"),
        (make(vit=-1, res=2), OWNER, "it is Critical"),
        (make(vit=-2, res=2), OWNER, "it is Dying"),
        (make(vit=-2, res=2, dead=True), OWNER, "it is Dead"),
        (make(fear=4, breakdown="fear"), OWNER, "it is in a Breakdown"),
        (make(), OWNER_IN_COMBAT, "it is in a combat"),
    ],
)
@pytest.mark.parametrize(
    ("field", "value", "label"),
    [
        ("max_vit", 12, "max VIT"),
        ("res", 3, "RES"),
        ("con_base", 10, "base CON die"),
        ("threshold", 5, "emotion threshold"),
    ],
)
def test_P_5_the_owner_may_not_edit_a_rule_field_otherwise(
    sheet, context, why, field, value, label
):
    with pytest.raises(RuleError) as caught:
        edit_sheet(sheet, **{field: value}, **context)
    message = str(caught.value)
    assert message.startswith(f"Hero's {label} can change only while it is Up")
    assert message.endswith(f"(P-5): {why}. Nothing was changed.")
    assert caught.value.values == {"name": "Hero"}


def test_P_5_the_refusal_names_every_rule_field_given():
    with pytest.raises(RuleError, match="Hero's max VIT and RES can change only"):
        edit_sheet(make(), max_vit=12, res=3, **OWNER_IN_COMBAT)


@pytest.mark.parametrize(
    ("sheet", "context"),
    [
        (make(vit=-1, res=2), {"by_gm": True, "in_combat": False}),
        (make(fear=4, breakdown="fear"), {"by_gm": True, "in_combat": False}),
        (make(), {"by_gm": True, "in_combat": True}),
    ],
)
def test_P_5_the_gm_edits_rule_fields_at_any_time(sheet, context):
    outcome = edit_sheet(sheet, res=5, **context)
    assert outcome.after.res == 5
    assert "P-5" in outcome.rules


def test_P_5_the_owner_still_edits_the_name_and_abilities_while_down_or_in_combat():
    down = edit_sheet(make(vit=-1, res=2), name="Roryn", humility=3, **OWNER_IN_COMBAT)
    assert (down.after.name, down.after.humility) == ("Roryn", 3)
    assert down.rules == ("P-4",)


def test_P_5_giving_a_rule_field_its_current_value_is_no_edit_of_it():
    outcome = edit_sheet(make(vit=-1, res=2), res=2, con_base="d8", name="R", **OWNER_IN_COMBAT)
    assert outcome.after.name == "R"
    assert outcome.rules == ("P-4",)


# --- setting (P-3, V-6) ---------------------------------------------------------------------


def test_P_3_set_state_fields_within_range(settings):
    outcome = set_fields(make(), settings, vit=-1, stamina=3, anger=2, stress=0)
    assert (outcome.after.vit, outcome.after.stamina, outcome.after.anger) == (-1, 3, 2)
    assert outcome.after.state is State.CRITICAL
    assert "V-3" in outcome.rules
    assert outcome.headline == "The GM sets VIT, Stamina, Anger, Stress for Hero."


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"vit": 11}, "VIT 11 is above max VIT 10"),
        ({"vit": -10_001}, "VIT: Input should be greater than or equal to -10000"),
        ({"stamina": 9}, "Stamina 9 is above its maximum 8"),
        ({"anger": 5}, "Anger 5 is above the threshold 4"),
        ({"stress": -1}, "Stress"),
        ({"stress": 10_001}, "Stress: Input should be less than or equal to 10000"),
        ({"con_wounds": 4}, "CON wounds: Input should be less than or equal to 3"),
        ({"res": 2}, "res cannot be changed here"),
        ({}, "Nothing to set"),
    ],
)
def test_P_3_set_refuses_out_of_range(settings, fields, message):
    with pytest.raises(RuleError, match=message):
        set_fields(make(con_base=8), settings, **fields)


def test_S_2_set_wounds_drop_stamina_and_a_full_stack_begins_breakdown(settings):
    outcome = set_fields(make(con_base=12, stamina=12), settings, con_wounds=2, guilt=4)
    assert outcome.after.stamina == 8
    assert outcome.after.breakdown is Emotion.GUILT
    both = set_fields(make(con_base=12, stamina=12), settings, con_wounds=1, stamina=4)
    assert both.after.stamina == 4


def test_E_7_set_stress_to_vit_retires(settings):
    outcome = set_fields(make(vit=3), settings, stress=3)
    assert outcome.after.state is State.RETIRED
    assert "E-7" in outcome.rules


def test_V_6_setting_vit_below_zero_kills_under_instant_and_says_why():
    outcome = set_fields(make(vit=5, res=3), INSTANT, vit=-1)
    assert outcome.after.dead
    assert "V-6" in outcome.rules
    assert outcome.headline.startswith("Killed outright: Hero dies at VIT -1")
    assert "The GM sets VIT for Hero." not in outcome.notes


def test_V_6_setting_vit_zero_under_instant_follows_V_2():
    outcome = set_fields(make(vit=5, res=3), INSTANT, vit=0)
    assert outcome.after.state is State.UNCONSCIOUS


def test_V_6_setting_vit_below_zero_under_thresholds_is_critical(settings):
    outcome = set_fields(make(vit=5, res=3), settings, vit=-1)
    assert outcome.after.state is State.CRITICAL


# --- revive (V-5, E-7) ----------------------------------------------------------------------


def test_V_5_revive_the_dead_comes_back_up_at_vit_1():
    outcome = revive(make(vit=-4, res=2, dead=True, advantage=True, recovered_this_round=True))
    assert outcome.after.vit == 1
    assert outcome.after.state is State.UP
    assert not outcome.after.advantage
    assert not outcome.after.recovered_this_round
    assert outcome.rules[0] == "V-5"
    assert outcome.headline == "Hero is back: Up at VIT 1/10."


def test_E_7_revive_the_retired_keeps_a_positive_vit():
    outcome = revive(make(vit=4, stress=3, retired=True))
    assert outcome.after.vit == 4
    assert outcome.after.state is State.UP
    assert outcome.rules == ("E-7", "V-1", "V-7")


@pytest.mark.parametrize(
    ("fields", "stress", "vit"),
    [
        ({"vit": 4, "stress": 6, "retired": True}, 6, 4),
        ({"vit": 4, "stress": 4, "retired": True}, 4, 4),
        ({"vit": -4, "res": 2, "stress": 2, "dead": True}, 2, 1),
        ({"vit": -4, "res": 2, "stress": 1, "dead": True}, 1, 1),
    ],
)
def test_E_7_revive_is_refused_while_stress_is_at_least_vit(fields, stress, vit):
    """E-7 (revised): a retired character with Stress ≥ VIT used to come back Up, only to
    retire again at the next check; now the revive is refused until Stress is lowered."""
    with pytest.raises(RuleError, match="would retire again at once") as caught:
        revive(make(**fields))
    assert caught.value.values == {"name": "Hero", "stress": stress, "vit": vit}
    assert "stress option" in str(caught.value)


def test_E_7_revive_with_stress_lowered_is_allowed():
    outcome = revive(make(vit=4, stress=6, retired=True), stress=3)
    assert (outcome.after.state, outcome.after.vit, outcome.after.stress) == (State.UP, 4, 3)
    dead = revive(make(vit=-4, res=2, stress=2, dead=True), stress=0)
    assert (dead.after.vit, dead.after.stress) == (1, 0)


def test_E_7_revive_stress_option_can_still_be_too_high_or_out_of_range():
    with pytest.raises(RuleError, match="would retire again"):
        revive(make(vit=4, stress=6, retired=True), stress=4)
    with pytest.raises(RuleError, match="Stress"):
        revive(make(vit=4, stress=6, retired=True), stress=-1)


def test_V_5_revive_refuses_the_living():
    with pytest.raises(RuleError, match="nothing to revive") as caught:
        revive(make(vit=0))
    assert str(caught.value).startswith("Hero is Unconscious, not Dead or Retired")
