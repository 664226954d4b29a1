"""The recovery roll and the exact odds of rules/odds.py agree, die face by die face.

Every possible sequence of faces is fed to `recover` through ScriptedRandom; the resulting
distribution of (VIT, state) must equal `recovery_odds` exactly (R-1..R-6, D-2, D-3).
"""

from __future__ import annotations

from collections import defaultdict
from fractions import Fraction
from itertools import product

import pytest

from rules.dice import ScriptedRandom
from rules.models import CriticalBleed, GuildSettings, Sheet, State
from rules.odds import recovery_odds
from rules.vitality import recover
from tests.rules.conftest import make


def enumerate_recover(sheet: Sheet, settings: GuildSettings) -> dict[tuple[int, State], Fraction]:
    size = len(settings.die_faces)
    dice = sheet.recovery_dice
    result: dict[tuple[int, State], Fraction] = defaultdict(Fraction)
    for first in product(range(size), repeat=dice):
        misses = sum(settings.die_faces[i] == "M" for i in first) if sheet.advantage else 0
        for again in product(range(size), repeat=misses):
            rng = ScriptedRandom([*first, *again])
            after = recover(sheet, settings, rng, in_combat=True, by_gm=False).after
            assert rng.remaining == 0
            result[(after.vit, after.state)] += Fraction(1, size ** (dice + misses))
    return dict(result)


@pytest.mark.parametrize(
    "fields",
    [
        {"vit": 0, "res": 3},
        {"vit": 0, "res": 3, "advantage": True},
        {"vit": 0, "res": 2, "max_vit": 1},
        {"vit": 0, "res": 2, "stress": 1},
        {"vit": -1, "res": 3},
        {"vit": -1, "res": 4, "advantage": True},
        {"vit": -2, "res": 2},
        {"vit": -2, "res": 2, "advantage": True},
        {"vit": 0, "res": 0},
    ],
)
@pytest.mark.parametrize(
    "settings",
    [
        GuildSettings(),
        GuildSettings(die_faces="MHC", critical_bleed=CriticalBleed.NO_CRIT),
        GuildSettings(die_faces="MMMMC", critical_bleed=CriticalBleed.NEVER),
    ],
)
def test_R_6_recover_matches_the_exact_odds(fields, settings):
    sheet = make(**fields)
    odds = recovery_odds(sheet, settings)
    expected = {(o.vit, o.state): o.probability for o in odds.outcomes(sheet.advantage)}
    assert enumerate_recover(sheet, settings) == expected
