"""Small helpers for the sheet, table and settings tests (beside the shared conftest harness)."""

from __future__ import annotations

from bot.offline import Result
from tests.discord import conftest

REFUSAL_MAX_SENTENCES = 3


def refused(result: Result, *words: str) -> str:
    """A refusal: one private, short message, no embed, naming each of `words`."""
    reply = result.reply
    assert reply.ephemeral, f"a refusal must be ephemeral: {result.text()}"
    assert not reply.embeds, f"a refusal is a short text: {result.text()}"
    text = reply.content
    assert text.count(". ") + 1 <= REFUSAL_MAX_SENTENCES, f"too long: {text!r}"
    assert "Something went wrong" not in text, f"a bug, not a refusal: {text!r}"
    assert_no_pings(result)
    for word in words:
        assert word in text, f"{word!r} not in {text!r}"
    return text


def public(result: Result) -> dict:
    """A public result with one embed and no ping: the embed."""
    reply = result.reply
    assert not reply.ephemeral, f"a result must be public: {result.text()}"
    assert_no_pings(result)
    return reply.embed


def assert_no_pings(result: Result) -> None:
    """Every message the bot sent allows no mention at all (conftest.assert_no_pings)."""
    for request in result.requests:
        conftest.assert_no_pings(request)
