"""Dice expressions (rules/notation.py): parsing, caps, rolling with an injected rng (D-5)."""

from __future__ import annotations

import random
import time

import pytest
from d20 import diceast

from rules import notation
from rules.errors import RuleError
from rules.models import GuildSettings


class Script(random.Random):
    """Returns the scripted faces in order and records each (low, high) asked for."""

    def __init__(self, *faces: int) -> None:
        super().__init__(0)
        self.faces = list(faces)
        self.asked: list[tuple[int, int]] = []

    def randint(self, a: int, b: int) -> int:
        self.asked.append((a, b))
        face = self.faces.pop(0)
        assert a <= face <= b, f"scripted face {face} outside {a}..{b}"
        return face


def test_parse_returns_the_d20_ast() -> None:
    tree = notation.parse("1d8+2")
    assert isinstance(tree, diceast.Expression)
    assert isinstance(tree.roll, diceast.BinOp)
    assert tree.roll.op == "+"


@pytest.mark.parametrize(
    ("expr", "faces", "dice", "kept", "total"),
    [
        ("1d10", (7,), (7,), (True,), 7),
        ("1d8+2", (3,), (3,), (True,), 5),
        ("1d20-1", (1,), (1,), (True,), 0),
        ("2d6kh1", (2, 5), (2, 5), (False, True), 5),
        ("2d6kl1", (2, 5), (2, 5), (True, False), 2),
        ("2d6kh1", (4, 4), (4, 4), (True, False), 4),  # a tie keeps the earlier die
        ("4d6ph1", (3, 6, 1, 2), (3, 6, 1, 2), (True, False, True, True), 6),
        ("4d6pl1", (3, 6, 1, 2), (3, 6, 1, 2), (True, True, False, True), 11),
        ("4d6kh3pl1", (3, 6, 1, 2), (3, 6, 1, 2), (True, True, False, False), 9),
        ("-(1d4)*2", (3,), (3,), (True,), -6),
        ("(1d4+1)*(1d6-2)", (2, 1), (2, 1), (True, True), -3),
        ("+5", (), (), (), 5),
        ("2D6 + 1", (1, 6), (1, 6), (True, True), 8),
        ("1d%", (73,), (73,), (True,), 73),
    ],
)
def test_roll_exact_with_scripted_faces(
    expr: str,
    faces: tuple[int, ...],
    dice: tuple[int, ...],
    kept: tuple[bool, ...],
    total: int,
) -> None:
    rng = Script(*faces)
    result = notation.roll(expr, rng, label="Check")
    assert result.dice == dice
    assert result.kept == kept
    assert result.total == total
    assert result.expression == expr.strip()
    assert result.label == "Check"
    assert not result.manual
    assert rng.faces == []


def test_roll_asks_the_rng_for_each_die_size_left_to_right() -> None:
    rng = Script(1, 2, 3)
    notation.roll("1d4 + 2d12", rng, label="x")
    assert rng.asked == [(1, 4), (1, 12), (1, 12)]


def test_roll_adds_the_bonuses_and_compares_with_the_target() -> None:
    result = notation.roll("1d8", Script(5), label="Push", bonuses=[("push", 3)], target=8)
    assert (result.value, result.total, result.modifier) == (5, 8, 3)
    assert (result.bonuses, result.target, result.success) == ((("push", 3),), 8, True)
    miss = notation.roll("1d8", Script(4), label="Push", bonuses=[("push", 3)], target=8)
    assert (miss.total, miss.success) == (7, False)
    plain = notation.roll("1d8", Script(4), label="Push")
    assert (plain.bonuses, plain.modifier, plain.success) == ((), 0, None)


def test_roll_keeps_every_bonus_apart_and_drops_the_zero_ones() -> None:
    bonuses = [("push", 2), ("injury", -3), ("daily bonus", 0), ("Insight", 1)]
    result = notation.roll("1d10+1", Script(6), label="Check", bonuses=bonuses)
    assert result.value == 7  # the expression alone, its own +1 included
    assert result.bonuses == (("push", 2), ("injury", -3), ("Insight", 1))
    assert result.total == 7 + 2 - 3 + 1
    assert result.modifier == result.total - result.value


def test_roll_is_replayable_from_a_seed() -> None:
    first = notation.roll("3d10kh2+1", random.Random(42), label="x")
    second = notation.roll("3d10kh2+1", random.Random(42), label="x")
    assert first == second
    expected = random.Random(42)
    faces = tuple(expected.randint(1, 10) for _ in range(3))
    assert first.dice == faces
    assert first.total == sum(sorted(faces)[1:]) + 1


def test_roll_does_not_touch_the_global_random() -> None:
    random.seed(7)
    before = random.getstate()
    notation.roll("10d20", random.Random(1), label="x")
    assert random.getstate() == before


@pytest.mark.parametrize(
    ("expr", "low", "high"),
    [
        ("1d10", 1, 10),
        ("1d8+2", 3, 10),
        ("1d20-1", 0, 19),
        ("2d6kh1", 1, 6),
        ("4d6kh3", 3, 18),
        ("4d6pl1", 3, 18),
        ("3d6kh5", 3, 18),
        ("3d6ph5", 0, 0),
        ("-1d4", -4, -1),
        ("+1d4", 1, 4),
        ("1d6-1d4", -3, 5),
        ("(1d4-2)*(1d4-2)", -2, 4),
        ("2*3", 6, 6),
    ],
)
def test_bounds(expr: str, low: int, high: int) -> None:
    assert notation.bounds(expr) == (low, high)


@pytest.mark.parametrize(
    "expr",
    [
        "1000000d1000000",
        "101d6",
        "60d6 + 41d6",
        "1d1001",
        "100d1000 * 100d1000",
        "1" * 101,
        "1d6+" + "1+" * 50 + "1",
    ],
)
def test_caps_are_refused_before_rolling(expr: str) -> None:
    rng = Script()  # any roll would fail: no faces scripted
    start = time.perf_counter()
    with pytest.raises(RuleError, match="try something like 1d10"):
        notation.roll(expr, rng, label="x")
    assert time.perf_counter() - start < 0.5
    assert rng.asked == []


def test_exactly_at_the_caps_is_allowed() -> None:
    assert notation.bounds("100d1000") == (100, 100_000)
    assert notation.bounds("50d6+50d6") == (100, 600)
    longest = "1d6" + "+1" * 47 + "+11"
    assert len(longest) == 100
    assert notation.bounds(longest) == (59, 64)
    assert notation.bounds(f"  {longest}\n") == (59, 64)  # length counts after trimming


@pytest.mark.parametrize(
    ("expr", "message"),
    [
        ("", "empty"),
        ("   ", "empty"),
        ("abc", "not a dice expression"),
        ("1d6+", "not a dice expression"),
        ("d", "not a dice expression"),
        ("1d6`", "not a dice expression"),
        ("1d6/2", "operator / is not"),
        ("1d6//2", "operator // is not"),
        ("1d6%2", "operator % is not"),
        ("1d20>=10", "operator >= is not"),
        ("1.5+1d6", "whole numbers"),
        ("1d6rr1", "rr"),
        ("1d6e6", "e"),
        ("1d6mi2", "mi"),
        ("2d6k6", "one kh/kl/ph/pl"),
        ("2d6k>3", "one kh/kl/ph/pl"),
        ("2d6kh1kl1", "one kh/kl/ph/pl"),
        ("(1, 2, 3)kh1", "not supported"),
        ("(1d6)kh1", "not supported"),
        ("1d6 [fire]", "not supported"),
        ("0d6", "at least 1 die"),
        ("1d0", "at least 1 side"),
        ("2000000", "Numbers above"),
        ("1000000*1000000", "Totals beyond"),
    ],
)
def test_bad_expressions_are_refused(expr: str, message: str) -> None:
    with pytest.raises(RuleError, match=message) as caught:
        notation.parse(expr)
    assert str(caught.value).endswith("try something like 1d10+2.")


def test_a_non_string_is_refused() -> None:
    with pytest.raises(RuleError, match="empty"):
        notation.parse(None)  # type: ignore[arg-type]


def test_manual_result_within_the_range() -> None:
    result = notation.manual(7, "1d8+2", label="Breakdown", bonuses=[("injury", -1)], target=6)
    assert result.manual
    assert (result.dice, result.kept) == ((7,), (True,))
    assert (result.value, result.total, result.modifier, result.success) == (7, 6, -1, True)
    assert result.bonuses == (("injury", -1),)
    assert result.expression == "1d8+2"
    assert notation.manual(3, "1d8+2", label="x").total == 3
    assert notation.manual(10, "1d8+2", label="x").total == 10


def test_manual_refusal_passes_the_typed_values_apart() -> None:
    with pytest.raises(RuleError) as caught:
        notation.manual(11, " 1d8+2 ", label="x")
    assert caught.value.values == {"value": 11, "expr": "1d8+2", "low": 3, "high": 10}


@pytest.mark.parametrize("value", [2, 11, -1])
def test_manual_result_outside_the_range_is_refused(value: int) -> None:
    with pytest.raises(RuleError, match="from 3 to 10"):
        notation.manual(value, "1d8+2", label="x")


@pytest.mark.parametrize("value", [True, 3.0, "4"])
def test_manual_result_must_be_a_whole_number(value: object) -> None:
    with pytest.raises(RuleError, match="whole number"):
        notation.manual(value, "1d8+2", label="x")  # type: ignore[arg-type]


def test_manual_refuses_a_bad_expression() -> None:
    with pytest.raises(RuleError, match="try something like"):
        notation.manual(3, "1d6/2", label="x")


def test_E_8_guild_reaction_die_is_validated_with_parse() -> None:
    assert GuildSettings(reaction_die=" 2d10kl1 ").reaction_die == "2d10kl1"
    with pytest.raises(ValueError, match="not supported"):
        GuildSettings(reaction_die="1d10rr1")
    with pytest.raises(ValueError, match="At most 100 dice"):
        GuildSettings(reaction_die="1000000d1000000")


def test_manual_refusal_renders_the_typed_expression_escaped() -> None:
    with pytest.raises(RuleError) as caught:
        notation.manual(9, "1d6", label="x")
    assert caught.value.render(lambda text: f"<{text}>") == (
        "<9> cannot come from <1d6>: enter a result from <1> to <6>."
    )


@pytest.mark.parametrize("typed", ["**@everyone**", "1d6 [<@1>]"])
def test_a_refused_expression_passes_the_typed_text_as_a_value(typed: str) -> None:
    with pytest.raises(RuleError) as caught:
        notation.parse(typed)
    assert typed not in caught.value.template
    assert typed in caught.value.values.values()
