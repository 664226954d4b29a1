"""Discord faults: the reply call fails after the change is made.

The HTTP seam is moved one level down for these tests: discord.py's own webhook adapter
(`AsyncWebhookAdapter.request`, with its retries on 5xx and on 429) runs against a fake
Discord that answers each attempt as scripted, and otherwise delivers to the offline
driver. The fake keeps Discord's one rule that matters here: an interaction can be
acknowledged once; every later callback gets 400 "Interaction has already been
acknowledged" (code 40060).

For every fault: the change is committed exactly once (one event, the sheet changed once),
the failure is logged, and the bot stays up (the next command goes through normally).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import types
from collections.abc import Iterator
from typing import Any

import pytest
from discord.webhook import async_ as webhook_async
from multidict import CIMultiDict

from bot.errors import SOMETHING_WENT_WRONG

ACKNOWLEDGED = {"message": "Interaction has already been acknowledged.", "code": 40060}
SERVER_ERROR = {"message": "500: Internal Server Error", "code": 0}
RATE_LIMITED = {"message": "You are being rate limited.", "retry_after": 0.01, "global": False}


class FakeResponse:
    def __init__(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
        self.status = status
        self.reason = {200: "OK", 204: "No Content", 400: "Bad Request"}.get(status, "Error")
        self._text = "" if body is None else json.dumps(body)
        self.headers = CIMultiDict(headers or {})
        if body is not None:
            self.headers["Content-Type"] = "application/json"

    async def text(self, encoding: str = "utf-8") -> str:
        return self._text

    async def __aenter__(self) -> FakeResponse:
        return self

    async def __aexit__(self, *exc: object) -> None:
        return None


class FlakyDiscord:
    """Answers each HTTP attempt of discord.py's webhook adapter by the next scripted step:
    "ok", "500" (not delivered), "lost" (delivered, but the answer is a 500), "429" (rate
    limited, with retry-after), "timeout", or "ack" (already acknowledged elsewhere)."""

    def __init__(self, driver: Any, script: list[str]) -> None:
        self.driver = driver
        self.script = list(script)
        self.acknowledged: set[str] = set()
        self.attempts: list[str] = []

    async def request(self, adapter: Any, route: Any, session: Any, **kwargs: Any) -> Any:
        return await _REAL_REQUEST(adapter, route, _Session(self, route, kwargs), **kwargs)

    async def attempt(self, route: Any, kwargs: dict[str, Any]) -> FakeResponse:
        step = self.script.pop(0) if self.script else "ok"
        self.attempts.append(step)
        token = str(route.webhook_token)
        callback = route.path.endswith("/callback")
        if step == "timeout":
            raise TimeoutError
        if step == "500":
            return FakeResponse(500, SERVER_ERROR)
        if step == "429":
            headers = {"Via": "1.1 google", "Retry-After": "0.01"}
            return FakeResponse(429, RATE_LIMITED, headers)
        if step == "ack":
            self.acknowledged.add(token)
        if callback and token in self.acknowledged:
            return FakeResponse(400, ACKNOWLEDGED)
        delivered = await self.driver.handle_webhook(
            route,
            payload=kwargs.get("payload"),
            multipart=kwargs.get("multipart"),
            files=kwargs.get("files"),
            params=kwargs.get("params"),
        )
        if callback:
            self.acknowledged.add(token)
        if step == "lost":
            return FakeResponse(500, SERVER_ERROR)
        return FakeResponse(200 if delivered is not None else 204, delivered)


class _Session:
    """The aiohttp session discord.py's adapter talks to."""

    def __init__(self, discord: FlakyDiscord, route: Any, kwargs: dict[str, Any]) -> None:
        self._discord, self._route, self._kwargs = discord, route, kwargs

    def request(self, *args: Any, **kwargs: Any) -> Any:
        return _Attempt(self._discord.attempt(self._route, self._kwargs))


class _Attempt:
    def __init__(self, pending: Any) -> None:
        self._pending = pending

    async def __aenter__(self) -> FakeResponse:
        return await self._pending

    async def __aexit__(self, *exc: object) -> None:
        return None


_REAL_REQUEST = webhook_async.AsyncWebhookAdapter.request  # discord.py's, before any driver


@contextlib.contextmanager
def flaky(harness: Any, script: list[str]) -> Iterator[FlakyDiscord]:
    """discord.py's real adapter against a flaky Discord, for the duration of the block."""
    discord = FlakyDiscord(harness.driver, script)
    patched = webhook_async.AsyncWebhookAdapter.request  # the driver's seam, restored after

    async def request(adapter: Any, route: Any, session: Any, **kwargs: Any) -> Any:
        return await discord.request(adapter, route, session, **kwargs)

    webhook_async.AsyncWebhookAdapter.request = request  # type: ignore[method-assign]
    try:
        yield discord
    finally:
        webhook_async.AsyncWebhookAdapter.request = patched  # type: ignore[method-assign]


@pytest.fixture(autouse=True)
def no_backoff(monkeypatch: pytest.MonkeyPatch) -> None:
    """discord.py sleeps 1, 3, 5… s between 5xx retries: keep its logic, not its waiting."""
    real_sleep = asyncio.sleep

    async def sleep(delay: float, result: Any = None) -> Any:
        return await real_sleep(0, result)

    fast = types.SimpleNamespace(**{n: getattr(asyncio, n) for n in dir(asyncio)})
    fast.sleep = sleep
    monkeypatch.setattr(webhook_async, "asyncio", fast)


async def damage_events(harness: Any) -> list[Any]:
    async with harness.db.transaction(harness.guild.id, read_only=True) as uow:
        row = await uow.character("Roryn", lock=False)
        return [e for e in await uow.history(row.id, 50) if e.command == "damage"]


# (fault script, whether the result reaches the channel, who must log it at WARNING or above;
# None: discord.py retried and delivered the reply, so nothing failed)
FAULTS = [
    pytest.param(["500"], True, None, id="500-then-delivered"),
    pytest.param(["500"] * 5, False, "lastgasp", id="500-on-every-retry"),
    pytest.param(["429"], True, "discord", id="429-retry-after"),
    pytest.param(["timeout"], False, "lastgasp", id="timeout"),
    pytest.param(["ack"], False, "lastgasp", id="already-acknowledged"),
    pytest.param(["lost"], True, "lastgasp", id="delivered-but-answer-lost"),
]


@pytest.mark.parametrize(("script", "delivered", "logger"), FAULTS)
async def test_a_failed_reply_commits_once_is_logged_and_the_bot_stays_up(
    harness: Any, caplog: pytest.LogCaptureFixture, script: list[str], delivered: bool, logger: Any
) -> None:
    await harness.add_character("Roryn")
    with caplog.at_level(logging.WARNING), flaky(harness, script) as discord:
        result = await harness.driver.invoke(harness.owner, "damage", character="Roryn", amount=3)
    assert discord.attempts[: len(script)] == script  # every scripted fault was met

    # Committed exactly once, whatever the reply did.
    [event] = await damage_events(harness)
    assert event.inputs == {"amount": 3}
    assert (await harness.sheet("Roryn")).vit == 7

    results = [m for m in result.messages if m.embeds]
    assert len(results) == (1 if delivered else 0), result.text()

    if logger is not None:
        logged = [r for r in caplog.records if r.name.startswith(logger)]
        assert logged, f"the failed reply was not logged by {logger}: {caplog.text}"

    # The bot stays up: the next command works as usual.
    after = await harness.run(harness.owner, "damage", character="Roryn", amount=1)
    assert not after.ephemeral and "VIT 7 → 6" in json.dumps(after.embed, ensure_ascii=False)
    assert len(await damage_events(harness)) == 2


# A reply that fails after the change is made must not be answered "nothing was changed":
# the player would run the command again and the change would be made twice.
@pytest.mark.parametrize(
    "script",
    [
        pytest.param(["500"] * 5, id="500-on-every-retry"),
        pytest.param(["timeout"], id="timeout"),
        pytest.param(["ack"], id="already-acknowledged"),
        pytest.param(["lost"], id="delivered-but-answer-lost"),
    ],
)
async def test_after_a_failed_reply_nobody_is_told_nothing_changed(
    harness: Any, script: list[str]
) -> None:
    await harness.add_character("Roryn")
    with flaky(harness, script):
        result = await harness.driver.invoke(harness.owner, "damage", character="Roryn", amount=3)
    assert (await harness.sheet("Roryn")).vit == 7  # the change is made…
    told = [m.content for m in result.messages]
    assert all(SOMETHING_WENT_WRONG not in text for text in told), told  # …and not denied
