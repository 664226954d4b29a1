"""The harness itself: payloads reach the real tree, bodies are captured and validated."""

from __future__ import annotations

import pytest

from bot.offline import EPHEMERAL


async def test_a_command_round_trips_through_the_tree(harness):
    await harness.add_character("Roryn", vit=1)
    result = await harness.run(harness.owner, "damage", character="Roryn", amount=3)
    [request] = result.requests
    assert request.method == "POST"
    assert request.path == "/interactions/{webhook_id}/{webhook_token}/callback"
    assert request.payload["type"] == 4
    assert not result.ephemeral
    assert (await harness.sheet("Roryn")).vit == -2


async def test_the_spec_validator_rejects_a_bad_body(harness, strict_spec_validator):
    result = await harness.run(harness.owner, "damage", character="Nobody", amount=1)
    [request] = result.requests
    assert request.payload["data"]["flags"] == EPHEMERAL
    strict_spec_validator.check(request)  # the real body passes
    request.payload["data"]["embeds"] = "not a list"
    with pytest.raises(AssertionError, match="breaks the spec"):
        strict_spec_validator.check(request)
