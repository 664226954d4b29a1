"""How each open question was answered (the delete question, the GM's menu of characters), so
that a second click never contradicts the first: a Cancel after the Delete, a Delete after the
Cancel, a menu chosen twice (a double click, or a client that missed the edit) is told privately
what happened, and the question's answer is never rewritten, not by its timeout either.

The buttons and menus carry their question in their custom id (bot/render/buttons.py); the
answers are kept here, per bot and only until the question expires (a click after that is
refused as expired anyway). The clicks of one question take turns (a lock), so the second waits
for the first's answer. After a restart the record is gone: a Cancel still sees in the database
that the character was deleted, a second Delete finds nothing left to delete, and a menu's
choice made before the restart is refused by its deadline at most a minute later.
"""

from __future__ import annotations

import asyncio
import contextvars
import weakref
from collections.abc import AsyncIterator, Callable, Coroutine
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

DELETED_ALREADY = "That character was already deleted. Nothing was changed."
CANCELLED_ALREADY = (
    "This question was answered Cancel: nothing was deleted, and this click changes nothing. "
    "To delete the character, run /character delete again."
)


CHOSEN_ALREADY = (
    "This menu was answered already: the rolls are in the channel. Nothing more was done."
)


class Answer(StrEnum):
    DELETED = "deleted"
    CANCELLED = "cancelled"
    CHOSEN = "chosen"  # a menu of characters


# A question: the fields of its custom id (what, for whom, who asked), its deadline last.
Key = tuple[object, ...]


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
    until = key[-1]
    assert isinstance(until, int), "a question's key ends with its deadline"
    question = _open(bot, now).setdefault(key, Question(until=until))
    async with question.turn:
        yield question


def answered(bot: Any, key: Key) -> bool:
    question = _QUESTIONS.get(bot, {}).get(key)
    return question is not None and question.answer is not None


_timeouts: set[asyncio.Task[None]] = set()  # referenced until done


def after_deadline(delay: float, job: Callable[[], Coroutine[Any, Any, None]]) -> None:
    """Run `job` after `delay` (a question left unanswered), outside the interaction that asked
    (it has long been answered)."""
    loop = asyncio.get_running_loop()

    def start() -> None:
        task = loop.create_task(job())
        _timeouts.add(task)
        task.add_done_callback(_timeouts.discard)

    loop.call_later(delay, start, context=contextvars.Context())
