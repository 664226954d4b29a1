"""Character names (section 1): what a name may hold, and the key that makes it unique.

A name is counted as the user sees it, in grapheme clusters (Unicode's UAX #29, `\\X` of the
`regex` library, which follows the current Unicode release): `Ada 👍🏽` has five. The joiner,
variation selectors, skin tones and tags belong to emoji sequences (UTS #51): inside one they
draw the emoji (🧙‍♂️, 🏳️‍🌈, 🏴󠁧󠁢󠁳󠁣󠁴󠁿); anywhere else they draw nothing and are refused.
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

import regex

MAX_NAME = 32  # grapheme clusters
# The key column's size: a name whose key is longer (a few ligatures such as U+FDFA spell out
# to 18 letters each under NFKC) is refused the same way on every database.
MAX_KEY = 128
# The longest text (UTF-16 units, as Discord counts an option's max_length) a name can take:
# each key character comes with at most a variation selector and a joiner (😀️‍: 4 units).
MAX_NAME_LENGTH = 4 * MAX_KEY

# Control, format (zero-width spaces and joiners, bidi marks, the soft hyphen), line and
# paragraph separators, surrogates: never in a name outside an emoji sequence.
_FORBIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs"})
# Letters and marks that draw nothing (Hangul fillers, the blank Braille cell, the combining
# grapheme joiner, Khmer inherent vowels, Mongolian variation selectors): invisible too.
_INVISIBLE = frozenset("\u115f\u1160\u3164\uffa0\u2800\u034f\u17b4\u17b5\u180b\u180c\u180d\u180f")
ZWJ = "\u200d"
_VARIATION_SELECTOR = r"\uFE00-\uFE0F\U000E0100-\U000E01EF"
_TAG = r"\U000E0020-\U000E007F"
# The parts of an emoji sequence, allowed only in their place inside one.
_EMOJI_PART = regex.compile(rf"[\u200D{_VARIATION_SELECTOR}{_TAG}\p{{Emoji_Modifier}}]")
# UTS #51: a flag (two regional indicators), a keycap, or an emoji with its presentation
# selector, skin tone or tag sequence (a subdivision flag); then more of them, joined by ZWJ.
_ELEMENT = (
    r"(?:\p{Regional_Indicator}{1,2}"
    r"|[0-9#*]\uFE0F?\u20E3"
    r"|[\p{Extended_Pictographic}\p{Emoji}][\uFE0E\uFE0F]?\p{Emoji_Modifier}?"
    r"(?:[\U000E0020-\U000E007E]+\U000E007F)?)"
)
_EMOJI = regex.compile(rf"{_ELEMENT}(?:\u200D{_ELEMENT})*")
_GRAPHEME = regex.compile(r"\X")
# Kept in the key: the tags of a subdivision flag tell 🏴󠁧󠁢󠁳󠁣󠁴󠁿 from 🏴󠁧󠁢󠁷󠁬󠁳󠁿.
_TAGS = frozenset(chr(c) for c in range(0xE0020, 0xE0080))
_VARIATION_SELECTORS = frozenset(
    [chr(c) for c in range(0xFE00, 0xFE10)] + [chr(c) for c in range(0xE0100, 0xE01F0)]
)

# How a refusal names a character that draws nothing (`U+200B, a zero-width space`).
_CALLED = {
    "\u200b": "a zero-width space",
    "\u200c": "a zero-width non-joiner",
    "\u200d": "a zero-width joiner",
    "\u2060": "a word joiner",
    "\ufeff": "a zero-width no-break space",
    "\u00ad": "a soft hyphen",
    "\u034f": "a combining grapheme joiner",
    "\u2800": "a blank Braille cell",
    "\t": "a tab",
    "\n": "a line break",
    "\r": "a line break",
    "\u2028": "a line separator",
    "\u2029": "a paragraph separator",
    "\x00": "a NUL character",
}
_DIRECTION = frozenset(
    {"LRE", "RLE", "LRO", "RLO", "PDF", "LRI", "RLI", "FSI", "PDI", "LRM", "RLM"}
)


def _invisible(char: str) -> bool:
    return char in _INVISIBLE or unicodedata.category(char) in _FORBIDDEN_CATEGORIES


def called(char: str) -> str:
    """`U+200B, a zero-width space`: a character a refusal cannot show, named."""
    code = f"U+{ord(char):04X}"
    if char in _CALLED:
        what = _CALLED[char]
    elif char in _VARIATION_SELECTORS:
        what = "a variation selector"
    elif char in _TAGS:
        what = "a tag character"
    elif _EMOJI_PART.fullmatch(char):
        what = "a skin tone"
    elif unicodedata.category(char) == "Cc":
        what = "a control character"
    elif unicodedata.bidirectional(char) in _DIRECTION:
        what = "a text-direction mark"
    elif char in _INVISIBLE:
        what = "a blank filler character"
    else:
        what = "an invisible character"
    return f"{code}, {what}"


@lru_cache(maxsize=8192)  # every command looks a name up: the same few names, again and again
def name_key(name: str) -> str:
    """Section 1: one key per name, ignoring case, compatibility forms (NFKC), surrounding
    spaces and invisible characters (joiners and variation selectors too), so that `Roryn`,
    `ＲＯＲＹＮ` and `Roryn\u200b` are one."""
    if _plain(name):  # nothing to leave out, and NFKC leaves printable ASCII as it is
        return name.lower().strip()
    return _unicode_key(name)


def _unicode_key(name: str) -> str:
    kept = "".join(
        c for c in name if c in _TAGS or not (_invisible(c) or c in _VARIATION_SELECTORS)
    )
    return unicodedata.normalize("NFKC", kept).casefold().strip()


def _plain(text: str) -> bool:
    """Printable ASCII only: each character a cluster of its own, none of them out of place (no
    joiner, selector, tag, skin tone or invisible character is ASCII), so the Unicode segmentation
    can be skipped: most names are such, and it takes 15 µs a name (100 on a busy thread)."""
    return text.isascii() and text.isprintable()


def graphemes(text: str) -> list[str]:
    """The characters a user sees: `Ada 👍🏽` is five."""
    if _plain(text):
        return list(text)
    return list(_GRAPHEME.findall(text))


def _out_of_place(cluster: str) -> str | None:
    """The first character of a grapheme cluster that a name may not hold there: one that
    draws nothing, or a part of an emoji sequence that is not in its place inside one."""
    emoji = _EMOJI.match(cluster)
    start = emoji.end() if emoji else 0
    if emoji is not None and start == len(cluster):
        return None
    for index, char in enumerate(cluster):
        if _EMOJI_PART.fullmatch(char):
            if index >= start:
                return char
        elif _invisible(char):
            return char
    return None


def _refusal(char: str) -> str:
    if _EMOJI_PART.fullmatch(char):
        return (
            f"a name can hold {called(char)}, only inside an emoji such as 🧙‍♂️, 🏳️‍🌈 or "
            "👍🏽: type the name without it, or pick the emoji again from the emoji picker"
        )
    return f"a name cannot hold {called(char)}, which does not show: type the name without it"


@lru_cache(maxsize=8192)  # every sheet validated checks its name
def clean_name(value: str) -> str:
    """A name trimmed and checked against section 1; ValueError says what is wrong and what
    to type instead."""
    name = value.strip()
    if not name:
        raise ValueError("a name needs at least one character: type one")
    seen = graphemes(name)
    if len(seen) > MAX_NAME:
        raise ValueError(
            f"a name has at most {MAX_NAME} characters, and that one has {len(seen)}: choose "
            "a shorter one"
        )
    for cluster in () if _plain(name) else seen:
        bad = _out_of_place(cluster)
        if bad is not None:
            raise ValueError(_refusal(bad))
    key = name_key(name)
    if not key:
        raise ValueError("a name needs at least one visible character: type one")
    if len(key) > MAX_KEY:
        raise ValueError(
            f"that name spells out to {len(key)} characters (at most {MAX_KEY}): choose a "
            "shorter one"
        )
    return name
