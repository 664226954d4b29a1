"""The dice of one action, kept whole (D-4): Narateer dice and dice expressions."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from rules.text import TextField

MISS, HIT, CRIT = "M", "H", "C"  # D-1


class NarateerRoll(BaseModel):
    """Narateer dice (D-1..D-4): every face kept, with the advantage rerolls beside them."""

    model_config = ConfigDict(frozen=True)

    label: TextField  # names no one (the bot's words): escaped whole where shown
    faces: tuple[str, ...]
    # D-3: the face each Miss was rerolled to, in the order of `faces`; None where no reroll.
    rerolls: tuple[str | None, ...] = ()
    manual: bool = False

    @property
    def final(self) -> tuple[str, ...]:
        if not self.rerolls:
            return self.faces
        return tuple(
            r if r is not None else f for f, r in zip(self.faces, self.rerolls, strict=True)
        )

    @property
    def crits(self) -> int:
        return self.final.count(CRIT)


class NumericRoll(BaseModel):
    """A roll of a dice expression (`1d10+2`): each die, which were kept, and the total.

    `total` is the expression's value plus every bonus in `bonuses` (label, amount): a push,
    the injury condition, an ability, so that a reply can show the whole sum.
    """

    model_config = ConfigDict(frozen=True)

    label: TextField  # `Check ({what})`: what a player typed stays a value (rules.text)
    expression: str
    dice: tuple[int, ...]
    kept: tuple[bool, ...] = ()
    value: int  # the expression alone: its dice and its own numbers
    bonuses: tuple[tuple[str, int], ...] = ()
    total: int
    target: int | None = None
    manual: bool = False
    dropped: bool = False  # rolled, then set aside (Disadvantage keeps the lower of two)

    @property
    def modifier(self) -> int:
        return self.total - self.value

    @property
    def success(self) -> bool | None:
        return None if self.target is None else self.total >= self.target


Roll = NarateerRoll | NumericRoll
