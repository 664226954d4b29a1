"""Percentages round half up on the exact fraction, the same in the text and the odds chart
(issue 21, item 8): 1/32 is 3.13%, 5/8 is 63%; a possible result is never 0%, an uncertain one
never 100%."""

from __future__ import annotations

from fractions import Fraction as F

import pytest

from bot.render.common import chance, percent, short_percent


@pytest.mark.parametrize(
    ("p", "text"),
    [
        (F(1, 32), "3.13%"),  # 3.125: a float's format gives 3.12
        (F(5, 8), "62.50%"),
        (F(1, 8), "12.50%"),
        (F(1, 6), "16.67%"),
        (F(1, 3), "33.33%"),
        (F(2, 3), "66.67%"),
        (F(1, 80_000), "<0.01%"),  # 0.00125%
        (F(1, 10_000), "0.01%"),
        (F(1, 20_000), "<0.01%"),  # 0.005%: would round up to 0.01%, but is below it
        (F(9_999, 10_000), "99.99%"),
        (F(19_999, 20_000), ">99.99%"),  # 99.995%: would round to 100.00%
        (1 - F(1, 10**6), ">99.99%"),
        (F(0), "0%"),
        (F(1), "100%"),
        (F(1, 2), "50.00%"),
        (F(1, 400), "0.25%"),
        (F(1, 1600), "0.06%"),  # 0.0625
        (F(7, 1600), "0.44%"),  # 0.4375
    ],
)
def test_percent_rounds_half_up_to_hundredths(p: F, text: str) -> None:
    assert percent(p) == text


@pytest.mark.parametrize(
    ("p", "text"),
    [
        (F(5, 8), "63%"),  # 62.5: Python's round would give the even 62
        (F(1, 8), "13%"),  # 12.5
        (F(3, 8), "38%"),  # 37.5
        (F(1, 32), "3%"),  # 3.125
        (F(7, 8), "88%"),  # 87.5
        (F(1, 40), "3%"),  # 2.5: half up, not to the even 2
        (F(1, 200), "<1%"),  # 0.5%: possible, never 0%
        (F(1, 100), "1%"),
        (F(199, 200), ">99%"),  # 99.5%: uncertain, never 100%
        (F(99, 100), "99%"),
        (F(0), "0%"),
        (F(1), "100%"),
        (F(1, 6), "17%"),
    ],
)
def test_short_percent_rounds_half_up(p: F, text: str) -> None:
    assert short_percent(p) == text


def test_chance_shows_the_fraction_and_its_half_up_percentage() -> None:
    assert chance(F(1, 32)) == "1/32 (3.13%)"
    assert chance(F(5, 8)) == "5/8 (62.50%)"
    assert chance(F(1, 6**10)) == "<0.01%"  # a long fraction: the percentage alone


def test_every_hundredth_boundary_rounds_half_up() -> None:
    """Each k + 1/2 hundredth of a percent rounds to k + 1 (exact, not binary floats)."""
    for k in range(1, 9_999):
        p = (F(k) + F(1, 2)) / 10_000
        whole, part = divmod(k + 1, 100)
        assert percent(p) == f"{whole}.{part:02d}%"
