"""How each open delete question was answered, so that a second click never contradicts the
first (issue 21 item 16): a Cancel after the Delete, a Delete after the Cancel (a double
click, or a client that missed the edit) is told privately what happened, and the question's
answer is never rewritten, not by its timeout either.

The buttons carry their question in their custom id (bot/render/buttons.py); the answers are
kept here, per bot and only until the question expires (a click after that is refused as
expired anyway). The clicks of one question take turns (a lock), so the second waits for the
first's answer. After a restart the record is gone: a Cancel still sees in the database that
the character was deleted, a second Delete finds nothing left to delete.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

DELETED_ALREADY = "That character was already deleted. Nothing was changed."
CANCELLED_ALREADY = (
    "This question was answered Cancel: nothing was deleted, and this click changes nothing. "
    "To delete the character, run /character delete again."
)


class Answer(StrEnum):
    DELETED = "deleted"
    CANCELLED = "cancelled"


# A question: its character, its asker and its deadline (the custom id's fields).
Key = tuple[int, int, int]


@dataclass
class Question:
    until: int
    answer: Answer | None = None
    turn: asyncio.Lock = field(default_factory=asyncio.Lock)


_QUESTIONS: weakref.WeakKeyDictionary[Any, dict[Key, Question]] = weakref.WeakKeyDictionary()


def _open(bot: Any, now: float) -> dict[Key, Question]:
    questions = _QUESTIONS.setdefault(bot, {})
    for key in [k for k, q in questions.items() if q.until < now and not q.turn.locked()]:
        del questions[key]  # expired: a click is refused before it gets here
    return questions


@asynccontextmanager
async def answering(bot: Any, key: Key, now: float) -> AsyncIterator[Question]:
    """The question, for one click at a time: set `answer` once the click has answered it."""
    question = _open(bot, now).setdefault(key, Question(until=key[2]))
    async with question.turn:
        yield question


def answered(bot: Any, key: Key) -> bool:
    question = _QUESTIONS.get(bot, {}).get(key)
    return question is not None and question.answer is not None
