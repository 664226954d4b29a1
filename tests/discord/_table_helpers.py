"""Small helpers for the sheet, table and settings tests (beside the shared conftest harness)."""

from __future__ import annotations

from bot.offline import Result
from bot.offline.layout import Seen
from tests.discord import conftest

REFUSAL_MAX_SENTENCES = 3


def refused(result: Result, *words: str) -> str:
    """A refusal: one private, short card in the refusal colour (conftest.assert_refused),
    naming each of `words`; returns its text."""
    text = conftest.assert_refused(result, *words)
    assert text.count(". ") + 1 <= REFUSAL_MAX_SENTENCES, f"too long: {text!r}"
    assert "Something went wrong" not in text, f"a bug, not a refusal: {text!r}"
    assert_no_pings(result)
    return text


def public(result: Result) -> Seen:
    """A public result, one card allowing no ping: what the channel sees of it."""
    reply = result.reply
    assert not reply.ephemeral, f"a result must be public: {result.text()}"
    assert reply.layout and reply.components, f"not a card: {result.text()}"
    assert_no_pings(result)
    return reply.card


def assert_no_pings(result: Result) -> None:
    """Every message the bot sent allows no mention at all (conftest.assert_no_pings)."""
    for request in result.requests:
        conftest.assert_no_pings(request)
