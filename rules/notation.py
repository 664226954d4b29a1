"""Dice expressions (`1d10`, `1d8+2`, `2d6kh1`) for /push, /aid and the Reaction Roll die.

The `d20` library parses; we evaluate its AST ourselves because d20 rolls with the global
`random`, and every roll here must come from an injected random source (D-5).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

import d20
import lark
from d20 import diceast as ast

from rules.errors import RuleError
from rules.rolls import NumericRoll

MAX_LENGTH = 100
MAX_DICE = 100
MAX_SIDES = 1000
MAX_LITERAL = 1_000_000
MAX_TOTAL = 1_000_000_000  # keeps every total a plain 32-bit-safe integer for storage

_HINT = "try something like 1d10+2"


def _refuse(reason: str, **typed: object) -> RuleError:
    """A refusal; what the player typed goes in as a value (escaped where it is shown)."""
    return RuleError(reason + ": " + _HINT + ".", **typed)


def parse(expr: str) -> ast.Expression:
    """The checked AST of `expr`; RuleError for bad syntax, unsupported parts or the caps.

    The caps are checked on the AST, before anything is rolled, so `1000000d1000000` costs nothing.
    """
    if not isinstance(expr, str) or not expr.strip():
        raise _refuse("The dice expression is empty")
    text = expr.strip()
    if len(text) > MAX_LENGTH:
        raise _refuse(f"A dice expression has at most {MAX_LENGTH} characters")
    try:
        tree = d20.parse(text.lower())  # the grammar only knows a lower-case `d`
    except (d20.RollError, lark.exceptions.LarkError):
        raise _refuse("{typed} is not a dice expression I can read", typed=text) from None
    dice = _check(tree.roll)
    if dice > MAX_DICE:
        raise _refuse(f"At most {MAX_DICE} dice in one expression (this one has {dice})")
    low, high = _bounds(tree.roll)
    if max(abs(low), abs(high)) > MAX_TOTAL:
        raise _refuse(f"Totals beyond ±{MAX_TOTAL:,} are not allowed")
    return tree


def _check(node: ast.Node) -> int:
    """Refuse what we do not evaluate; return the number of dice the node rolls."""
    if isinstance(node, ast.Literal):
        if not isinstance(node.value, int):
            raise _refuse("Only whole numbers are allowed")
        if node.value > MAX_LITERAL:
            raise _refuse(f"Numbers above {MAX_LITERAL:,} are not allowed")
        return 0
    if isinstance(node, ast.Parenthetical | ast.UnOp):
        return _check(node.value)
    if isinstance(node, ast.BinOp):
        if node.op not in ("+", "-", "*"):
            raise _refuse("The operator {typed} is not supported (only + - *)", typed=node.op)
        return _check(node.left) + _check(node.right)
    if isinstance(node, ast.OperatedDice):
        for operation in node.operations:
            _operation(operation)
        return _check(node.value)
    if isinstance(node, ast.Dice):
        return _dice(node)
    raise _refuse("{typed} is not supported (dice, numbers, + - *, kh/kl/ph/pl)", typed=str(node))


def _dice(node: ast.Dice) -> int:
    sides = _sides(node)
    if node.num < 1:
        raise _refuse("A dice group needs at least 1 die")
    if node.num > MAX_DICE:
        raise _refuse(f"At most {MAX_DICE} dice in one expression (this one has {node.num})")
    if sides < 1:
        raise _refuse("A die needs at least 1 side")
    if sides > MAX_SIDES:
        raise _refuse(f"A die has at most {MAX_SIDES} sides")
    return int(node.num)


def _group(node: ast.Node) -> tuple[ast.Dice, list[ast.SetOperator]]:
    if isinstance(node, ast.OperatedDice):
        return node.value, node.operations
    return node, []


def _sides(node: ast.Dice) -> int:
    return 100 if node.size == "%" else node.size


def _operation(operation: ast.SetOperator) -> None:
    # One selector per step keeps the number of kept dice fixed, which bounds() relies on.
    if operation.op not in ("k", "p"):
        raise _refuse(
            "The dice operator {typed} is not supported (only kh kl ph pl)", typed=operation.op
        )
    if len(operation.sels) != 1 or operation.sels[0].cat not in ("h", "l"):
        raise _refuse(
            "{typed} is not supported: keep or drop with one kh/kl/ph/pl", typed=str(operation)
        )


# Evaluation -------------------------------------------------------------------------------


@dataclass
class _Tally:
    dice: list[int]
    kept: list[bool]


Bonuses = Sequence[tuple[str, int]]


def roll(
    expr: str,
    rng: random.Random,
    *,
    label: str,
    bonuses: Bonuses = (),
    target: int | None = None,
) -> NumericRoll:
    """Roll `expr` with `rng` (`rng.randint(1, sides)` per die, left to right); each bonus
    (a push, the condition, an ability: label and amount) is added to the total."""
    tree = parse(expr)
    tally = _Tally(dice=[], kept=[])
    value = _eval(tree.roll, rng, tally)
    return _numeric(label, expr, tally.dice, tally.kept, value, bonuses, target, manual=False)


def _numeric(
    label: str,
    expr: str,
    dice: Sequence[int],
    kept: Sequence[bool],
    value: int,
    bonuses: Bonuses,
    target: int | None,
    *,
    manual: bool,
) -> NumericRoll:
    shown = tuple((name, amount) for name, amount in bonuses if amount)
    return NumericRoll(
        label=label,
        expression=expr.strip(),
        dice=tuple(dice),
        kept=tuple(kept),
        value=value,
        bonuses=shown,
        total=value + sum(amount for _, amount in shown),
        target=target,
        manual=manual,
    )


def _eval(node: ast.Node, rng: random.Random, tally: _Tally) -> int:
    if isinstance(node, ast.Literal):
        return int(node.value)
    if isinstance(node, ast.Parenthetical):
        return _eval(node.value, rng, tally)
    if isinstance(node, ast.UnOp):
        value = _eval(node.value, rng, tally)
        return -value if node.op == "-" else value
    if isinstance(node, ast.BinOp):
        left = _eval(node.left, rng, tally)
        right = _eval(node.right, rng, tally)
        return _apply(node.op, left, right)
    # parse() let through only dice beyond this point
    group, operations = _group(node)
    sides = _sides(group)
    faces = [rng.randint(1, sides) for _ in range(group.num)]
    kept = _keep(faces, operations)
    tally.dice.extend(faces)
    tally.kept.extend(kept)
    return sum(face for face, keep in zip(faces, kept, strict=True) if keep)


def _apply(op: str, left: int, right: int) -> int:
    if op == "+":
        return left + right
    if op == "-":
        return left - right
    return left * right


def _keep(faces: list[int], operations: list[ast.SetOperator]) -> list[bool]:
    """kh/kl keep the N highest/lowest of the dice still kept; ph/pl drop them.

    Ties go to the earlier die, as in d20.
    """
    kept = [True] * len(faces)
    for operation in operations:
        selector = operation.sels[0]
        live = [i for i in range(len(faces)) if kept[i]]
        ordered = sorted(live, key=lambda i: faces[i], reverse=selector.cat == "h")
        chosen = set(ordered[: selector.num])
        for i in live:
            if (i in chosen) != (operation.op == "k"):
                kept[i] = False
    return kept


# Ranges -----------------------------------------------------------------------------------


def bounds(expr: str) -> tuple[int, int]:
    """The lowest and highest total `expr` can roll (no modifier)."""
    return _bounds(parse(expr).roll)


def _bounds(node: ast.Node) -> tuple[int, int]:
    if isinstance(node, ast.Literal):
        return node.value, node.value
    if isinstance(node, ast.Parenthetical):
        return _bounds(node.value)
    if isinstance(node, ast.UnOp):
        low, high = _bounds(node.value)
        return (-high, -low) if node.op == "-" else (low, high)
    if isinstance(node, ast.BinOp):
        left, right = _bounds(node.left), _bounds(node.right)
        if node.op == "+":
            return left[0] + right[0], left[1] + right[1]
        if node.op == "-":
            return left[0] - right[1], left[1] - right[0]
        # Independent intervals: the extremes of a product are products of endpoints.
        products = [a * b for a in left for b in right]
        return min(products), max(products)
    group, operations = _group(node)
    count = group.num
    for operation in operations:
        chosen = min(operation.sels[0].num, count)
        count = chosen if operation.op == "k" else count - chosen
    return count, count * _sides(group)


def manual(
    value: int,
    expr: str,
    *,
    label: str,
    bonuses: Bonuses = (),
    target: int | None = None,
) -> NumericRoll:
    """A result rolled on physical dice (D-5), checked against the range of `expr`."""
    low, high = bounds(expr)
    if isinstance(value, bool) or not isinstance(value, int):
        raise RuleError("Enter the rolled result of {expr} as a whole number.", expr=expr.strip())
    if not low <= value <= high:
        raise RuleError(
            "{value} cannot come from {expr}: enter a result from {low} to {high}.",
            value=value,
            expr=expr.strip(),
            low=low,
            high=high,
        )
    return _numeric(label, expr, (value,), (True,), value, bonuses, target, manual=True)
