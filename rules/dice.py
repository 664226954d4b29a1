"""Narateer dice (D-1..D-5): rolled with an injected random source, or entered by hand."""

from __future__ import annotations

import random
import re
from collections.abc import Iterable

from rules.errors import RuleError
from rules.rolls import CRIT, HIT, MISS, NarateerRoll

__all__ = ["CRIT", "HIT", "MISS", "ScriptedRandom", "manual_narateer", "roll_narateer"]
FACE_NAMES = {MISS: "Miss", HIT: "Hit", CRIT: "Crit"}

_SEPARATORS = re.compile(r"[\s,]+")


class ScriptedRandom(random.Random):
    """A random source that returns scripted values, in order (D-5: replay and tests).

    `randrange` and `randint` hand out the next value, checked against the range asked for,
    so a script that no longer fits the code fails loudly instead of rolling something else.
    """

    def __init__(self, values: Iterable[int] = ()) -> None:
        super().__init__(0)
        self._values = list(values)
        self._next = 0

    @classmethod
    def faces(cls, letters: str, faces: str = "MMMHHC") -> ScriptedRandom:
        """A script that makes `roll_narateer` show `letters` on a die written as `faces`."""
        return cls(faces.index(letter) for letter in letters.replace(" ", "").upper())

    @property
    def remaining(self) -> int:
        return len(self._values) - self._next

    def _take(self, low: int, high: int) -> int:
        if self._next >= len(self._values):
            raise IndexError("ScriptedRandom ran out of values")
        value = self._values[self._next]
        if not low <= value <= high:
            raise ValueError(f"scripted value {value} is outside {low}..{high}")
        self._next += 1
        return value

    def randrange(self, start: int, stop: int | None = None, step: int = 1) -> int:
        if stop is None:
            start, stop = 0, start
        return self._take(start, stop - 1)

    def randint(self, a: int, b: int) -> int:
        return self._take(a, b)


def roll_narateer(
    n: int, faces: str, rng: random.Random, *, advantage: bool = False, label: str
) -> NarateerRoll:
    """Roll `n` dice whose faces are `faces` (D-2); with advantage reroll every Miss once (D-3).

    All `n` dice are rolled first, then the Misses are rerolled left to right.
    """
    first = tuple(faces[rng.randrange(len(faces))] for _ in range(n))
    if not advantage:
        return NarateerRoll(label=label, faces=first)
    rerolls = tuple(faces[rng.randrange(len(faces))] if f == MISS else None for f in first)
    return NarateerRoll(label=label, faces=first, rerolls=rerolls)


def manual_narateer(text: str, n: int, faces: str, *, advantage: bool, label: str) -> NarateerRoll:
    """Faces rolled on physical dice (D-5): exactly `n` letters of M, H, C.

    With advantage the player rerolls the Misses first and enters the faces that stand.
    """
    letters = _SEPARATORS.sub("", text or "").upper()
    wanted = f"{n} {'die' if n == 1 else 'dice'}"
    example = " ".join(["C", "H", "M"][:n] if n <= 3 else ["C", "H", "M"] + ["M"] * (n - 3))
    after = " (after rerolling the Misses for advantage)" if advantage else ""
    if not letters or any(letter not in FACE_NAMES for letter in letters):
        raise RuleError(
            f"Enter the faces as letters M (Miss), H (Hit) or C (Crit), one per die{after}, "
            f"e.g. `{example}`."
        )
    if len(letters) != n:
        raise RuleError(
            f"This roll is {wanted}: enter exactly {n} "
            f"{'letter' if n == 1 else 'letters'}{after}, e.g. `{example}`."
        )
    missing = sorted({letter for letter in letters if letter not in faces})
    if missing:
        names = " or ".join(FACE_NAMES[letter] for letter in missing)
        raise RuleError(
            f"This server's Narateer die ({faces}) has no {names} face: check the faces you rolled."
        )
    return NarateerRoll(label=label, faces=tuple(letters), manual=True)
