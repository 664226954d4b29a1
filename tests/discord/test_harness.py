"""The harness itself: payloads reach the real tree, bodies are captured and validated."""

from __future__ import annotations

import asyncio
import json

import pytest

from bot.app import create_bot
from bot.offline import EPHEMERAL, OfflineDriver, Raw
from bot.offline.layout import IS_COMPONENTS_V2
from bot.services import play
from rules.dice import ScriptedRandom


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
    assert request.payload["data"]["flags"] == EPHEMERAL | IS_COMPONENTS_V2
    strict_spec_validator.check(request)  # the real body passes
    request.payload["data"]["components"] = "not a list"
    with pytest.raises(AssertionError, match="breaks the spec"):
        strict_spec_validator.check(request)


# --- the driver's public API: payloads, one interaction among others, no history ---------------


async def test_payload_builds_what_invoke_sends_and_raw_values_go_as_given(harness):
    payload = harness.driver.payload(harness.owner, "character show", character="Roryn")
    assert payload["type"] == 2 and payload["data"]["name"] == "character"
    [show] = payload["data"]["options"]
    assert show["name"] == "show" and show["options"] == [
        {"name": "character", "type": 3, "value": "Roryn"}
    ]
    typed = harness.driver.payload(harness.owner, "damage", focused="character", character="Ro")
    assert typed["type"] == 4
    assert typed["data"]["options"] == [
        {"name": "character", "type": 3, "value": "Ro", "focused": True}
    ]
    raw = harness.driver.payload(harness.owner, "damage", amount=Raw("three"))
    assert raw["data"]["options"] == [{"name": "amount", "type": 4, "value": "three"}]
    result = harness.validated(await harness.driver.feed(raw))
    assert result.ephemeral and "`amount` must be a whole number." in result.reply.card.body


async def test_feed_waits_for_its_own_interaction_only(harness, monkeypatch):
    await harness.add_character("Roryn")
    real_damage, go_on = play.damage, asyncio.Event()

    async def held(*args, **kwargs):
        await go_on.wait()
        return await real_damage(*args, **kwargs)

    monkeypatch.setattr(play, "damage", held)
    driver = harness.driver
    slow = driver.send(driver.payload(harness.owner, "damage", character="Roryn", amount=3))
    shown = await driver.feed(driver.payload(harness.owner, "character show", character="Roryn"))
    assert not slow.reply.done()  # /damage is still waiting: feed did not wait for it
    [request] = shown.requests  # and its requests are not in /character show's result
    assert "VIT 10/10" in json.dumps(request.payload, ensure_ascii=False)
    go_on.set()
    reply = await slow.reply
    assert not reply.loading and "VIT 10 → 7" in reply.card.body
    damaged = await slow.result()
    assert damaged.messages == [reply] and len(damaged.requests) == 1


async def test_a_reply_is_timed_when_it_is_complete_not_when_its_awaiter_runs(harness):
    # The benchmark's latency ends when the answer reaches the seam standing in for Discord:
    # a task that was slow to run again after it must not lengthen it.
    await harness.add_character("Roryn")
    driver = harness.driver
    sent = driver.send(driver.payload(harness.owner, "damage", character="Roryn", amount=3))
    assert sent.answered_at is None
    reply = await sent.reply
    answered_at = sent.answered_at
    assert answered_at is not None and not reply.loading
    await asyncio.sleep(0.02)
    assert sent.answered_at == answered_at  # the moment it was complete, kept


async def test_an_interaction_without_a_message_replies_none(harness):
    await harness.add_character("Roryn")
    payload = harness.driver.payload(harness.owner, "damage", focused="character", character="R")
    sent = harness.driver.send(payload)
    assert await sent.reply is None
    assert sent.answered_at is None
    assert [c["value"] for c in (await sent.result()).choices] == ["Roryn"]


async def test_without_history_results_are_whole_and_nothing_is_kept(tmp_path):
    bot = create_bot(f"sqlite+aiosqlite:///{tmp_path / 'x.db'}", rng=ScriptedRandom())
    driver = OfflineDriver(bot, keep_history=False)
    await driver.start()
    try:
        alice = driver.member(driver.add_guild(), "Alice")
        created = await driver.invoke(alice, "character create", name="Roryn")
        damaged = await driver.invoke(alice, "damage", character="Roryn", amount=3)
        await driver.idle()
    finally:
        await driver.close()
    assert created.card.title == "🟢 Roryn · Created" and damaged.requests
    assert "VIT 10 → 7" in damaged.card.body
    assert driver.requests == [] and driver.messages == {}
