"""Dice as the channel shows them: Narateer faces as the application's emoji (text where they
cannot show), and a check with its whole sum (D-4)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from bot.render.common import count, escape, signed
from bot.render.pictures import EMOJI_NAMES, STRUCK_MISS_EMOJI_NAME
from rules.rolls import CRIT, HIT, MISS, NarateerRoll, NumericRoll, Roll

FACE_WORDS = {MISS: "Miss", HIT: "Hit", CRIT: "Crit"}
_PLURALS = {MISS: "Misses", HIT: "Hits", CRIT: "Crits"}
# Where the emoji cannot show (the console, a server that denies the bot external emoji):
# Unicode emoji every client draws the same.
TEXT_FACES = {MISS: "⬜", HIT: "⚪", CRIT: "💥"}
TEXT_STRUCK = "⬜"  # text cannot strike an emoji through: the reroll is shown `(⬜→⚪)`


@dataclass(frozen=True)
class Faces:
    """How the three faces (and a rerolled Miss) are written in one reply."""

    faces: Mapping[str, str]
    struck: str

    @classmethod
    def text(cls) -> Faces:
        return cls(TEXT_FACES, TEXT_STRUCK)

    @classmethod
    def emoji(cls, ids: Mapping[str, int]) -> Faces:
        """The application's emoji (registered by `python -m bot sync`), by emoji name; text
        for any missing."""
        names = {**EMOJI_NAMES, "struck": STRUCK_MISS_EMOJI_NAME}
        if any(name not in ids for name in names.values()):
            return cls.text()

        def mark(name: str) -> str:
            return f"<:{name}:{ids[name]}>"

        faces = {letter: mark(name) for letter, name in EMOJI_NAMES.items()}
        return cls(faces, mark(STRUCK_MISS_EMOJI_NAME))

    @classmethod
    def words(cls) -> Faces:
        """Each face as its word (the campaign page's plain text: `Last Gasp: Crit survived`)."""
        return cls(FACE_WORDS, "Miss rerolled to ")

    def face(self, letter: str) -> str:
        return self.faces[letter]


def die_line(faces: str) -> str:
    """`Crit 1 in 6, Hit 2 in 6, Miss 3 in 6` (D-2), without the face letters."""
    sides = len(faces)
    parts = [
        f"{word} {faces.count(letter)} in {sides}"
        for letter, word in ((CRIT, "Crit"), (HIT, "Hit"), (MISS, "Miss"))
        if faces.count(letter)
    ]
    return ", ".join(parts)


def faces_line(roll: NarateerRoll, faces: Faces) -> str:
    """D-4: every die; an advantage reroll (D-3) as the struck-out Miss beside its new face."""
    rerolls = roll.rerolls or (None,) * len(roll.faces)
    text = faces.struck == TEXT_STRUCK

    def die(face: str, reroll: str | None) -> str:
        if reroll is None:
            return faces.face(face)
        if text:
            return f"({faces.struck}→{faces.face(reroll)})"
        return f"{faces.struck}{faces.face(reroll)}"

    return " ".join(die(f, r) for f, r in zip(roll.faces, rerolls, strict=True))


def tally(final: Iterable[str]) -> str:
    """`1 Crit · 2 Misses`: the faces that stand, counted, Crits first."""
    faces = list(final)
    counts = [(faces.count(letter), letter) for letter in (CRIT, HIT, MISS)]
    return " · ".join(count(n, FACE_WORDS[letter], _PLURALS[letter]) for n, letter in counts if n)


def narateer_text(roll: NarateerRoll, faces: Faces) -> str:
    return f"{faces_line(roll, faces)}  {tally(roll.final)}"


def numeric_text(roll: NumericRoll) -> str:
    """The whole sum: `` `1d20+2` → 8 +2 = 10, +2 push = 12 vs 15 ✗ ``; dice dropped by
    kh/kl struck through; a roll set aside says so, with no verdict."""
    kept = roll.kept or (True,) * len(roll.dice)
    dice = ", ".join(str(d) if k else f"~~{d}~~" for d, k in zip(roll.dice, kept, strict=True))
    return f"`{escape_code(roll.expression)}` → {dice}{sum_text(roll)}"


def sum_text(roll: NumericRoll) -> str:
    """What follows the dice, in the rules' own words: the expression's numbers, each bonus
    (a push, the injury, an ability), the total and the verdict (` +2 = 10, +2 push = 12 vs
    15 ✗`), or ` · not kept, the lower counts` for a roll Disadvantage set aside (E-6)."""
    kept = roll.kept or (True,) * len(roll.dice)
    own = roll.value - sum(d for d, k in zip(roll.dice, kept, strict=True) if k)
    multiplied = "*" in roll.expression
    text = ""
    if own and not multiplied:
        text += f" {signed(own)}"
    if own or multiplied or len(roll.dice) > 1:
        text += f" = {roll.value}"
    for label, amount in roll.bonuses:
        text += f", {signed(amount)} {label}"
    if roll.bonuses:
        text += f" = {roll.total}"
    if roll.dropped:
        return f"{text} · not kept, the lower counts"
    if roll.target is not None:
        text += f" vs {roll.target} {'✓' if roll.success else '✗'}"
    return text


def escape_code(text: str) -> str:
    """Text inside a code span: no backtick may close it."""
    return text.replace("`", "'")


def roll_label(roll: Roll, shown: Callable[[str], str] = escape) -> str:
    """`Dying Last Gasp · advantage`; `shown`: how its values go in (escaped for Discord; the
    campaign page's templates escape for HTML instead)."""
    label = roll.label.render(shown)
    if isinstance(roll, NarateerRoll) and roll.rerolls:
        label += " · advantage"
    if roll.manual:
        label += " · entered by hand"
    return label


def roll_text(roll: Roll, faces: Faces) -> str:
    if isinstance(roll, NarateerRoll):
        return narateer_text(roll, faces)
    return numeric_text(roll)
