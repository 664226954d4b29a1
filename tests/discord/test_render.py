"""Rendering: numbers written one way, colours by state, every die face, Discord's limits."""

from __future__ import annotations

from fractions import Fraction

from bot.render.common import (
    DESCRIPTION_LIMIT,
    EMBED_TOTAL_LIMIT,
    FIELD_VALUE_LIMIT,
    FIELDS_LIMIT,
    STATE_COLOURS,
    TITLE_LIMIT,
    chance,
    colour_name,
    percent,
)
from bot.render.outcome import outcome_embed, tally
from bot.render.sheet import sheet_embed
from rules.emotions import BREAKDOWN_EFFECTS
from rules.models import Emotion, Sheet, State
from rules.outcome import NarateerRoll, NumericRoll, Outcome


def sheet(**fields) -> Sheet:
    return Sheet(name="Roryn", owner_id=1).update(**fields)


def field(embed, name_start: str) -> str:
    return next(f.value for f in embed.fields if f.name.startswith(name_start))


def test_the_sheet_writes_numbers_the_same_way_everywhere_H_3_E_6():
    embed = sheet_embed(
        sheet(vit=3, stamina=5, stress=2, anger=1, breakdown=Emotion.FEAR, fear=4, con_wounds=1)
    )
    assert embed.title == "Roryn"
    assert embed.colour.value == STATE_COLOURS[State.UP][0]
    assert field(embed, "Vitality") == "VIT 3/10 · RES 2 · **Up**"
    assert field(embed, "Condition") == ("Injury (H-3): -8 on Action Rolls, -2 on Reaction Rolls")
    assert field(embed, "Stamina").startswith("Stamina 5/6 · CON d6 (base d8, 1 wound)")
    assert field(embed, "Emotions") == ("Anger 1/4 · Fear 4/4 · Sadness 0/4 · Guilt 0/4\nStress 2")
    assert field(embed, "Breakdown: Fear (E-6)") == BREAKDOWN_EFFECTS[Emotion.FEAR]


def test_the_sheet_of_a_downed_character_says_the_roll_due():
    embed = sheet_embed(sheet(vit=-1))
    assert embed.colour.value == STATE_COLOURS[State.CRITICAL][0]
    assert field(embed, "Vitality") == (
        "VIT -1/10 · RES 2 · **Critical**\nRecovery roll due: 1 die (R-3)"
    )
    assert field(embed, "Condition").startswith("Injury (H-3): -8 on Action Rolls")


def test_every_state_has_its_own_colour():
    assert len({value for value, _ in STATE_COLOURS.values()}) == len(State)
    assert colour_name(STATE_COLOURS[State.DYING][0]) == "red"
    assert colour_name(0x123456) == "#123456"


def test_die_faces_are_readable_at_a_glance_D_4():
    roll = NarateerRoll(
        label="Recovery", faces=("M", "H", "C", "M"), rerolls=(None, None, None, "H")
    )
    embed = outcome_embed(
        Outcome(action="recover", before=sheet(vit=0), after=sheet(vit=0), rolls=(roll,))
    )
    assert embed.fields[0].value == "○ M  ● H  ◉ C  ○ M → ● H\n1 Crit · 2 Hits · 1 Miss"
    assert tally("MMCC") == "2 Crits · 2 Misses"


def test_an_embed_stays_within_discords_limits():
    before = sheet(vit=-1)
    notes = tuple("A long note that goes on and on. " * 20 for _ in range(30))
    rolls = tuple(
        NumericRoll(label=f"Roll {i}" * 20, expression="1d6", dice=(3,) * 100, total=300)
        for i in range(40)
    )
    embed = outcome_embed(
        Outcome(action="x" * 300, before=before, after=before, notes=notes, rolls=rolls)
    )
    assert len(embed.title) <= TITLE_LIMIT
    assert len(embed.description) <= DESCRIPTION_LIMIT
    assert len(embed.fields) <= FIELDS_LIMIT
    assert all(len(f.value) <= FIELD_VALUE_LIMIT for f in embed.fields)
    assert len(embed) <= EMBED_TOTAL_LIMIT


def test_chances_are_exact_where_short():
    assert chance(Fraction(1, 6)) == "1/6 (16.67%)"
    assert chance(Fraction(1, 6**10)) == "<0.01%"
    assert percent(1 - Fraction(1, 10**6)) == ">99.99%"
    assert percent(Fraction(0)) == "0%" and percent(Fraction(1)) == "100%"


def test_rare_odds_are_listed_together():
    from bot.render.odds import _outcome_lines
    from rules.odds import RecoveryOutcome

    def outcome(p, vit):
        return RecoveryOutcome(label=f"wake at VIT {vit}", probability=p, vit=vit, state=State.UP)

    lines = _outcome_lines(
        (
            outcome(Fraction(1, 2), 1),
            outcome(Fraction(1, 10**6), 2),
            outcome(Fraction(1, 4) - Fraction(3, 10**6), 3),
            outcome(Fraction(1, 10**6), 4),
            outcome(Fraction(1, 10**6), 5),
            outcome(Fraction(1, 4), 6),
        )
    ).splitlines()
    assert lines == [
        "1/2 (50.00%): wake at VIT 1",
        "<0.01%: 3 rare results, wake at VIT 2 … wake at VIT 5",
        "25.00%: wake at VIT 3",
        "1/4 (25.00%): wake at VIT 6",
    ]
