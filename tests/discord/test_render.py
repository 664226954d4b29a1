"""Rendering, without Discord: numbers written one way, colours readable on both themes, every
die face in text, the headline first, Discord's limits (docs/commands.md, "What every reply
does")."""

from __future__ import annotations

from fractions import Fraction

import pytest

from bot.offline.layout import count, text_length
from bot.render.card import COMPONENTS_LIMIT, TEXT_LIMIT
from bot.render.changes import change_texts
from bot.render.common import (
    EMOTION_COLOUR,
    FAILURE_COLOUR,
    INFO_COLOUR,
    LAST_GASP_COLOUR,
    STATE_COLOURS,
    STATE_MARKS,
    chance,
    colour_name,
    percent,
    rule_footer,
)
from bot.render.dice import Faces, faces_line, numeric_text, tally
from bot.render.layout import layout
from bot.render.odds import _rows
from bot.render.outcome import outcome_reply, small_line
from bot.render.pictures import EMOJI_NAMES, STRUCK_MISS_EMOJI_NAME
from bot.render.sheet import sheet_card
from bot.render.table import character_line
from rules.models import Emotion, GuildSettings, RuleIds, Sheet, State
from rules.odds import RecoveryOutcome
from rules.outcome import Outcome, diff
from rules.rolls import NarateerRoll, NumericRoll

TEXT = Faces.text()


def sheet(**fields) -> Sheet:
    return Sheet(name="Roryn", owner_id=1).update(**fields)


def field(card, name: str) -> str:
    return dict(card.rows)[name]


# --- the sheet ---------------------------------------------------------------------------------


def test_the_sheet_writes_numbers_the_same_way_everywhere_H_3_E_6():
    card = sheet_card(
        sheet(vit=3, stamina=5, stress=2, anger=1, breakdown=Emotion.FEAR, fear=4, con_wounds=1)
    )
    assert card.title == "🟢 Roryn"
    assert card.colour == STATE_COLOURS[State.UP]
    assert list(card.lines) == [
        "Owner <@1> · **Up**",
        "In a Breakdown of Fear: Disadvantage on related actions and on all Reaction Rolls.",
    ]
    assert field(card, "Vitality") == "VIT 3/10 · RES 2"
    assert field(card, "Stamina") == "5/6 · CON d6 (1 wound) · next reaction costs 1"
    assert field(card, "Injury") == "-8 on Action Rolls · -2 on Reaction Rolls"
    assert field(card, "Emotions") == "Anger 1/4 · Fear 4/4 · Sadness 0/4 · Guilt 0/4"
    assert field(card, "Stress") == "2"
    assert len(card.lines) + len(card.rows) + 1 <= 10  # about ten lines, the title included


@pytest.mark.parametrize(
    ("fields", "said"),
    [
        ({}, "none"),  # H-3: under 30% lost
        ({"vit": 6}, "-3 on Action Rolls · -1 on Reaction Rolls"),  # 40% lost
        ({"vit": 3}, "-8 on Action Rolls · -2 on Reaction Rolls"),  # 70% lost
        ({"daily_bonus": True}, "none · +3 on Action Rolls today"),  # E-4
        (
            {"vit": 6, "daily_bonus": True},
            "-3 on Action Rolls · -1 on Reaction Rolls · +3 on Action Rolls today",
        ),
    ],
)
def test_the_injury_field_says_which_rolls_in_words_H_3_E_4(fields, said):
    """The sheet says injury as the replies do: on which rolls, and the daily bonus's +3."""
    assert field(sheet_card(sheet(**fields)), "Injury") == said


def test_the_sheet_of_a_downed_character_says_the_roll_due():
    card = sheet_card(sheet(vit=-1, advantage=True))
    assert card.title == "🟠 Roryn"
    assert card.colour == STATE_COLOURS[State.CRITICAL]
    assert card.lines[1] == "Due at its next turn: a recovery roll of 1 die (R-3)."
    assert card.small == "advantage on the next recovery roll"
    dying = sheet_card(sheet(vit=-2))
    assert dying.lines[1] == "Due at its next turn: the Last Gasp (R-5)."


def test_the_dead_and_the_retired_have_no_injury_and_no_stamina_in_lists():
    dead = sheet(vit=-3, dead=True)
    retired = sheet(vit=4, stress=4, retired=True)
    assert field(sheet_card(dead), "Injury") == "—"
    assert field(sheet_card(retired), "Injury") == "—"
    assert character_line(dead, owner=False) == "💀 Roryn · Dead · VIT -3/10"
    assert character_line(retired, owner=False) == "🕊️ Roryn · Retired · VIT 4/10"
    assert character_line(sheet(vit=-1)) == "🟠 Roryn · Critical · VIT -1/10 · Stamina 8/8 · <@1>"


# --- colours and marks -------------------------------------------------------------------------


def _luminance(colour: int) -> float:
    def channel(value: int) -> float:
        c = value / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (colour >> 16) & 255, (colour >> 8) & 255, colour & 255
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)


def contrast(a: int, b: int) -> float:
    light, dark = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


ALL_COLOURS = {
    **{state.value: colour for state, colour in STATE_COLOURS.items()},
    "emotion": EMOTION_COLOUR,
    "failure": FAILURE_COLOUR,
    "last gasp": LAST_GASP_COLOUR,
    "info": INFO_COLOUR,
}


DARK, LIGHT = 0x313338, 0xFFFFFF


@pytest.mark.parametrize(
    ("name", "background"),
    [
        pytest.param(name, background, id=f"{name}-{theme}")
        for name in sorted(ALL_COLOURS)
        for theme, background in (("dark", DARK), ("light", LIGHT))
    ],
)
def test_every_colour_is_readable_on_both_themes(name, background):
    """docs/commands.md: a contrast of at least 3:1 against #313338 and #FFFFFF."""
    assert contrast(ALL_COLOURS[name], background) >= 3, f"{name} #{ALL_COLOURS[name]:06x}"


def test_every_state_has_its_own_colour_and_mark():
    assert len(set(STATE_COLOURS.values())) == len(State)
    assert len(set(STATE_MARKS.values())) == len(State)
    assert colour_name(STATE_COLOURS[State.DYING]) == "dying"
    assert colour_name(0x123456) == "#123456"


def test_a_failure_is_never_green():
    assert STATE_COLOURS[State.UP] != FAILURE_COLOUR
    red, green = (FAILURE_COLOUR >> 16) & 255, (FAILURE_COLOUR >> 8) & 255
    assert green < red


# --- dice ----------------------------------------------------------------------------------------


def test_die_faces_are_readable_at_a_glance_D_4():
    roll = NarateerRoll(
        label="Recovery", faces=("M", "H", "C", "M"), rerolls=(None, None, None, "H")
    )
    assert faces_line(roll, TEXT) == "⬜ ⚪ 💥 (⬜→⚪)"  # the reroll beside its Miss (D-3)
    assert tally(roll.final) == "1 Crit · 2 Hits · 1 Miss"
    assert tally("MMCC") == "2 Crits · 2 Misses"


def test_the_applications_emoji_draw_the_dice_once_all_are_registered_D_4():
    ids = {name: i for i, name in enumerate((*EMOJI_NAMES.values(), STRUCK_MISS_EMOJI_NAME), 1)}
    faces = Faces.emoji(ids)
    roll = NarateerRoll(label="Last Gasp", faces=("M", "H"), rerolls=("C", None))
    assert faces_line(roll, faces) == (
        f"<:{STRUCK_MISS_EMOJI_NAME}:4><:lg_crit:3> <:lg_hit:2>"  # the struck Miss, its new face
    )
    missing = {name: i for name, i in ids.items() if name != "lg_hit"}
    assert Faces.emoji(missing) == TEXT  # one missing: text faces throughout
    assert Faces.emoji({}) == TEXT


def test_a_check_shows_its_whole_sum():
    roll = NumericRoll(
        label="Check",
        expression="1d20+2",
        dice=(8,),
        value=10,
        bonuses=(("push", 2),),
        total=12,
        target=15,
    )
    assert numeric_text(roll) == "`1d20+2` → 8 +2 = 10, +2 push = 12 vs 15 ✗"
    cancel = NumericRoll(
        label="Reaction Roll",
        expression="1d10",
        dice=(1,),
        value=1,
        bonuses=(("Humility", 1), ("injury", -1)),
        total=1,
    )
    assert numeric_text(cancel) == "`1d10` → 1, +1 Humility, -1 injury = 1"  # nothing hidden
    kept = NumericRoll(
        label="x", expression="2d6kh1", dice=(2, 5), kept=(False, True), value=5, total=5
    )
    assert numeric_text(kept) == "`2d6kh1` → ~~2~~, 5 = 5"


# --- a result: the headline first, the rule IDs at most three -----------------------------------


def test_a_result_opens_with_its_headline():
    before, after = sheet(vit=1), sheet(vit=-1)
    outcome = Outcome(
        action="damage",
        before=before,
        after=after,
        headline="Roryn collapses.",
        rules=("H-1", "V-3", "V-7", "H-3", "D-1"),
        notes=("A note.",),
    )
    reply = outcome_reply(outcome, character_id=7, settings=GuildSettings(), faces=TEXT)
    card = reply.card
    assert card.title == "🟠 Roryn · Damage"
    assert list(card.lines) == ["**Roryn collapses.**", "VIT 1 → -1 · Up → Critical", "A note."]
    assert card.small == "Rules: H-1 · V-3 · V-7"  # at most three, the telling first
    assert not reply.ephemeral
    assert card.accessory is None  # two buttons: a row of them
    assert [item.custom_id for item in card.buttons] == ["lg:recover:7:-1:2", "lg:odds:7"]


@pytest.mark.parametrize(
    ("action", "rules", "before", "after", "said"),
    [
        ("recover", ("R-6",), True, False, ["advantage used"]),
        ("heal", ("H-2", "H-4"), True, False, ["advantage lost on waking"]),
        ("set", ("P-3",), True, False, ["advantage gone"]),
        ("undo", ("U-3",), True, False, []),  # the change line of an undo says what it reverts
        ("undo", ("U-3",), False, True, ["advantage on the next recovery roll"]),
        ("first_aid", ("F-1",), False, True, []),  # the headline says it
    ],
)
def test_the_small_line_says_what_became_of_the_advantage(action, rules, before, after, said):
    outcome = Outcome(
        action=action,
        before=sheet(vit=-1, advantage=before),
        after=sheet(vit=-1, advantage=after),
        headline="Something happens.",
        rules=rules,
    )
    assert small_line(outcome) == said


def test_a_change_line_says_flags_and_breakdowns_in_words():
    before = sheet(anger=3, relief_used_today=False, con_base=8)
    after = sheet(anger=4, breakdown=Emotion.ANGER, relief_used_today=True, con_base=12)
    texts = change_texts(diff(before, after))
    assert "relief used today" in texts and "Breakdown of Anger begins" in texts
    assert not any("no → yes" in t or "none →" in t for t in texts)
    assert [t for t in texts if "CON" in t] == ["base CON d8 → d12"]  # the die follows its base
    ended = change_texts(diff(after, before))
    assert "Breakdown of Anger ends" in ended and "relief available again" in ended


def test_a_roll_set_aside_says_so_without_a_verdict_E_6():
    dropped = NumericRoll(
        label="Reaction Roll", expression="1d10", dice=(8,), value=8, total=8, target=4
    ).model_copy(update={"dropped": True})
    assert numeric_text(dropped) == "`1d10` → 8 · not kept, the lower counts"


def test_rule_ids_off_leaves_no_rule_footer():
    assert rule_footer(("H-1",), GuildSettings(rule_ids=RuleIds.OFF)) is None
    assert rule_footer((), GuildSettings()) is None
    assert rule_footer(("D-1", "H-3", "R-3", "V-2"), None) == "Rules: R-3 · V-2 · D-1"


def test_a_result_stays_within_discords_limits():
    """4,000 characters of text and 40 components in one message, whatever a result holds."""
    before = sheet(vit=-1)
    notes = tuple("A long note that goes on and on. " * 20 for _ in range(30))
    rolls = tuple(
        NumericRoll(label=f"Roll {i}" * 20, expression="1d6", dice=(3,) * 100, value=300, total=300)
        for i in range(40)
    )
    outcome = Outcome(
        action="x" * 300, before=before, after=before, headline="H" * 5000, notes=notes, rolls=rolls
    )
    sent = layout(outcome_reply(outcome, character_id=1, settings=None, faces=TEXT).card)
    components = sent.to_components()
    assert text_length(components) <= TEXT_LIMIT
    assert count(components) <= COMPONENTS_LIMIT


# --- numbers --------------------------------------------------------------------------------------


def test_chances_are_exact_where_short():
    assert chance(Fraction(1, 6)) == "1/6 (16.67%)"
    assert chance(Fraction(1, 6**10)) == "<0.01%"
    assert percent(1 - Fraction(1, 10**6)) == ">99.99%"
    assert percent(Fraction(0)) == "0%" and percent(Fraction(1)) == "100%"


def test_rare_odds_are_listed_together():
    def outcome(p, vit):
        return RecoveryOutcome(label=f"wake at VIT {vit}", probability=p, vit=vit, state=State.UP)

    lines = _rows(
        (
            outcome(Fraction(1, 2), 1),
            outcome(Fraction(1, 10**6), 2),
            outcome(Fraction(1, 4) - Fraction(3, 10**6), 3),
            outcome(Fraction(1, 10**6), 4),
            outcome(Fraction(1, 10**6), 5),
            outcome(Fraction(1, 4), 6),
        )
    )
    assert lines == [
        "1/2 (50.00%): wake at VIT 1",
        f"{chance(Fraction(1, 4) - Fraction(3, 10**6))}: wake at VIT 3",
        "1/4 (25.00%): wake at VIT 6",
        "<1%: 3 rarer results",  # below 1%: together, so that big rolls stay short
    ]
