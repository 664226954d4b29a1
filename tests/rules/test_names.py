"""Character names (section 1): what a name may hold and the key that makes it unique; names
kept as they are in headlines and passed apart in refusals."""

from __future__ import annotations

import unicodedata

import pytest
from pydantic import ValidationError

from rules.emotions import raise_emotion
from rules.errors import RuleError
from rules.names import MAX_KEY, MAX_NAME, clean_name, name_key
from rules.sheet_ops import edit_sheet
from rules.stamina import spend
from rules.vitality import damage, heal, recover
from tests.rules.conftest import COMBAT, MARKDOWN_NAME, dice, make

FORBIDDEN = ["\u0000", "\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad", "\n", "\u2028"]


def test_section_1_a_name_is_trimmed():
    assert clean_name("  Roryn \t") == "Roryn"


def test_section_1_a_name_has_1_to_32_characters():
    assert MAX_NAME == 32
    assert clean_name("x" * 32) == "x" * 32
    assert clean_name(" " + "x" * 32 + " ") == "x" * 32  # counted after trimming
    with pytest.raises(ValueError, match="at most 32 characters"):
        clean_name("x" * 33)
    with pytest.raises(ValueError, match="at least one character"):
        clean_name("   ")


@pytest.mark.parametrize("char", FORBIDDEN)
def test_section_1_control_format_and_zero_width_characters_are_refused(char):
    with pytest.raises(
        ValueError, match=f"invisible or control characters \\(U\\+{ord(char):04X}\\)"
    ):
        clean_name(f"Ro{char}ryn")


@pytest.mark.parametrize("name", ["\u200b\u200b", "\u3164", "\u2800\u2800", "\u115f"])
def test_section_1_a_name_of_only_invisible_characters_is_refused(name):
    with pytest.raises(ValueError, match="invisible"):
        clean_name(name)


def test_section_1_a_name_of_only_variation_selectors_has_nothing_visible():
    with pytest.raises(ValueError, match="at least one visible character"):
        clean_name("\ufe0f\ufe0e")


def test_section_1_a_variation_selector_is_allowed_in_a_name_and_left_out_of_its_key():
    assert clean_name("Heart \u2764\ufe0f") == "Heart \u2764\ufe0f"
    assert name_key("Heart \u2764\ufe0f") == name_key("Heart \u2764")


def test_section_1_the_key_ignores_invisible_characters():
    assert name_key("Roryn\u200b") == name_key("Roryn")
    assert name_key("Ro\u00adryn\u2060") == name_key("Roryn")


def test_section_1_the_key_folds_case_and_compatibility_forms():
    assert name_key("ＲＯＲＹＮ") == name_key("roryn") == "roryn"  # fullwidth letters, NFKC
    assert name_key("STRASSE") == name_key("straße")  # case folding, not lower()
    assert name_key("ﬁnn") == name_key("Finn")  # the fi ligature
    assert name_key("  Roryn ") == "roryn"


def test_section_1_different_names_keep_different_keys():
    assert name_key("Roryn") != name_key("Roryn2")
    assert name_key("Rory n") != name_key("Roryn")


def test_section_1_a_name_whose_key_spells_out_past_128_is_refused():
    ligature = "\ufdfa"  # NFKC spells it out in 18 characters
    spelled = len(unicodedata.normalize("NFKC", ligature))
    assert 7 * spelled <= MAX_KEY < 8 * spelled
    assert clean_name(ligature * 7) == ligature * 7
    with pytest.raises(
        ValueError, match=f"spells out to {8 * spelled} characters \\(at most 128\\)"
    ):
        clean_name(ligature * 8)


@pytest.mark.parametrize("name", ["a\u200bb", "x" * 33, "  ", "\ufdfa" * 8])
def test_section_1_a_sheet_refuses_a_bad_name(name):
    with pytest.raises(ValidationError):
        make(name=name)


# --- names in headlines and refusals --------------------------------------------------------


def test_markdown_and_mentions_are_kept_verbatim_in_headlines(settings):
    sheet = make(name=MARKDOWN_NAME, vit=3)
    for outcome in (
        damage(sheet, 1, settings),
        heal(sheet, 1, settings),
        raise_emotion(sheet, "fear", 1, "daring_throw"),
        spend(sheet, 1, "**bold** <@&9>"),
    ):
        assert MARKDOWN_NAME in outcome.headline
    assert "**bold** <@&9>" in spend(sheet, 1, "**bold** <@&9>").headline


def test_markdown_is_kept_in_a_death_headline(settings):
    outcome = recover(make(name=MARKDOWN_NAME, vit=-2, res=2), settings, dice("M"), **COMBAT)
    assert outcome.headline == f"The Last Gasp fails: {MARKDOWN_NAME} is dead."


def test_a_rename_headline_keeps_both_names_verbatim():
    outcome = edit_sheet(make(name="_Ro_"), name="<@1>", by_gm=False, in_combat=False)
    assert outcome.headline == "_Ro_ is renamed <@1>."


def test_a_refusal_passes_the_name_as_a_value_and_renders_it_escaped(settings):
    with pytest.raises(RuleError) as caught:
        heal(make(name=MARKDOWN_NAME, vit=-2, dead=True), 1, settings)
    error = caught.value
    assert error.values["name"] == MARKDOWN_NAME
    assert MARKDOWN_NAME not in error.template
    assert str(error).startswith(f"{MARKDOWN_NAME} is Dead")
    rendered = error.render(lambda text: f"[{text}]")
    assert rendered.startswith(f"[{MARKDOWN_NAME}] is Dead: healing is not possible.")
