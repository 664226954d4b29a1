"""Small helpers for the sheet, table and settings tests (beside the shared conftest harness)."""

from __future__ import annotations

import copy
from typing import Any

from bot.offline import Member, Request, Result

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
    """Every message the bot sent allows no mention at all."""
    for request in result.requests:
        body = request.payload if isinstance(request.payload, dict) else {}
        data = body.get("data", body) if "type" in body else body
        if isinstance(data, dict) and ("content" in data or "embeds" in data):
            assert data.get("allowed_mentions") == {"parse": []}, f"may ping: {data!r}"


def _with_string_attachment_ids(request: Request) -> Request:
    """discord.py numbers new attachments with integer ids (`"id": 0`), which Discord accepts
    but its OpenAPI description types as a snowflake string: compare them as strings."""
    payload = copy.deepcopy(request.payload)
    data = payload.get("data", payload) if isinstance(payload, dict) else None
    if isinstance(data, dict):
        for attachment in data.get("attachments") or []:
            attachment["id"] = str(attachment["id"])
    return Request(request.method, request.path, request.url, payload, request.files)


async def run_with_files(harness: Any, member: Member, command: str, /, **options: Any) -> Result:
    """harness.run for replies that upload a file: the same spec validation, attachment ids
    compared as strings (see above)."""
    result = await harness.driver.invoke(member, command, **options)
    for request in result.requests:
        harness.validator.check(_with_string_attachment_ids(request))
    return result
