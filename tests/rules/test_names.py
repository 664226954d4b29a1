"""Character names (section 1): what a name may hold and the key that makes it unique; names
kept as they are in headlines and passed apart in refusals."""

from __future__ import annotations

import unicodedata

import hypothesis
import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from rules import names
from rules.emotions import raise_emotion
from rules.errors import RuleError
from rules.names import MAX_KEY, MAX_NAME, MAX_NAME_LENGTH, clean_name, graphemes, name_key
from rules.sheet_ops import edit_sheet
from rules.stamina import spend
from rules.vitality import damage, heal, recover
from tests.rules.conftest import COMBAT, MARKDOWN_NAME, dice, make

FORBIDDEN = {
    "\u0000": "a NUL character",
    "\u200b": "a zero-width space",
    "\u200c": "a zero-width non-joiner",
    "\u200d": "a zero-width joiner",
    "\u2060": "a word joiner",
    "\ufeff": "a zero-width no-break space",
    "\u00ad": "a soft hyphen",
    "\n": "a line break",
    "\u2028": "a line separator",
    "\u202e": "a text-direction mark",
    "\u0007": "a control character",
    "\ufe0f": "a variation selector",
    "\U000e0041": "a tag character",
    "\U0001f3fd": "a skin tone",
}
EMOJI_NAMES = [
    "Gus 🧙\u200d♂\ufe0f the Grey",  # a ZWJ sequence with a variation selector
    "🏳\ufe0f\u200d🌈 Pip",
    "Ada 👍🏽",  # a skin tone
    "🇫🇷 Pip",  # a flag: two regional indicators
    "🏴\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f Pip",  # a tag sequence
    "1\ufe0f\u20e3 Pip",  # a keycap
    "Heart \u2764\ufe0f",
    "👨\u200d👩\u200d👧\u200d👦",
]


def test_section_1_a_name_is_trimmed():
    assert clean_name("  Roryn \t") == "Roryn"


def test_section_1_a_name_has_1_to_32_characters():
    assert MAX_NAME == 32
    assert clean_name("x" * 32) == "x" * 32
    assert clean_name(" " + "x" * 32 + " ") == "x" * 32  # counted after trimming
    with pytest.raises(ValueError, match="at most 32 characters, and that one has 33"):
        clean_name("x" * 33)
    with pytest.raises(ValueError, match="at least one character"):
        clean_name("   ")


@pytest.mark.parametrize("name", EMOJI_NAMES)
def test_section_1_names_with_emoji_sequences_are_kept_as_typed(name):
    assert clean_name(f" {name} ") == name


def test_section_1_length_counts_what_the_user_sees():
    """One emoji sequence is one character: `Ada 👍🏽` has five, a family of four one."""
    assert len(graphemes("Ada 👍🏽")) == 5
    assert len(graphemes("Gus 🧙\u200d♂\ufe0f the Grey")) == 14
    family = "👨\u200d👩\u200d👧\u200d👦"  # 7 code points, 11 UTF-16 units
    assert clean_name(family * 32) == family * 32
    with pytest.raises(ValueError, match="at most 32 characters, and that one has 33"):
        clean_name(family * 33)
    combined = "e\u0301"  # e and a combining accent: one character
    assert clean_name(combined * 32) == combined * 32


def test_section_1_the_longest_name_fits_the_declared_option_length():
    """Discord counts an option's max_length in UTF-16 units: the declared bound lets the
    longest name through (each key character with a variation selector and a joiner)."""
    element = "😀\ufe0f"
    longest = "\u200d".join([element] * 4) * 32  # 32 characters, a key of 128
    assert clean_name(longest) == longest and len(name_key(longest)) == MAX_KEY
    assert len(longest.encode("utf-16-le")) // 2 <= MAX_NAME_LENGTH


@pytest.mark.parametrize(("char", "called"), FORBIDDEN.items())
def test_section_1_a_refusal_names_the_character_outside_an_emoji_sequence(char, called):
    with pytest.raises(ValueError, match=f"U\\+{ord(char):04X}, {called}") as caught:
        clean_name(f"Ro{char}ryn")
    assert "type the name without it" in str(caught.value)


@pytest.mark.parametrize(
    "name",
    [
        "a\u200db",  # a joiner between letters
        "👍\u200d x",  # a joiner joining nothing
        "\u200d👍",
        "Roryn\ufe0f",  # a variation selector after a letter
        "👍\ufe0f\ufe0f",  # twice
        "a🏽",  # a skin tone after a letter
        "🏴\U000e0067\U000e0062 Pip",  # a tag sequence without its end
        "Pip\U000e0067\U000e007f",  # tags after a letter
    ],
)
def test_section_1_emoji_parts_outside_their_place_are_refused(name):
    with pytest.raises(ValueError, match="only inside an emoji"):
        clean_name(name)


@pytest.mark.parametrize("name", ["\u200b\u200b", "\u3164", "\u2800\u2800", "\u115f"])
def test_section_1_a_name_of_only_invisible_characters_is_refused(name):
    with pytest.raises(ValueError, match="which does not show"):
        clean_name(name)


def test_section_1_a_name_of_only_variation_selectors_is_refused():
    with pytest.raises(ValueError, match="U\\+FE0F, a variation selector"):
        clean_name("\ufe0f\ufe0e")


def test_section_1_a_variation_selector_is_allowed_in_a_name_and_left_out_of_its_key():
    assert clean_name("Heart \u2764\ufe0f") == "Heart \u2764\ufe0f"
    assert name_key("Heart \u2764\ufe0f") == name_key("Heart \u2764")


def test_section_1_emoji_names_have_their_own_keys_that_ignore_joiners_and_selectors():
    assert name_key("Gus 🧙\u200d♂\ufe0f the Grey") == name_key("GUS 🧙\u200d♂ THE GREY")
    assert len({name_key(name) for name in EMOJI_NAMES}) == len(EMOJI_NAMES)
    assert name_key("Ada 👍🏽") != name_key("Ada 👍🏿") != name_key("Ada 👍")  # skin tones show
    scotland = "🏴\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f"
    wales = "🏴\U000e0067\U000e0062\U000e0077\U000e006c\U000e0073\U000e007f"
    assert name_key(scotland) != name_key(wales) != name_key("🏴")  # a flag's tags show too


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


@hypothesis.settings(max_examples=500)
@given(text=st.text(alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=40))
def test_section_1_printable_ascii_takes_the_short_way_to_the_same_answer(text: str) -> None:
    # The short way (rules/names.py `_plain`) against the Unicode segmentation and the key's
    # Unicode steps it skips.
    assert graphemes(text) == list(names._GRAPHEME.findall(text))
    assert all(names._out_of_place(cluster) is None for cluster in text)
    assert name_key(text) == names._unicode_key(text)


def test_section_1_text_that_is_not_printable_ascii_takes_the_unicode_way() -> None:
    assert graphemes("a\r\nb") == ["a", "\r\n", "b"]  # one cluster: not printable, not plain
    assert graphemes("Ada 👍🏽") == ["A", "d", "a", " ", "👍🏽"]
    with pytest.raises(ValueError, match="line break"):
        clean_name("Ro\nryn")
