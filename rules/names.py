"""Character names (section 1): what a name may hold, and the key that makes it unique."""

from __future__ import annotations

import unicodedata
from functools import lru_cache

MAX_NAME = 32
# The key column's size: a name whose key is longer (a few ligatures such as U+FDFA spell out
# to 18 letters each under NFKC) is refused the same way on every database.
MAX_KEY = 128

# Control, format (zero-width spaces and joiners, bidi marks, the soft hyphen), line and
# paragraph separators, surrogates: never in a name.
_FORBIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs"})
# Letters and marks that draw nothing (Hangul fillers, the blank Braille cell, the combining
# grapheme joiner, Khmer inherent vowels, Mongolian variation selectors): invisible too.
_INVISIBLE = frozenset("\u115f\u1160\u3164\uffa0\u2800\u034f\u17b4\u17b5\u180b\u180c\u180d\u180f")
# Variation selectors choose how an emoji is drawn ("❤️"): allowed in a name, left out of its key.
_VARIATION_SELECTORS = frozenset(
    [chr(c) for c in range(0xFE00, 0xFE10)] + [chr(c) for c in range(0xE0100, 0xE01F0)]
)


def _invisible(char: str) -> bool:
    return char in _INVISIBLE or unicodedata.category(char) in _FORBIDDEN_CATEGORIES


@lru_cache(maxsize=8192)  # every command looks a name up: the same few names, again and again
def name_key(name: str) -> str:
    """Section 1: one key per name, ignoring case, compatibility forms (NFKC), surrounding
    spaces and invisible characters, so that `Roryn`, `ＲＯＲＹＮ` and `Roryn\u200b` are one."""
    kept = "".join(c for c in name if not _invisible(c) and c not in _VARIATION_SELECTORS)
    return unicodedata.normalize("NFKC", kept).casefold().strip()


@lru_cache(maxsize=8192)  # every sheet validated checks its name
def clean_name(value: str) -> str:
    """A name trimmed and checked against section 1; ValueError says what is wrong."""
    name = value.strip()
    if not name:
        raise ValueError("a name needs at least one character")
    if len(name) > MAX_NAME:
        raise ValueError(f"a name has at most {MAX_NAME} characters")
    bad = next((c for c in name if _invisible(c)), None)
    if bad is not None:
        raise ValueError(f"a name cannot hold invisible or control characters (U+{ord(bad):04X})")
    key = name_key(name)
    if not key:
        raise ValueError("a name needs at least one visible character")
    if len(key) > MAX_KEY:
        raise ValueError(
            f"that name spells out to {len(key)} characters (at most {MAX_KEY}): choose a "
            "shorter one"
        )
    return name
