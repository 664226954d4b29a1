"""The recovery roll and the exact odds of rules/odds.py agree, die face by die face.

Every possible sequence of faces is fed to `recover` through ScriptedRandom; the resulting
distribution of (VIT, state) must equal `recovery_odds` exactly (R-1..R-6, D-2, D-3), under
every setting that changes a recovery roll or what follows it (R-4, R-6, V-6, V-8), and with
Stress, so that waking retires exactly where `recover` retires (E-7).
"""

from __future__ import annotations

from collections import defaultdict
from fractions import Fraction
from itertools import product

import pytest

from rules.dice import ScriptedRandom
from rules.models import CriticalBleed, GuildSettings, Sheet, State
from rules.odds import recovery_odds, spiral
from rules.vitality import advantage_applies, recover
from tests.rules.conftest import make


def enumerate_after(
    sheet: Sheet, settings: GuildSettings, *, in_combat: bool = True, by_gm: bool = False
) -> dict[Sheet, Fraction]:
    """The sheet `recover` leaves after each possible sequence of faces, and its chance."""
    size = len(settings.die_faces)
    dice = sheet.recovery_dice
    rerolled = advantage_applies(sheet.advantage, sheet.state, settings)
    result: dict[Sheet, Fraction] = defaultdict(Fraction)
    for first in product(range(size), repeat=dice):
        misses = sum(settings.die_faces[i] == "M" for i in first) if rerolled else 0
        for again in product(range(size), repeat=misses):
            rng = ScriptedRandom([*first, *again])
            after = recover(sheet, settings, rng, in_combat=in_combat, by_gm=by_gm).after
            assert rng.remaining == 0
            result[after] += Fraction(1, size ** (dice + misses))
    return dict(result)


def enumerate_recover(sheet: Sheet, settings: GuildSettings) -> dict[tuple[int, State], Fraction]:
    result: dict[tuple[int, State], Fraction] = defaultdict(Fraction)
    for after, p in enumerate_after(sheet, settings).items():
        result[(after.vit, after.state)] += p
    return dict(result)


SHEETS = [
    {"vit": 0, "res": 3},
    {"vit": 0, "res": 3, "advantage": True},
    {"vit": 0, "res": 2, "max_vit": 1},
    {"vit": 0, "res": 2, "stress": 1},
    {"vit": 0, "res": 3, "stress": 2, "advantage": True},
    {"vit": -1, "res": 3, "stress": 1},
    {"vit": -1, "res": 4, "stress": 2, "advantage": True},
    {"vit": -2, "res": 2, "stress": 1},
    {"vit": -1, "res": 3},
    {"vit": -1, "res": 4, "advantage": True},
    {"vit": -1, "res": 2, "advantage": True},
    {"vit": -2, "res": 2},
    {"vit": -2, "res": 2, "advantage": True},
    {"vit": 0, "res": 0},
    {"vit": 0, "res": 0, "advantage": True},
]
SETTINGS = [
    GuildSettings(),
    GuildSettings(die_faces="MHC", critical_bleed=CriticalBleed.NO_CRIT),
    GuildSettings(die_faces="MMMMC", critical_bleed=CriticalBleed.NEVER),
    GuildSettings(last_gasp_advantage="no"),
    GuildSettings(dying_damage="kills", critical_bleed="no_crit"),
]


@pytest.mark.parametrize("fields", SHEETS)
@pytest.mark.parametrize("settings", SETTINGS)
def test_R_6_recover_matches_the_exact_odds(fields, settings):
    sheet = make(**fields)
    odds = recovery_odds(sheet, settings)
    expected = {(o.vit, o.state): o.probability for o in odds.outcomes(sheet.advantage)}
    assert enumerate_recover(sheet, settings) == expected


@pytest.mark.parametrize("fields", [f for f in SHEETS if f["vit"] == 0 or f["res"] + f["vit"] <= 0])
def test_V_6_instant_recover_matches_the_exact_odds_without_a_bleed(fields):
    """Unconscious and Dying rolls never lose VIT: `instant` changes nothing there."""
    settings = GuildSettings(death_rule="instant")
    sheet = make(**fields)
    expected = {
        (o.vit, o.state): o.probability
        for o in recovery_odds(sheet, settings).outcomes(sheet.advantage)
    }
    assert enumerate_recover(sheet, settings) == expected


@pytest.mark.parametrize(
    "settings",
    [
        GuildSettings(death_rule="instant"),
        GuildSettings(death_rule="instant", critical_bleed="no_crit"),
    ],
)
def test_V_6_instant_recover_matches_the_exact_odds_of_a_critical_roll(settings):
    sheet = make(vit=-1, res=3)
    expected = {(o.vit, o.state): o.probability for o in recovery_odds(sheet, settings).normal}
    assert enumerate_recover(sheet, settings) == expected


def test_R_6_no_the_spiral_carries_unused_advantage_past_a_last_gasp():
    """With `last_gasp_advantage: no` the Last Gasp is plain (1/6) and the advantage waits for
    the Unconscious roll after it: 1 - (3/4)^2 = 7/16 to wake there, with 2 dice."""
    sheet = make(vit=-2, res=2, advantage=True)
    steps = spiral(sheet, GuildSettings(last_gasp_advantage="no"), rolls=2)
    assert steps[0].dead == Fraction(5, 6)
    assert steps[1].up == Fraction(1, 6) * Fraction(7, 16)
    used = spiral(sheet, GuildSettings(), rolls=2)
    assert used[0].dead == Fraction(3, 4)
    assert used[1].up == Fraction(1, 4) * Fraction(11, 36)


def test_R_6_no_the_spiral_agrees_with_two_scripted_recoveries():
    """Every face of a Last Gasp and of the roll after it, fed to `recover`: the chance to be Up
    after two rolls equals the spiral's."""
    settings = GuildSettings(last_gasp_advantage="no")
    sheet = make(vit=-2, res=2, advantage=True)
    up = Fraction(0)
    for gasp in range(6):
        first = recover(sheet, settings, ScriptedRandom([gasp]), in_combat=False, by_gm=True)
        if not first.after.state.is_down:
            continue
        results = enumerate_recover(first.after, settings)
        up += Fraction(1, 6) * sum(
            (p for (_, state), p in results.items() if state is State.UP), Fraction(0)
        )
    assert spiral(sheet, settings, rolls=2)[1].up == up


def after_rolls(sheet: Sheet, settings: GuildSettings, rolls: int) -> dict[State | None, Fraction]:
    """Every face of `rolls` recovery rolls in a row (the GM calling each, outside combat), fed
    to `recover`: the chance of each end it reaches, and of still being down (None)."""
    ends: dict[State | None, Fraction] = defaultdict(Fraction)
    chain = {sheet: Fraction(1)}
    for _ in range(rolls):
        after: dict[Sheet, Fraction] = defaultdict(Fraction)
        for current, weight in chain.items():
            for sheet_after, p in enumerate_after(
                current, settings, in_combat=False, by_gm=True
            ).items():
                if sheet_after.state.is_down:
                    after[sheet_after] += weight * p
                else:
                    ends[sheet_after.state] += weight * p
        chain = after
    ends[None] = sum(chain.values(), Fraction(0))
    return dict(ends)


@pytest.mark.parametrize(
    ("fields", "settings"),
    [
        ({"vit": 0, "res": 2, "stress": 1}, GuildSettings()),  # issue 21's character
        ({"vit": -1, "res": 3, "stress": 1, "advantage": True}, GuildSettings()),
        ({"vit": -2, "res": 3, "stress": 2}, GuildSettings()),  # a Last Gasp first
        ({"vit": -1, "res": 2, "stress": 1}, GuildSettings(die_faces="MHC")),
        (
            {"vit": -2, "res": 2, "stress": 1, "advantage": True},
            GuildSettings(last_gasp_advantage="no"),
        ),
    ],
)
def test_E_7_the_spiral_retires_where_three_scripted_recoveries_do(fields, settings):
    """Up, still down, Dead and Retired after each of three rolls: the spiral's exact chances
    equal those of `recover` fed every face, roll after roll (E-7 on waking, R-6's advantage)."""
    sheet = make(**fields)
    steps = spiral(sheet, settings, rolls=3)
    for rolls, step in enumerate(steps, start=1):
        seen = after_rolls(sheet, settings, rolls)
        assert seen.get(State.UP, 0) == step.up
        assert seen.get(State.DEAD, 0) == step.dead
        assert seen.get(State.RETIRED, 0) == step.retired
        assert seen[None] == step.down
    assert steps[-1].retired > 0
