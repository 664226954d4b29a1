"""Discord faults: the reply call fails after the change is made.

The HTTP seam is moved one level down for these tests: discord.py's own webhook adapter
(`AsyncWebhookAdapter.request`, with its retries on 5xx and on 429) runs against a fake
Discord that answers each attempt as scripted, and otherwise delivers to the offline
driver. The fake keeps Discord's one rule that matters here: an interaction can be
acknowledged once; every later callback gets 400 "Interaction has already been
acknowledged" (code 40060).

For every fault: the change is committed exactly once (one event, the sheet changed once),
Discord received at most one callback for the interaction, nobody is told "nothing was
changed" or "something went wrong", the failure is logged, and the bot stays up (the next
command goes through normally). The same on the deferred path: a command that has not
answered within `bot.replies.DEFER_AFTER_S` (2 s; made small here) is deferred and answered
by editing the deferred message, and a fault on the defer or on that edit still ends in one
answer.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import logging
import types
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from discord.webhook import async_ as webhook_async
from multidict import CIMultiDict

from bot import replies
from bot.failures import REPLY_FAILED, SOMETHING_WENT_WRONG
from tests.reliability.conftest import LogCapture, captured_logs, snapshot

ACKNOWLEDGED = {"message": "Interaction has already been acknowledged.", "code": 40060}
SERVER_ERROR = {"message": "500: Internal Server Error", "code": 0}
RATE_LIMITED = {"message": "You are being rate limited.", "retry_after": 0.01, "global": False}
NOTHING_CHANGED = "nothing was changed"


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


@dataclass
class Attempt:
    """One HTTP attempt of discord.py's adapter, as the fake Discord saw it."""

    step: str  # the scripted fault, or "ok"
    method: str
    path: str
    kind: int | None  # a callback's type
    delivered: bool  # Discord took it (whatever the answer said)


class FlakyDiscord:
    """Answers each HTTP attempt of discord.py's webhook adapter by the next scripted step:
    "ok", "500" (not delivered), "lost" (delivered, but the answer is a 500), "429" (rate
    limited, with retry-after), "timeout", or "ack" (already acknowledged elsewhere)."""

    def __init__(self, driver: Any, script: list[str]) -> None:
        self.driver = driver
        self.script = list(script)
        self.acknowledged: set[str] = set()
        self.attempts: list[Attempt] = []

    async def request(self, adapter: Any, route: Any, session: Any, **kwargs: Any) -> Any:
        return await _REAL_REQUEST(adapter, route, _Session(self, route, kwargs), **kwargs)

    @property
    def steps(self) -> list[str]:
        return [a.step for a in self.attempts]

    def callbacks(self) -> list[Attempt]:
        """The callbacks Discord took: an interaction may have one."""
        return [a for a in self.attempts if a.path.endswith("/callback") and a.delivered]

    async def attempt(self, route: Any, kwargs: dict[str, Any]) -> FakeResponse:
        step = self.script.pop(0) if self.script else "ok"
        token = str(route.webhook_token)
        callback = route.path.endswith("/callback")
        payload = kwargs.get("payload")
        if kwargs.get("multipart"):
            part = next(p for p in kwargs["multipart"] if p["name"] == "payload_json")
            payload = json.loads(part["value"])
        kind = payload.get("type") if callback and isinstance(payload, dict) else None
        attempt = Attempt(step, route.method, route.path, kind, delivered=False)
        self.attempts.append(attempt)
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
        attempt.delivered = True
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


@pytest.fixture
def logs() -> Iterator[LogCapture]:
    with captured_logs() as capture:
        yield capture


async def damage_events(harness: Any) -> list[Any]:
    async with harness.db.transaction(harness.guild.id, read_only=True) as uow:
        row = await uow.character("Roryn", lock=False)
        return [e for e in await uow.history(row.id, 50) if e.command == "damage"]


async def committed_once(harness: Any) -> None:
    [event] = await damage_events(harness)
    assert event.inputs == {"amount": 3}
    assert (await harness.sheet("Roryn")).vit == 7


async def stays_up(harness: Any, events: int = 2) -> None:
    """The next command works as usual."""
    after = await harness.run(harness.owner, "damage", character="Roryn", amount=1)
    assert not after.ephemeral and "VIT 7 → 6" in after.card.body
    assert len(await damage_events(harness)) == events


def told(result: Any) -> list[str]:
    """Everything the user was shown, as text."""
    return [m.card.markdown for m in result.messages]


def errors(logs: LogCapture) -> list[logging.LogRecord]:
    """What was logged at ERROR, including a task's exception nobody retrieved (asyncio logs
    it when the task is collected: collected here first)."""
    gc.collect()
    return [r for r in logs.records if r.levelno >= logging.ERROR]


def logged_by(caplog: pytest.LogCaptureFixture, logger: str) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name.startswith(logger) and r.levelno >= logging.WARNING]


# (fault script, whether the result reaches the channel, how many callbacks Discord takes, who
# must log it at WARNING or above; None: discord.py retried and delivered, nothing failed)
FAULTS = [
    pytest.param(["500"], True, 1, None, id="500-then-delivered"),
    pytest.param(["500"] * 5, False, 1, "lastgasp", id="500-on-every-retry"),
    pytest.param(["429"], True, 1, "discord", id="429-retry-after"),
    pytest.param(["timeout"], False, 1, "lastgasp", id="timeout"),
    pytest.param(["ack"], False, 0, "lastgasp", id="already-acknowledged"),
    pytest.param(["lost"], True, 1, "lastgasp", id="delivered-but-answer-lost"),
]


@pytest.mark.parametrize(("script", "delivered", "callbacks", "logger"), FAULTS)
async def test_a_failed_reply_commits_once_is_logged_and_the_bot_stays_up(
    harness: Any,
    caplog: pytest.LogCaptureFixture,
    script: list[str],
    delivered: bool,
    callbacks: int,
    logger: Any,
) -> None:
    await harness.add_character("Roryn")
    with caplog.at_level(logging.WARNING), flaky(harness, script) as discord:
        result = await harness.driver.invoke(harness.owner, "damage", character="Roryn", amount=3)
    assert discord.steps[: len(script)] == script  # every scripted fault was met

    await committed_once(harness)  # whatever the reply did
    assert len(discord.callbacks()) == callbacks, discord.attempts  # never answered twice

    results = [m for m in result.messages if m.card.title]  # a result, not a refusal
    assert len(results) == (1 if delivered else 0), result.text()
    if not delivered and callbacks:  # told what to do instead
        assert any(REPLY_FAILED in text for text in told(result)), result.text()

    if logger is not None:
        assert logged_by(caplog, logger), f"the failed reply was not logged by {logger}"

    await stays_up(harness)


# A reply that fails after the change is made must not be answered "nothing was changed" or
# "something went wrong": the player would run the command again and the change would be made
# twice.
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
    harness: Any, logs: LogCapture, script: list[str]
) -> None:
    await harness.add_character("Roryn")
    with flaky(harness, script):
        result = await harness.driver.invoke(harness.owner, "damage", character="Roryn", amount=3)
    assert (await harness.sheet("Roryn")).vit == 7  # the change is made…
    for text in told(result):  # …and not denied
        assert SOMETHING_WENT_WRONG not in text and NOTHING_CHANGED not in text, text
    # Logged as a failed reply (a warning), not as a bug of the bot (an error).
    assert logs.records, "nothing was logged"
    assert not errors(logs), logs.text()


async def test_a_refusal_whose_reply_fails_changes_nothing_and_is_logged(
    harness: Any, logs: LogCapture
) -> None:
    """A refusal that Discord does not take: still nothing changed, the bot stays up."""
    await harness.add_character("Roryn", vit=0, dead=True)
    before = await snapshot(harness.db)
    with flaky(harness, ["500"] * 5) as discord:
        await harness.driver.invoke(harness.owner, "damage", character="Roryn", amount=3)
    assert discord.steps[:5] == ["500"] * 5
    assert await snapshot(harness.db) == before
    assert logs.records, "the failed reply was not logged"
    assert not errors(logs), logs.text()


# --- the deferred path ---------------------------------------------------------------------------

DEFER_S = 0.02  # instead of 2 s
SLOW_S = 0.3  # the command's database work, long past the defer


@pytest.fixture
def deferred(harness: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    """The bot defers after DEFER_S, and /damage's transaction takes SLOW_S: every command is
    answered on the deferred path (a "thinking" callback, then an edit of that message)."""
    monkeypatch.setattr(replies, "DEFER_AFTER_S", DEFER_S)
    db = harness.db
    act = db.act

    async def slow_act(*args: Any, **kwargs: Any) -> Any:
        await asyncio.sleep(SLOW_S)
        return await act(*args, **kwargs)

    monkeypatch.setattr(db, "act", slow_act)
    return harness


async def test_without_faults_a_slow_command_is_deferred_and_answered_once(deferred: Any) -> None:
    """The path the faults below break: one callback (5), then the deferred message edited
    into the public result."""
    h = deferred
    await h.add_character("Roryn")
    with flaky(h, []) as discord:
        result = await h.driver.invoke(h.owner, "damage", character="Roryn", amount=3)
    assert [a.kind for a in discord.callbacks()] == [5], discord.attempts
    assert any(a.method == "PATCH" for a in discord.attempts), discord.attempts
    [message] = result.messages
    assert not message.loading and not message.ephemeral and message.card.title, result.text()
    await committed_once(h)


# (fault script, the callback Discord ends up with: 5 the defer, 4 a direct answer, and who
# must log it at WARNING or above; None: discord.py retried and delivered, nothing failed)
DEFERRED_FAULTS = [
    pytest.param(["500"], 5, None, id="defer-500-then-delivered"),
    pytest.param(["429"], 5, "discord", id="defer-429-retry-after"),
    pytest.param(["500"] * 5, 4, "lastgasp.replies", id="defer-500-on-every-retry"),
    pytest.param(
        ["timeout"],
        4,
        "lastgasp",
        id="defer-timeout",
    ),
    pytest.param(["ok", "500"], 5, None, id="answer-500-then-delivered"),
    pytest.param(["ok"] + ["500"] * 5, 5, "lastgasp.errors", id="answer-500-on-every-retry"),
    pytest.param(["ok", "timeout"], 5, "lastgasp.errors", id="answer-timeout"),
    pytest.param(["ok", "lost"], 5, None, id="answer-delivered-but-answer-lost"),
    pytest.param(
        ["lost"],
        5,
        "lastgasp",
        id="defer-delivered-but-answer-lost",
    ),
]


@pytest.mark.parametrize(("script", "kind", "logger"), DEFERRED_FAULTS)
async def test_a_fault_on_the_deferred_path_still_answers_once(
    deferred: Any,
    logs: LogCapture,
    caplog: pytest.LogCaptureFixture,
    script: list[str],
    kind: int,
    logger: str | None,
) -> None:
    h = deferred
    await h.add_character("Roryn")
    with caplog.at_level(logging.WARNING), flaky(h, script) as discord:
        result = await h.driver.invoke(h.owner, "damage", character="Roryn", amount=3)
    assert discord.steps[: len(script)] == script, discord.attempts
    await committed_once(h)

    # One callback, and the user is left with an answer, not "thinking…".
    assert [a.kind for a in discord.callbacks()] == [kind], discord.attempts
    assert result.messages, "no answer at all"
    assert not any(m.loading for m in result.messages), f"left thinking: {result.text()}"
    for text in told(result):
        assert SOMETHING_WENT_WRONG not in text and NOTHING_CHANGED not in text, text
    shown = [m for m in result.messages if m.card.title or REPLY_FAILED in m.card.body]
    assert shown, f"neither the result nor what to do instead: {result.text()}"
    # A failure is a warning in the log, never an error (nor an unretrieved task exception).
    assert not errors(logs), logs.text()
    if logger is not None:
        assert logged_by(caplog, logger), f"the failure was not logged by {logger}"

    await stays_up(h)


async def test_a_refusal_after_a_defer_stays_private_under_a_fault(deferred: Any) -> None:
    """A refusal on the deferred path is private although the defer was public; a fault on the
    way (the placeholder's edit retried) does not make it public."""
    h = deferred
    await h.add_character("Roryn", vit=0, dead=True)
    before = await snapshot(h.db)
    with flaky(h, ["ok", "500"]) as discord:
        result = await h.driver.invoke(h.owner, "damage", character="Roryn", amount=3)
    assert [a.kind for a in discord.callbacks()] == [5], discord.attempts
    refusals = [m for m in result.messages if "Dead" in m.card.body]
    assert refusals and all(m.ephemeral for m in refusals), result.text()
    assert not [m for m in result.messages if not m.ephemeral and m.card.body.strip("…")]
    assert await snapshot(h.db) == before


async def test_the_defer_delay_can_be_changed_at_run_time(
    harness: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(replies, "DEFER_AFTER_S", DEFER_S)
    await harness.add_character("Roryn")
    act = harness.db.act

    async def slow_act(*args: Any, **kwargs: Any) -> Any:
        await asyncio.sleep(SLOW_S)
        return await act(*args, **kwargs)

    monkeypatch.setattr(harness.db, "act", slow_act)
    result = await harness.driver.invoke(harness.owner, "damage", character="Roryn", amount=3)
    [callback] = [r for r in result.requests if r.path.endswith("/callback")]
    assert callback.payload["type"] == 5, "not deferred after DEFER_AFTER_S"


# --- the bot's own channel messages (the status boards) ------------------------------------------


async def test_a_board_edit_allows_no_mention(harness: Any) -> None:
    h = harness
    await h.run(h.gm, "board start")
    stopped = await h.driver.invoke(h.gm, "board stop")
    [edit] = [r for r in stopped.requests if r.method == "PATCH" and "/channels/" in r.path]
    assert edit.payload.get("allowed_mentions") == {"parse": []}, edit.payload
