"""Importing a sheet: P-6 (build only for a player, state too for the GM, flags never)."""

from __future__ import annotations

import pytest

from rules.errors import RuleError
from rules.models import Emotion, GuildSettings, State
from rules.sheet_ops import import_sheet
from tests.rules.conftest import make

IMPORTER = 555

BUILD = {
    "name": "Roryn",
    "max_vit": 12,
    "res": 3,
    "con_base": 10,
    "humility": 2,
    "composure": -1,
    "insight": 4,
    "threshold": 5,
}
STATE = {
    "vit": 4,
    "stamina": 3,
    "stress": 2,
    "anger": 5,
    "fear": 1,
    "sadness": 0,
    "guilt": 0,
    "con_wounds": 1,
    "breakdown": "anger",
    "dead": False,
    "retired": False,
}
FLAGS = {
    "owner_id": 42,
    "advantage": True,
    "relief_used_today": True,
    "daily_bonus": True,
    "reactions_taken": 3,
    "early_this_round": True,
    "recovered_this_round": True,
}
EXPORT = {**BUILD, **STATE, **FLAGS}


def player(data, settings=None, name=None):
    return import_sheet(data, IMPORTER, settings or GuildSettings(), by_gm=False, name=name)


def gm(data, settings=None, name=None):
    return import_sheet(data, IMPORTER, settings or GuildSettings(), by_gm=True, name=name)


def test_P_6_a_player_import_takes_the_build_and_starts_fresh():
    sheet, _ = player(EXPORT)
    assert sheet.owner_id == IMPORTER
    assert {key: getattr(sheet, key) for key in BUILD} == BUILD
    assert (sheet.vit, sheet.stamina, sheet.stress) == (12, 10, 0)  # full, as at creation
    assert sheet.stacks == dict.fromkeys(Emotion, 0)
    assert (sheet.breakdown, sheet.con_wounds) == (None, 0)
    assert sheet.state is State.UP


def test_P_6_a_player_import_lists_the_state_it_left_out():
    _, left_out = player(EXPORT)
    # only what differs from a fresh character: sadness 0, guilt 0, dead and retired false match
    assert sorted(left_out) == sorted(
        ["vit", "stamina", "stress", "anger", "fear", "con_wounds", "breakdown"]
    )


def test_P_6_a_player_import_of_a_fresh_sheet_leaves_nothing_out():
    fresh = {**BUILD, "vit": 12, "stamina": 10, "stress": 0, "breakdown": None}
    assert player(fresh)[1] == []


def test_P_6_a_player_import_of_a_dead_character_brings_it_back_fresh():
    sheet, left_out = player({**BUILD, "vit": -3, "dead": True})
    assert sheet.state is State.UP
    assert set(left_out) == {"vit", "dead"}


def test_P_6_the_gm_import_takes_the_state_too():
    sheet, left_out = gm(EXPORT)
    assert left_out == []
    assert sheet.owner_id == IMPORTER
    for key, value in STATE.items():
        assert getattr(sheet, key) == value, key
    assert sheet.breakdown is Emotion.ANGER
    assert sheet.con_die == 8


def test_P_6_the_gm_import_keeps_dead_and_retired():
    assert gm({**BUILD, "vit": -3, "dead": True})[0].state is State.DEAD
    assert gm({**BUILD, "vit": 3, "stress": 3, "retired": True})[0].state is State.RETIRED


@pytest.mark.parametrize("importer", [player, gm])
def test_P_6_flags_are_never_imported(importer):
    sheet, left_out = importer(EXPORT)
    assert not sheet.advantage
    assert not sheet.relief_used_today
    assert not sheet.daily_bonus
    assert sheet.reactions_taken == 0
    assert not sheet.early_this_round
    assert not sheet.recovered_this_round
    assert not set(FLAGS) & set(left_out)


@pytest.mark.parametrize("importer", [player, gm])
def test_P_6_the_new_character_is_the_importers(importer):
    assert importer({"name": "X", "owner_id": 42})[0].owner_id == IMPORTER


def test_P_6_a_missing_threshold_takes_the_guild_default():
    sheet, _ = player({"name": "X"}, GuildSettings(emotion_threshold=7))
    assert sheet.threshold == 7


def test_P_6_the_name_is_trimmed():
    assert player({"name": "  Roryn  "})[0].name == "Roryn"


@pytest.mark.parametrize("build", [{"max_vit": 5}, {"con_base": 6}])
@pytest.mark.parametrize("importer", [player, gm])
def test_P_6_a_build_only_file_with_small_maxima_is_imported_fresh(importer, build):
    sheet, _ = importer({"name": "X", **build})
    assert (sheet.vit, sheet.stamina) == (sheet.max_vit, sheet.max_stamina)


# --- refusals: nothing is created -----------------------------------------------------------


@pytest.mark.parametrize("importer", [player, gm])
@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("max_vit", 0),
        ("max_vit", 1000),
        ("res", 21),
        ("res", -1),
        ("con_base", 7),
        ("con_base", "d8"),
        ("humility", -11),
        ("insight", 21),
        ("threshold", 0),
        ("threshold", 21),
        ("vit", 13),  # above max VIT 12
        ("vit", -10_001),
        ("stamina", 11),  # above d10 stepped down once: 8
        ("stamina", -1),
        ("stress", 10_001),
        ("anger", 6),  # above the threshold 5
        ("con_wounds", 4),
        ("breakdown", "joy"),
    ],
)
def test_P_6_out_of_range_values_are_refused(importer, field, value):
    with pytest.raises(RuleError, match="The sheet in that file is not valid: "):
        importer({**BUILD, **STATE, field: value})


@pytest.mark.parametrize("importer", [player, gm])
@pytest.mark.parametrize("value", ["5", 5.0, True, None, [5]])
@pytest.mark.parametrize("field", ["max_vit", "res", "vit", "stress", "humility", "fear"])
def test_P_6_wrong_types_are_refused_not_coerced(importer, field, value):
    with pytest.raises(RuleError, match="Fix the file or export it again"):
        importer({**BUILD, field: value})


@pytest.mark.parametrize("value", [1, "true"])
def test_P_6_a_flag_of_state_must_be_a_boolean(value):
    with pytest.raises(RuleError, match="not valid"):
        gm({**BUILD, "dead": value})


@pytest.mark.parametrize("value", [5, None])
def test_P_6_the_name_must_be_text(value):
    with pytest.raises(RuleError, match="not valid"):
        player({"name": value})


@pytest.mark.parametrize("importer", [player, gm])
@pytest.mark.parametrize("field", ["max_vit", "vit", "stress", "res"])
def test_P_6_a_200_digit_number_is_refused(importer, field):
    with pytest.raises(RuleError, match="not valid"):
        importer({**BUILD, field: 10**199})
    with pytest.raises(RuleError, match="not valid"):
        importer({**BUILD, field: -(10**199)})


def test_P_6_a_number_past_the_int_text_limit_is_refused():
    with pytest.raises(RuleError):
        player({**BUILD, "vit": 10**4301})


def test_P_6_an_unknown_field_is_refused_and_named():
    with pytest.raises(RuleError, match="a field this bot does not know: colour") as caught:
        player({**BUILD, "colour": "red", "zeal": 3})
    assert caught.value.values == {"field": "colour"}


def test_P_6_a_file_without_a_name_is_refused():
    with pytest.raises(RuleError, match="no name"):
        gm({key: value for key, value in EXPORT.items() if key != "name"})


@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("", "at least one character"),
        ("a\u200bb", "U\\+200B, a zero-width space"),
        ("x" * 33, "at most 32 characters"),
    ],
)
def test_P_6_a_bad_name_is_refused_saying_how_to_fix_it(name, said):
    """Section 1: the name's own refusal, never "Enter a value in range"; the way out of a
    file's bad name is the import's name option."""
    with pytest.raises(RuleError, match=said) as caught:
        player({"name": name})
    assert "in range" not in str(caught.value)
    assert "import it under another name" in str(caught.value)


def test_P_6_the_name_option_replaces_the_files_name():
    sheet, _ = player({**BUILD, "name": "Roryn"}, name="  Gus 🧙\u200d♂\ufe0f the Grey ")
    assert sheet.name == "Gus 🧙\u200d♂\ufe0f the Grey"
    fixed, _ = gm({**BUILD, "name": "Ro\u200bryn"}, name="Roryn")  # a file's bad name, fixed
    assert fixed.name == "Roryn"
    nameless, _ = gm({key: value for key, value in BUILD.items() if key != "name"}, name="Pip")
    assert nameless.name == "Pip"


@pytest.mark.parametrize(
    ("name", "said"),
    [("Ro\u200bryn", "U\\+200B, a zero-width space"), ("x" * 33, "at most 32 characters")],
)
def test_P_6_the_name_option_is_checked_as_any_name(name, said):
    with pytest.raises(RuleError, match=said) as caught:
        player(BUILD, name=name)
    assert "file" not in str(caught.value)  # the typed name is wrong, not the file
    assert "in range" not in str(caught.value)


def test_P_6_a_sheet_without_a_name_says_to_give_one():
    with pytest.raises(RuleError, match="give it one with the import's name option"):
        gm({key: value for key, value in BUILD.items() if key != "name"})


def test_P_6_the_gm_imports_for_another_player():
    sheet, _ = import_sheet(EXPORT, 77, GuildSettings(), by_gm=True)
    assert sheet.owner_id == 77


def test_P_6_a_player_import_refuses_out_of_range_state_too():
    """Every value must lie in section 1's ranges, even state a player's import leaves out."""
    with pytest.raises(RuleError, match="Stamina 99 is above its maximum"):
        player({**BUILD, "stamina": 99})


def test_P_6_an_export_round_trips_through_the_gm_import():
    original = make(
        name="Lenora",
        max_vit=9,
        vit=-2,
        res=4,
        con_base=12,
        con_wounds=2,
        stamina=7,
        threshold=3,
        sadness=3,
        guilt=1,
        stress=5,
        breakdown="sadness",
        insight=-2,
    )
    sheet, _ = gm(original.model_dump(mode="json"))
    assert sheet == original.update(owner_id=IMPORTER)
