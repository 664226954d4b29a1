"""Injury condition H-3 and the shared Outcome bookkeeping."""

from __future__ import annotations

import pytest

from rules.condition import BADLY_INJURED, INJURED, NO_INJURY, action_modifier, injury
from tests.rules.conftest import make


@pytest.mark.parametrize(
    ("max_vit", "vit", "expected"),
    [
        (10, 10, NO_INJURY),
        (10, 8, NO_INJURY),  # 20%
        (10, 7, INJURED),  # exactly 30%
        (10, 4, INJURED),  # exactly 60%
        (10, 3, BADLY_INJURED),  # 70%
        (10, 0, BADLY_INJURED),
        (10, -5, BADLY_INJURED),  # below 0 counts as 0 left
        (3, 2, INJURED),  # 33%
        (7, 5, NO_INJURY),  # 28.6%
        (5, 2, INJURED),  # exactly 60%, no float error
        (1, 1, NO_INJURY),
    ],
)
def test_H_3_injury_condition_bands(max_vit, vit, expected):
    assert injury(make(max_vit=max_vit, vit=vit)) == expected


def test_H_3_injury_values():
    assert (INJURED.action, INJURED.reaction) == (-3, -1)
    assert (BADLY_INJURED.action, BADLY_INJURED.reaction) == (-8, -2)
    assert (NO_INJURY.action, NO_INJURY.reaction) == (0, 0)


def test_E_4_daily_bonus_adds_to_the_action_condition():
    assert action_modifier(make(vit=6, daily_bonus=True)) == 0
    assert action_modifier(make(daily_bonus=True)) == 3
    assert action_modifier(make(vit=1)) == -8
