"""Exact recovery odds (rules/odds.py), checked by hand and against the real roll functions."""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter
from fractions import Fraction as F

import pytest

from rules import odds, vitality
from rules.condition import must_retire
from rules.errors import RuleError
from rules.models import CriticalBleed, GuildSettings, Sheet, State

DEFAULT = GuildSettings()


def sheet(vit: int, res: int = 2, **fields: object) -> Sheet:
    return Sheet(name="Roryn", owner_id=1, vit=vit, res=res, **fields)


def table(result: tuple[odds.RecoveryOutcome, ...]) -> list[tuple[str, F, int, State]]:
    return [(o.label, o.probability, o.vit, o.state) for o in result]


# Per die (D-2, D-3) ----------------------------------------------------------------------


def test_D_2_default_die_face_odds() -> None:
    assert odds.die_odds("MMMHHC") == odds.DieOdds(miss=F(1, 2), hit=F(1, 3), crit=F(1, 6))


def test_D_3_advantage_rerolls_each_miss_once() -> None:
    # crit' = 1/6 + 3/6 * 1/6 = 1/4; hit' = 2/6 + 3/6 * 2/6 = 1/2; miss' = (1/2)^2 = 1/4
    die = odds.die_odds("MMMHHC", advantage=True)
    assert die == odds.DieOdds(miss=F(1, 4), hit=F(1, 2), crit=F(1, 4))


def test_D_2_guild_faces_change_the_odds() -> None:
    assert odds.die_odds("MC") == odds.DieOdds(miss=F(1, 2), hit=F(0), crit=F(1, 2))
    assert odds.die_odds("HHC", advantage=True) == odds.DieOdds(
        miss=F(0), hit=F(2, 3), crit=F(1, 3)
    )


def test_crit_counts_are_binomial() -> None:
    die = odds.die_odds("MMMHHC")
    assert odds.crit_counts(2, die) == [F(25, 36), F(10, 36), F(1, 36)]
    assert odds.crit_counts(0, die) == [F(1)]


# The next recovery roll (R-1..R-6) ---------------------------------------------------------


def test_R_5_last_gasp_with_the_default_die_is_one_in_six() -> None:
    result = odds.recovery_odds(sheet(vit=-2, res=2), DEFAULT)
    assert result.state is State.DYING
    assert result.dice == 1
    assert table(result.normal) == [
        ("Dead", F(5, 6), -2, State.DEAD),
        ("stabilise at VIT 0, now Unconscious", F(1, 6), 0, State.UNCONSCIOUS),
    ]
    assert result.chance(State.UNCONSCIOUS) == F(1, 6)
    # advantage counts for the Last Gasp too.
    assert result.chance(State.UNCONSCIOUS, advantage=True) == F(1, 4)
    assert result.chance(State.DEAD, advantage=True) == F(3, 4)


def test_R_6_no_advantage_never_changes_the_last_gasp_odds() -> None:
    plain = GuildSettings(last_gasp_advantage="no")
    result = odds.recovery_odds(sheet(vit=-2, res=2), plain)
    assert result.advantage == result.normal
    assert result.chance(State.UNCONSCIOUS, advantage=True) == F(1, 6)
    # the other rolls still take it
    unconscious = odds.recovery_odds(sheet(vit=0, res=2), plain)
    assert unconscious.chance(State.UP, advantage=True) == F(7, 16)


def test_R_5_V_4_last_gasp_with_res_0_stabilises_but_stays_dying() -> None:
    result = odds.recovery_odds(sheet(vit=0, res=0), DEFAULT)
    assert table(result.normal) == [
        ("Dead", F(5, 6), 0, State.DEAD),
        ("stabilise at VIT 0, still Dying", F(1, 6), 0, State.DYING),
    ]


def test_R_1_R_2_two_dice_wake_with_at_least_one_crit_11_in_36() -> None:
    result = odds.recovery_odds(sheet(vit=0, res=2), DEFAULT)
    assert result.state is State.UNCONSCIOUS
    assert result.dice == 2
    assert table(result.normal) == [
        ("no change", F(25, 36), 0, State.UNCONSCIOUS),
        ("wake at VIT 1", F(10, 36), 1, State.UP),
        ("wake at VIT 2", F(1, 36), 2, State.UP),
    ]
    assert result.chance(State.UP) == F(11, 36)
    assert table(result.advantage) == [
        ("no change", F(9, 16), 0, State.UNCONSCIOUS),
        ("wake at VIT 1", F(6, 16), 1, State.UP),
        ("wake at VIT 2", F(1, 16), 2, State.UP),
    ]


def test_R_2_waking_is_capped_at_max_vit() -> None:
    result = odds.recovery_odds(sheet(vit=0, res=3, max_vit=1, stamina=8), DEFAULT)
    assert table(result.normal) == [
        ("no change", F(125, 216), 0, State.UNCONSCIOUS),
        ("wake at VIT 1", F(91, 216), 1, State.UP),
    ]


@pytest.mark.parametrize(
    ("bleed", "lose", "stay"),
    [
        (CriticalBleed.ALL_MISS, F(1, 4), F(4, 9)),  # both dice Miss: (1/2)^2
        (CriticalBleed.NO_CRIT, F(25, 36), F(0)),  # no Crit: (5/6)^2
        (CriticalBleed.NEVER, F(0), F(25, 36)),
    ],
)
def test_R_3_R_4_critical_roll_by_bleed_setting(bleed: CriticalBleed, lose: F, stay: F) -> None:
    result = odds.recovery_odds(sheet(vit=-1, res=3), GuildSettings(critical_bleed=bleed))
    assert result.state is State.CRITICAL
    assert result.dice == 2
    expected = [
        ("lose 1 VIT, still Critical", lose, -2, State.CRITICAL),
        ("no change", stay, -1, State.CRITICAL),
        ("stabilise at VIT 0, now Unconscious", F(10, 36), 0, State.UNCONSCIOUS),
        ("wake at VIT 1", F(1, 36), 1, State.UP),
    ]
    assert table(result.normal) == [row for row in expected if row[1]]


def test_R_3_critical_with_advantage() -> None:
    result = odds.recovery_odds(sheet(vit=-1, res=3), DEFAULT)
    assert table(result.advantage) == [
        ("lose 1 VIT, still Critical", F(1, 16), -2, State.CRITICAL),  # (1/4)^2
        ("no change", F(9, 16) - F(1, 16), -1, State.CRITICAL),
        ("stabilise at VIT 0, now Unconscious", F(6, 16), 0, State.UNCONSCIOUS),
        ("wake at VIT 1", F(1, 16), 1, State.UP),
    ]


def test_R_4_losing_the_last_recovery_die_means_dying() -> None:
    result = odds.recovery_odds(sheet(vit=-1, res=2), DEFAULT)
    assert table(result.normal) == [
        ("lose 1 VIT, now Dying", F(1, 2), -2, State.DYING),
        ("no change", F(1, 3), -1, State.CRITICAL),
        ("stabilise at VIT 0, now Unconscious", F(1, 6), 0, State.UNCONSCIOUS),
    ]


def test_R_3_many_crits_wake_capped_at_max_vit() -> None:
    result = odds.recovery_odds(sheet(vit=-1, res=4, max_vit=1, stamina=8), DEFAULT)
    up = [o for o in result.normal if o.state is State.UP]
    assert len(up) == 1
    assert up[0].vit == 1
    assert up[0].probability == 1 - F(5, 6) ** 3 - 3 * F(1, 6) * F(5, 6) ** 2


RETIRES = "now Retired (Stress ≥ VIT, E-7)"


def test_E_7_waking_with_stress_at_or_above_vit_retires() -> None:
    result = odds.recovery_odds(sheet(vit=0, res=3, stress=2), DEFAULT)
    assert [(o.label, o.vit, o.state) for o in result.normal] == [
        ("no change", 0, State.UNCONSCIOUS),
        (f"wake at VIT 1, {RETIRES}", 1, State.RETIRED),
        (f"wake at VIT 2, {RETIRES}", 2, State.RETIRED),
        ("wake at VIT 3", 3, State.UP),
    ]


def test_E_7_stress_1_at_vit_0_retires_on_waking_at_vit_1_and_never_dies() -> None:
    """Issue 21: RES 2, Stress 1. One Crit wakes at VIT 1, where Stress 1 ≥ VIT 1: Retired
    (10/36); two wake at VIT 2: Up (1/36). An Unconscious roll cannot kill."""
    result = odds.recovery_odds(sheet(vit=0, res=2, stress=1), DEFAULT)
    assert table(result.normal) == [
        ("no change", F(25, 36), 0, State.UNCONSCIOUS),
        (f"wake at VIT 1, {RETIRES}", F(10, 36), 1, State.RETIRED),
        ("wake at VIT 2", F(1, 36), 2, State.UP),
    ]
    assert table(result.advantage) == [  # D-3: a Crit 1/4 a die
        ("no change", F(9, 16), 0, State.UNCONSCIOUS),
        (f"wake at VIT 1, {RETIRES}", F(6, 16), 1, State.RETIRED),
        ("wake at VIT 2", F(1, 16), 2, State.UP),
    ]
    assert result.chance(State.DEAD) == 0
    assert result.chance(State.RETIRED) == F(5, 18)


def test_E_7_spiral_of_stress_1_at_vit_0_retires_ten_times_in_eleven() -> None:
    """Each roll ends the wait with 11/36: 10 of those 11 retire, 1 wakes Up; none dies."""
    for step in odds.spiral(sheet(vit=0, res=2, stress=1), DEFAULT, rolls=10):
        ended = 1 - F(25, 36) ** step.roll
        assert step.down == F(25, 36) ** step.roll
        assert step.retired == ended * F(10, 11)
        assert step.up == ended * F(1, 11)
        assert step.dead == 0


def test_E_7_a_critical_roll_that_wakes_can_retire() -> None:
    """R-3: VIT -1, RES 4: 3 dice; 2 Crits give VIT 1 (Stress 1 ≥ 1: Retired), 3 give VIT 2."""
    result = odds.recovery_odds(sheet(vit=-1, res=4, stress=1), DEFAULT)
    by_state = {(o.vit, o.state): o.probability for o in result.normal}
    assert by_state[(1, State.RETIRED)] == 3 * F(1, 6) ** 2 * F(5, 6)
    assert by_state[(2, State.UP)] == F(1, 6) ** 3
    assert (1, State.UP) not in by_state


@pytest.mark.parametrize("stress", [0, 1, 2, 3, 5])
def test_E_7_the_odds_retire_exactly_where_the_rules_do(stress: int) -> None:
    """A woken outcome is Retired exactly when `must_retire` (the check `finish` makes after a
    recovery roll) says so for its VIT."""
    character = sheet(vit=0, res=5, stress=stress)
    for outcome in odds.recovery_odds(character, DEFAULT).normal:
        if outcome.state in (State.UP, State.RETIRED):
            retires = must_retire(character.update(vit=outcome.vit))
            assert (outcome.state is State.RETIRED) == retires, outcome


@pytest.mark.parametrize(
    "character",
    [
        sheet(vit=3),
        sheet(vit=0, dead=True),
        sheet(vit=1, stress=1, retired=True),
    ],
)
def test_odds_are_refused_for_a_character_that_is_not_down(character: Sheet) -> None:
    with pytest.raises(RuleError, match="Unconscious, Critical or Dying"):
        odds.recovery_odds(character, DEFAULT)
    with pytest.raises(RuleError, match="Unconscious, Critical or Dying"):
        odds.spiral(character, DEFAULT)


SHEETS = [
    sheet(vit=0, res=1),
    sheet(vit=0, res=5),
    sheet(vit=-1, res=2),
    sheet(vit=-2, res=6),
    sheet(vit=-4, res=3),
    sheet(vit=0, res=0),
    sheet(vit=0, res=4, stress=3),
    sheet(vit=-3, res=20, max_vit=5, stamina=8),
]
SETTINGS = [
    GuildSettings(),
    GuildSettings(die_faces="MHC", critical_bleed=CriticalBleed.NO_CRIT),
    GuildSettings(die_faces="HC", critical_bleed=CriticalBleed.NEVER),
    GuildSettings(die_faces="MMMMMMMMMMMMMMMMMMMC"),
]


@pytest.mark.parametrize("settings", SETTINGS)
@pytest.mark.parametrize("character", SHEETS)
def test_outcomes_are_distinct_and_sum_to_one(character: Sheet, settings: GuildSettings) -> None:
    result = odds.recovery_odds(character, settings)
    for advantage in (False, True):
        outcomes = result.outcomes(advantage)
        assert sum(o.probability for o in outcomes) == 1
        assert all(o.probability > 0 for o in outcomes)
        assert len({(o.vit, o.state) for o in outcomes}) == len(outcomes)
    # Advantage never makes a Crit less likely, so never makes death more likely.
    assert result.chance(State.DEAD, advantage=True) <= result.chance(State.DEAD)


# The spiral: a Markov chain over VIT ---------------------------------------------------------


def test_spiral_unconscious_wakes_geometrically() -> None:
    steps = odds.spiral(sheet(vit=0, res=2), DEFAULT, rolls=10)
    assert [s.roll for s in steps] == list(range(1, 11))
    for step in steps:
        assert step.up == 1 - F(25, 36) ** step.roll
        assert step.down == F(25, 36) ** step.roll
        assert (step.dead, step.retired) == (0, 0)


def test_R_5_spiral_from_dying() -> None:
    steps = odds.spiral(sheet(vit=-2, res=2), DEFAULT, rolls=3)
    assert (steps[0].up, steps[0].down, steps[0].dead) == (0, F(1, 6), F(5, 6))
    # Then Unconscious at VIT 0 with RES 2: 11/36 to wake on each roll.
    assert steps[1].up == F(1, 6) * F(11, 36)
    assert steps[2].up == F(1, 6) * (1 - F(25, 36) ** 2)
    assert steps[2].dead == F(5, 6)


def test_R_6_advantage_counts_for_the_first_roll_only() -> None:
    plain = sheet(vit=0, res=2)
    aided = sheet(vit=0, res=2, advantage=True)
    with_flag = odds.spiral(aided, DEFAULT, rolls=2)
    assert with_flag == odds.spiral(plain, DEFAULT, rolls=2, advantage_first=True)
    assert with_flag[0].up == F(7, 16)
    assert with_flag[1].up == 1 - F(9, 16) * F(25, 36)
    assert odds.spiral(aided, DEFAULT, rolls=2, advantage_first=False) == odds.spiral(
        plain, DEFAULT, rolls=2
    )


def test_R_4_spiral_from_critical_by_hand() -> None:
    # VIT -1, RES 2: one die. M: VIT -2 (Dying), H: stays, C: VIT 0 (Unconscious).
    steps = odds.spiral(sheet(vit=-1, res=2), DEFAULT, rolls=2)
    assert (steps[0].up, steps[0].down, steps[0].dead) == (0, 1, 0)
    # Roll 2: Dying (1/2) dies with 5/6; Unconscious (1/6) wakes with 11/36.
    assert steps[1].dead == F(1, 2) * F(5, 6)
    assert steps[1].up == F(1, 6) * F(11, 36)


def test_E_7_spiral_counts_retirement_apart() -> None:
    steps = odds.spiral(sheet(vit=0, res=1, stress=1), DEFAULT, rolls=2)
    assert (steps[0].up, steps[0].retired) == (0, F(1, 6))
    assert steps[1].retired == 1 - F(25, 36)


@pytest.mark.parametrize("settings", SETTINGS)
@pytest.mark.parametrize("character", SHEETS)
def test_spiral_sums_to_one_and_only_moves_one_way(
    character: Sheet, settings: GuildSettings
) -> None:
    steps = odds.spiral(character, settings, rolls=10)
    assert len(steps) == 10
    for before, after in itertools.pairwise(steps):
        assert after.up >= before.up
        assert after.dead >= before.dead
        assert after.retired >= before.retired
    for step in steps:
        assert step.up + step.down + step.dead + step.retired == 1


@pytest.mark.parametrize("rolls", [0, -1, odds.MAX_SPIRAL_ROLLS + 1])
def test_spiral_length_is_checked(rolls: int) -> None:
    with pytest.raises(RuleError, match="1 to 50"):
        odds.spiral(sheet(vit=0), DEFAULT, rolls=rolls)


# Agreement with the real roll functions -----------------------------------------------------


def _close(count: int, runs: int, p: F) -> bool:
    """Within 4 standard errors of the exact chance (plus a hair for p = 0 or 1)."""
    error = math.sqrt(float(p) * (1 - float(p)) / runs)
    return abs(count / runs - float(p)) <= 4 * error + 1e-9


@pytest.mark.parametrize(
    ("character", "settings"),
    [
        (sheet(vit=0, res=3), DEFAULT),
        (sheet(vit=-1, res=3), DEFAULT),
        (sheet(vit=-1, res=3, advantage=True), GuildSettings(critical_bleed="no_crit")),
        (sheet(vit=-2, res=2, advantage=True), DEFAULT),
        (sheet(vit=0, res=4, stress=2), GuildSettings(die_faces="MHHC")),
    ],
)
def test_exact_odds_agree_with_recover_monte_carlo(
    character: Sheet, settings: GuildSettings
) -> None:
    runs = 20_000
    rng = random.Random(20261129)
    seen = Counter()
    for _ in range(runs):
        after = vitality.recover(character, settings, rng, in_combat=False, by_gm=True).after
        seen[(after.vit, after.state)] += 1
    exact = odds.recovery_odds(character, settings).outcomes(character.advantage)
    assert set(seen) <= {(o.vit, o.state) for o in exact}
    for outcome in exact:
        count = seen[(outcome.vit, outcome.state)]
        assert _close(count, runs, outcome.probability), (outcome, count / runs)


@pytest.mark.parametrize(
    ("character", "settings"),
    [
        (sheet(vit=-1, res=3, advantage=True), DEFAULT),
        (sheet(vit=-1, res=2, stress=1), GuildSettings(critical_bleed="no_crit")),
    ],
)
def test_spiral_agrees_with_repeated_recover_monte_carlo(
    character: Sheet, settings: GuildSettings
) -> None:
    runs, rolls = 10_000, 6
    rng = random.Random(7)
    ends = [Counter() for _ in range(rolls)]
    for _ in range(runs):
        current = character
        for roll in range(rolls):
            if current.state.is_down:
                current = vitality.recover(
                    current, settings, rng, in_combat=False, by_gm=True
                ).after
            state = current.state
            ends[roll]["down" if state.is_down else state.value] += 1
    for step, seen in zip(odds.spiral(character, settings, rolls=rolls), ends, strict=True):
        assert sum(seen.values()) == runs
        for name, p in [
            ("Up", step.up),
            ("down", step.down),
            ("Dead", step.dead),
            ("Retired", step.retired),
        ]:
            assert _close(seen[name], runs, p), (step, name, seen[name] / runs)
