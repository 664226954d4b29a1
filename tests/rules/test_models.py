"""The sheet's ranges (section 1), its derived values, and the guild settings (section 10)."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from rules.models import (
    MAX_SNOWFLAKE,
    DyingDamage,
    Emotion,
    EmotionCause,
    GuildSettings,
    LastGaspAdvantage,
    RuleIds,
    State,
)
from tests.rules.conftest import make

# Each field at both ends of its range (accepted) and one step past each end (refused).
RANGES = [
    ("owner_id", 0, MAX_SNOWFLAKE),
    ("max_vit", 1, 999),
    ("res", 0, 20),
    ("con_wounds", 0, 3),
    ("humility", -10, 20),
    ("composure", -10, 20),
    ("insight", -10, 20),
    ("threshold", 1, 20),
    ("stress", 0, 10_000),
    ("stamina", 0, 8),
    ("anger", 0, 4),
    ("guilt", 0, 4),
]

# What the other fields must hold for the ends of the range to be legal.
BASES: dict[str, dict[str, object]] = {
    "max_vit": {"vit": 1},
    "con_wounds": {"stamina": 0},
    "anger": {"fear": 4, "breakdown": "fear"},  # a Breakdown keeps a full stack legal (E-1)
    "guilt": {"fear": 4, "breakdown": "fear"},
}


@pytest.mark.parametrize(("field", "low", "high"), RANGES)
def test_section_1_every_range_is_enforced(field, low, high):
    base = BASES.get(field, {})
    assert getattr(make(**base, **{field: low}), field) == low
    assert getattr(make(**base, **{field: high}), field) == high
    with pytest.raises(ValidationError):
        make(**base, **{field: low - 1})
    with pytest.raises(ValidationError):
        make(**base, **{field: high + 1})


def test_section_1_vit_runs_from_minus_10000_to_max_vit():
    assert make(vit=-10_000, res=2).vit == -10_000
    assert make(vit=10).vit == 10
    with pytest.raises(ValidationError):
        make(vit=-10_001)
    with pytest.raises(ValidationError, match="VIT 11 is above max VIT 10"):
        make(vit=11)


@pytest.mark.parametrize("vit", [10**4299, -(10**4299)])
def test_section_1_a_4300_digit_vit_is_refused(vit):
    assert len(str(abs(vit))) == 4300
    with pytest.raises(ValidationError):
        make(vit=vit)


@pytest.mark.parametrize("con", [6, 8, 10, 12])
def test_section_1_the_con_die_is_d6_d8_d10_or_d12(con):
    assert make(con_base=con, stamina=0).con_base == con


@pytest.mark.parametrize("con", [4, 7, 20])
def test_section_1_other_con_dice_are_refused(con):
    with pytest.raises(ValidationError):
        make(con_base=con, stamina=0)


def test_section_1_stamina_is_capped_by_the_current_con_die():
    assert make(con_base=8, con_wounds=1, stamina=6).stamina == 6
    with pytest.raises(ValidationError, match="Stamina 7 is above its maximum 6"):
        make(con_base=8, con_wounds=1, stamina=7)


def test_section_1_a_stack_is_capped_by_the_threshold():
    with pytest.raises(ValidationError, match="Sadness 3 is above the threshold 2"):
        make(threshold=2, sadness=3)


def test_section_1_breakdown_is_none_or_one_emotion():
    assert make(anger=4, breakdown="anger").breakdown is Emotion.ANGER
    with pytest.raises(ValidationError):
        make(breakdown="joy")


def test_section_1_unknown_fields_and_wrong_types_are_refused():
    with pytest.raises(ValidationError):
        make(colour="red")
    with pytest.raises(ValidationError):
        make(res="many")


def test_section_1_a_sheet_is_immutable_and_update_validates():
    sheet = make()
    with pytest.raises(ValidationError):
        sheet.vit = 3  # type: ignore[misc]
    with pytest.raises(ValidationError):
        sheet.update(vit=11)
    assert sheet.update(vit=3).vit == 3
    assert sheet.vit == 10


@pytest.mark.parametrize(
    ("base", "wounds", "die"),
    [(12, 0, 12), (12, 1, 10), (12, 3, 6), (10, 3, 6), (8, 1, 6), (8, 3, 6), (6, 2, 6)],
)
def test_S_2_the_con_die_steps_down_per_wound_to_a_floor_of_d6(base, wounds, die):
    sheet = make(con_base=base, con_wounds=wounds, stamina=0)
    assert sheet.con_die == die
    assert sheet.max_stamina == die


@pytest.mark.parametrize(
    ("fields", "state"),
    [
        ({"vit": 1}, State.UP),
        ({"vit": 0, "res": 1}, State.UNCONSCIOUS),
        ({"vit": -1, "res": 2}, State.CRITICAL),
        ({"vit": -1, "res": 1}, State.DYING),
        ({"vit": 0, "res": 0}, State.DYING),
        ({"vit": 5, "dead": True}, State.DEAD),
        ({"vit": 5, "retired": True}, State.RETIRED),
        ({"vit": 5, "dead": True, "retired": True}, State.DEAD),
    ],
)
def test_V_1_to_V_5_the_state_of_a_sheet(fields, state):
    assert make(**fields).state is state


def test_V_5_E_7_dead_and_retired_are_out_and_not_down():
    assert State.DEAD.is_out and State.RETIRED.is_out
    assert not State.DEAD.is_down and not State.UP.is_down
    assert all(s.is_down for s in (State.UNCONSCIOUS, State.CRITICAL, State.DYING))


def test_E_10_cause_labels():
    assert EmotionCause.DARING_THROW.label == "a Daring Throw"
    assert EmotionCause.REACTION_ROLL.label == "a Reaction Roll"
    assert EmotionCause.OTHER.label == "something in the story"


# --- guild settings -------------------------------------------------------------------------


def test_section_10_defaults():
    settings = GuildSettings()
    assert settings.die_faces == "MMMHHC"
    assert settings.reaction_die == "1d10"
    assert settings.emotion_threshold == 4
    assert settings.last_gasp_advantage is LastGaspAdvantage.YES
    assert settings.dying_damage is DyingDamage.NOTHING
    assert settings.rule_ids is RuleIds.FOOTER
    assert settings.gm_role_id is None


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("last_gasp_advantage", "maybe"),
        ("dying_damage", "wounds"),
        ("rule_ids", "header"),
        ("emotion_threshold", 0),
        ("emotion_threshold", 21),
        ("gm_role_id", -1),
        ("gm_role_id", MAX_SNOWFLAKE + 1),
        ("die_faces", "M"),
        ("die_faces", "C" * 21),
        ("die_faces", "MMHX"),
        ("reaction_die", "banana"),
        ("colour", "red"),
    ],
)
def test_section_10_settings_out_of_range_are_refused(field, value):
    with pytest.raises(ValidationError):
        GuildSettings(**{field: value})


def test_section_10_new_settings_take_their_values():
    settings = GuildSettings(last_gasp_advantage="no", dying_damage="kills", rule_ids="off")
    assert settings.last_gasp_advantage is LastGaspAdvantage.NO
    assert settings.dying_damage is DyingDamage.KILLS
    assert settings.rule_ids is RuleIds.OFF
    assert GuildSettings(die_faces="m h c c").die_faces == "MHCC"
