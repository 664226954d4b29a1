"""GET /metrics (README, "Metrics"): after a scripted load through the real command tree, every
figure equals the load's counts; labels are bounded and hold no id; the Grafana dashboard reads
only metrics the exposition has."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import threading
import time
import types
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import aiohttp
import discord
import pytest
from prometheus_client.parser import text_string_to_metric_families

from bot import replies
from bot.app import create_bot
from bot.health import HealthServer
from bot.logs import component_name
from bot.metrics import BUCKETS, BUTTON_NAMES
from bot.offline import Message, OfflineDriver, Request
from bot.render.buttons import (
    BUTTONS,
    DeleteButton,
    Expired,
    MySheetButton,
    NextRoundButton,
    OddsButton,
    RaiseButton,
    RecoveryButton,
    SceneMenu,
)
from rules.dice import ScriptedRandom
from rules.models import Emotion, EmotionCause
from tests.discord.conftest import (
    PG_SERVER,
    SKIP_PG,
    Harness,
    assert_refused,
    postgres_database,
    started,
)
from tests.discord.test_window import sqlite_path, sqlite_write_lock

ROOT = Path(__file__).resolve().parents[2]
DASHBOARD = ROOT / "docs" / "grafana-dashboard.json"
BUSY = "busy right now: nothing was changed"


class Figures:
    """One scrape, parsed: value(name, **labels) is a sample's value (0 when absent)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.samples: dict[tuple[str, frozenset[tuple[str, str]]], float] = {}
        for family in text_string_to_metric_families(text):
            for sample in family.samples:
                self.samples[sample.name, frozenset(sample.labels.items())] = sample.value

    def value(self, name: str, **labels: str) -> float:
        return self.samples.get((name, frozenset(labels.items())), 0.0)

    def names(self) -> set[str]:
        return {name for name, _ in self.samples}

    def labelled(self, name: str) -> dict[frozenset[tuple[str, str]], float]:
        return {labels: v for (n, labels), v in self.samples.items() if n == name}


@contextlib.asynccontextmanager
async def serving(bot: Any) -> AsyncIterator[Any]:
    """The bot's health server on a free port; yields `scrape()`, a GET /metrics."""
    server = HealthServer(bot, "127.0.0.1", 0)
    port = await server.start()

    async def scrape() -> Figures:
        url = f"http://127.0.0.1:{port}/metrics"
        async with aiohttp.ClientSession() as session, session.get(url) as response:
            assert response.status == 200
            assert response.headers["Content-Type"].startswith("text/plain")
            return Figures(await response.text())

    try:
        yield scrape
    finally:
        await server.close()


@pytest.fixture
async def harness(tmp_path: Path, spec_validator: Any) -> AsyncIterator[Harness]:
    """tests/discord/conftest.py's: a fresh bot on a fresh SQLite file."""
    async with started(f"sqlite+aiosqlite:///{tmp_path / 'lastgasp.db'}", spec_validator) as h:
        yield h


@pytest.fixture
async def scrape(harness: Harness) -> AsyncIterator[Any]:
    async with serving(harness.bot) as get:
        yield get


def old_message(custom_id: str) -> Message:
    """A message of the bot's carrying one button (Discord sends a click only for one there)."""
    from bot.offline.payloads import snowflake

    button = {"type": 2, "style": 1, "label": "Odds", "custom_id": custom_id}
    return Message(
        id=snowflake(), kind="reply", flags=0, components=[{"type": 1, "components": [button]}]
    )


def ids_of(harness: Harness) -> set[str]:
    """Every guild, channel and user id the harness knows (snowflakes: never small numbers)."""
    found = set()
    for guild in (harness.guild, harness.other_guild):
        found.update({str(guild.id), str(guild.channel_id)})
    for member in (harness.owner, harness.player, harness.gm, harness.gm_role, harness.outsider):
        found.add(str(member.user_id))
    return found


# --- commands, clicks, autocompletes --------------------------------------------------------------


async def test_the_figures_equal_a_scripted_loads_counts(harness, scrape):
    await harness.add_character("Roryn", vit=10)
    await harness.add_character("Sela", vit=0)  # down: her odds are shown
    row = await harness.row("Sela")
    for _ in range(5):
        done = await harness.run(harness.owner, "damage", character="Roryn", amount=1)
        assert not done.ephemeral
    for _ in range(2):  # P-4: another player's character
        assert_refused(
            await harness.run(harness.player, "damage", character="Roryn", amount=1), "player"
        )
    odds = old_message(f"lg:odds:{row.id}")
    for _ in range(2):
        assert (await harness.click(harness.owner, odds, f"lg:odds:{row.id}")).reply.ephemeral
    forged = old_message("lg:forged:1")
    await harness.click(harness.owner, forged, "lg:forged:1")  # answered as expired
    for _ in range(3):
        await harness.complete(harness.owner, "damage", "character", character="Ro")
    unknown = harness.driver.payload(harness.owner, "damage", character="Roryn", amount=1)
    unknown["data"]["name"] = "renamed-long-ago"  # a command this bot no longer has
    assert_refused(harness.validated(await harness.driver.feed(unknown)), "out of date")

    figures = await scrape()
    assert figures.labelled("lastgasp_commands_total") == {
        frozenset({("command", "damage"), ("outcome", "ok")}): 5.0,
        frozenset({("command", "damage"), ("outcome", "refused")}): 2.0,
        frozenset({("command", "other"), ("outcome", "refused")}): 1.0,
    }
    assert figures.value("lastgasp_command_duration_seconds_count", command="damage") == 7
    assert figures.value("lastgasp_command_duration_seconds_count", command="other") == 1
    assert figures.labelled("lastgasp_clicks_total") == {
        frozenset({("button", "odds"), ("outcome", "ok")}): 2.0,
        frozenset({("button", "other"), ("outcome", "expired")}): 1.0,
    }
    assert figures.value("lastgasp_click_duration_seconds_count", button="odds") == 2
    assert figures.labelled("lastgasp_autocompletes_total") == {
        frozenset({("command", "damage"), ("outcome", "ok")}): 3.0,
    }
    assert figures.value("lastgasp_autocomplete_duration_seconds_count") == 3
    # The buckets are Discord's window's: every command here is far below 3 s.
    buckets = {
        float(dict(labels)["le"]): v
        for labels, v in figures.labelled("lastgasp_command_duration_seconds_bucket").items()
        if ("command", "damage") in labels
    }
    assert sorted(buckets) == [*BUCKETS, float("inf")]
    assert buckets[3.0] == buckets[float("inf")] == 7
    assert figures.value("lastgasp_busy_refusals_total", kind="command") == 0
    assert figures.value("lastgasp_deferred_answers_total") == 0
    # No label holds an id, and no label value is a number at all but the buckets' and shards'.
    for found in ids_of(harness):
        assert found not in figures.text, found
    for (name, labels), _ in figures.samples.items():
        for key, value in labels:
            if key not in ("le", "quantile", "shard"):
                assert not value.isdigit(), (name, key, value)


def test_every_button_has_a_bounded_name():
    """Each button of bot/render/buttons.py is named as the log line names it, in BUTTON_NAMES."""
    samples = [
        RecoveryButton(1, 2, 3),
        OddsButton(1),
        DeleteButton("confirm", 1, 2, 3),
        DeleteButton("cancel", 1, 2, 3),
        NextRoundButton(1),
        MySheetButton(),
        RaiseButton(1, Emotion.FEAR, EmotionCause.DARING_THROW, 2, 0),
        SceneMenu("damage", "3", 1, 2),
        Expired("delete:confirm:abc123"),
    ]
    assert {type(button) for button in samples} == set(BUTTONS)
    names = {
        component_name(types.SimpleNamespace(data={"custom_id": b.custom_id}))  # type: ignore[arg-type]
        for b in samples
    }
    assert names == BUTTON_NAMES


# --- lock waits and busy refusals -----------------------------------------------------------------


@contextlib.contextmanager
def file_lock_held(database: str, seconds: float) -> Iterator[None]:
    """Another process's writer holds the write lock of bot/db/writelock.py for `seconds`."""
    import fcntl

    fd = os.open(f"{database}-lock", os.O_RDWR | os.O_CREAT, 0o644)
    fcntl.flock(fd, fcntl.LOCK_EX)
    releasing = threading.Timer(seconds, os.close, (fd,))  # closing lets the flock go
    releasing.start()
    try:
        yield
    finally:
        releasing.join()


async def test_lock_waits_and_a_busy_refusal_are_counted(harness, scrape):
    await harness.add_character("Roryn", vit=10)
    database = sqlite_path(harness)
    before = await scrape()
    assert before.value("lastgasp_lock_wait_seconds_count") == 0
    with file_lock_held(database, 0.3):  # the hot path's writer thread waits, then writes
        done = await harness.run(harness.owner, "damage", character="Roryn", amount=1)
    assert not done.ephemeral
    with file_lock_held(database, 0.3):  # a unit of work waits on the event loop
        assert not (await harness.run(harness.gm, "day")).reply.ephemeral
    waited = await scrape()
    assert waited.value("lastgasp_lock_wait_seconds_count") == 2
    assert 0.5 <= waited.value("lastgasp_lock_wait_seconds_sum") < 2.0
    assert waited.value("lastgasp_busy_refusals_total", kind="command") == 0

    with file_lock_held(database, 2.0):  # past the 1.5 s budget: busy, nothing changed
        assert_refused(
            await harness.run(harness.owner, "damage", character="Roryn", amount=1), BUSY
        )
    busy = await scrape()
    assert busy.value("lastgasp_busy_refusals_total", kind="command") == 1
    assert busy.value("lastgasp_busy_refusals_total", kind="click") == 0
    assert busy.value("lastgasp_lock_wait_seconds_count") == 3
    assert busy.value("lastgasp_commands_total", command="damage", outcome="refused") == 1


async def test_a_busy_click_is_counted_as_a_click(harness, scrape):
    await harness.add_character("Roryn", vit=0)
    row = await harness.row("Roryn")
    custom_id = f"lg:recover:{row.id}:0:2"
    with sqlite_write_lock(sqlite_path(harness), 2.0):  # as tests/discord/test_window.py holds it
        clicked = await harness.click(harness.gm, old_message(custom_id), custom_id)
    assert_refused(clicked, BUSY)
    figures = await scrape()
    assert figures.value("lastgasp_busy_refusals_total", kind="click") == 1
    assert figures.value("lastgasp_clicks_total", button="recover", outcome="refused") == 1


# --- deferred and late answers --------------------------------------------------------------------


class DiscordDown:
    status = 500
    reason = "Internal Server Error"


async def test_deferred_and_late_answers(harness, scrape, monkeypatch):
    await harness.add_character("Roryn", vit=10)
    monkeypatch.setattr(replies, "DEFER_AFTER_S", 0.1)
    with sqlite_write_lock(sqlite_path(harness), 0.5):  # deferred at 0.1 s, answered in time
        done = await harness.run(harness.owner, "damage", character="Roryn", amount=1)
    assert not done.messages[0].ephemeral
    figures = await scrape()
    assert figures.value("lastgasp_deferred_answers_total") == 1
    assert figures.value("lastgasp_late_answers_total", reason="after_window") == 0

    # The first answer only after the window (here 0.2 s; no defer to save it): late.
    monkeypatch.setattr(replies, "DEFER_AFTER_S", 10.0)
    monkeypatch.setattr(replies, "WINDOW_S", 0.2)
    with sqlite_write_lock(sqlite_path(harness), 0.5):
        await harness.run(harness.owner, "damage", character="Roryn", amount=1)
    figures = await scrape()
    assert figures.value("lastgasp_deferred_answers_total") == 1
    assert figures.value("lastgasp_late_answers_total", reason="after_window") == 1
    assert figures.value("lastgasp_late_answers_total", reason="failed") == 0

    # An answer Discord does not take: failed (once, though the apology follows it).
    monkeypatch.setattr(replies, "WINDOW_S", 3.0)
    from bot.offline import seams

    calls: list[Any] = []

    async def refuse_first_callback(route: Any, **kwargs: Any) -> Any:
        if route.path.endswith("/callback") and not calls:
            calls.append(route)
            raise discord.HTTPException(DiscordDown(), "Discord is down")
        return await harness.driver.handle_webhook(route, **kwargs)

    remove = seams.install_webhooks(refuse_first_callback)
    try:
        await harness.run(harness.owner, "damage", character="Roryn", amount=1)
    finally:
        remove()
    figures = await scrape()
    assert figures.value("lastgasp_late_answers_total", reason="failed") == 1
    assert figures.value("lastgasp_late_answers_total", reason="after_window") == 1
    assert figures.value("lastgasp_commands_total", command="damage", outcome="ok") == 2


# --- shards, guilds, the pool, memory ------------------------------------------------------------


async def test_gateway_guilds_pool_and_memory(harness, scrape, monkeypatch):
    bot = harness.bot
    figures = await scrape()
    assert figures.value("lastgasp_guilds", shard="0") == 2  # the harness's two guilds
    assert figures.value("lastgasp_gateway_connected", shard="0") == 0  # never logged in
    assert ("lastgasp_gateway_latency_seconds", frozenset({("shard", "0")})) not in figures.samples

    monkeypatch.setattr(bot, "is_ready", lambda: True)  # what READY would set
    monkeypatch.setattr(type(bot), "latency", property(lambda self: 0.042))
    figures = await scrape()
    assert figures.value("lastgasp_gateway_connected", shard="0") == 1
    assert figures.value("lastgasp_gateway_latency_seconds", shard="0") == 0.042
    bot.dispatch("disconnect")  # the gateway dropped: down until it connects again
    await asyncio.sleep(0.05)
    assert (await scrape()).value("lastgasp_gateway_connected", shard="0") == 0
    bot.dispatch("resumed")
    await asyncio.sleep(0.05)
    assert (await scrape()).value("lastgasp_gateway_connected", shard="0") == 1

    assert figures.value("lastgasp_db_pool_connections", state="in_use") == 0
    assert figures.value("lastgasp_db_pool_size") == 5  # SQLAlchemy's default
    async with harness.db.transaction(harness.guild.id, read_only=True):
        held = await scrape()  # one connection checked out by the open transaction
    assert held.value("lastgasp_db_pool_connections", state="in_use") == 1
    assert (await scrape()).value("lastgasp_db_pool_connections", state="in_use") == 0
    assert figures.value("process_resident_memory_bytes") > 10_000_000


async def test_each_process_shows_its_own_shards():
    """A process of shards 1 and 3 of 4 lists those two, before it has connected or set up."""
    bot = create_bot("sqlite+aiosqlite:///:memory:", shard_count=4, shard_ids=[1, 3])
    async with serving(bot) as scrape:
        figures = await scrape()
    assert figures.labelled("lastgasp_gateway_connected") == {
        frozenset({("shard", "1")}): 0.0,
        frozenset({("shard", "3")}): 0.0,
    }
    assert figures.labelled("lastgasp_guilds") == {
        frozenset({("shard", "1")}): 0.0,
        frozenset({("shard", "3")}): 0.0,
    }
    assert "lastgasp_db_pool_size" not in figures.names()  # no database connected yet
    other = create_bot("sqlite+aiosqlite:///:memory:")
    assert other.metrics.registry is not bot.metrics.registry  # one registry per bot


# --- boards ---------------------------------------------------------------------------------------

CHANNEL_MESSAGE = "/channels/{channel_id}/messages/{message_id}"


def too_many_requests() -> discord.HTTPException:
    response = types.SimpleNamespace(status=429, reason="Too Many Requests")
    return discord.HTTPException(response, {"code": 0, "message": "You are being rate limited."})


async def eventually(check: Any, what: str, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not await check():
        assert time.monotonic() < deadline, f"not within {timeout} s: {what}"
        await asyncio.sleep(0.02)


async def test_boards_their_edits_and_429s(tmp_path, spec_validator):
    bot = create_bot(
        f"sqlite+aiosqlite:///{tmp_path / 'lastgasp.db'}", ScriptedRandom(), board_interval=0.1
    )
    driver = OfflineDriver(bot)
    try:
        await driver.start()
        harness = Harness(driver, spec_validator)
        async with serving(bot) as scrape:
            await harness.add_character("Roryn", vit=10)
            assert (await scrape()).value("lastgasp_boards_active") == 0
            await harness.run(harness.gm, "board start")
            figures = await scrape()
            assert figures.value("lastgasp_boards_active") == 1
            assert figures.value("lastgasp_board_edits_total") == 0  # posted, not edited

            await harness.run(harness.owner, "damage", character="Roryn", amount=1)

            async def edits(n: int) -> bool:
                return (await scrape()).value("lastgasp_board_edits_total") == n

            await eventually(lambda: edits(1), "one edit")
            limited: list[Request] = []

            def first_edit_limited(request: Request) -> BaseException | None:
                if request.method == "PATCH" and request.path == CHANNEL_MESSAGE and not limited:
                    limited.append(request)
                    return too_many_requests()
                return None

            driver.faults.append(first_edit_limited)
            await harness.run(harness.owner, "damage", character="Roryn", amount=1)
            await eventually(lambda: edits(3), "the 429, then the edit tried again")
            await asyncio.sleep(0.3)
            figures = await scrape()
            assert figures.value("lastgasp_board_edits_total") == 3
            assert figures.value("lastgasp_board_rate_limited_total") == 1
            await harness.run(harness.gm, "board stop")
            assert (await scrape()).value("lastgasp_boards_active") == 0
        harness.check_all_requests()
    finally:
        await driver.close()


# --- the dashboard --------------------------------------------------------------------------------

METRIC = re.compile(r"\b((?:lastgasp|process)_[a-z0-9_]+)\b")


def _queries(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "expr" and isinstance(value, str):
                yield value
            else:
                yield from _queries(value)
    elif isinstance(node, list):
        for item in node:
            yield from _queries(item)


async def test_the_dashboard_reads_only_metrics_the_exposition_has(harness, scrape, monkeypatch):
    dashboard = json.loads(DASHBOARD.read_text(encoding="utf-8"))
    assert dashboard["title"] and dashboard["panels"]
    queries = list(_queries(dashboard))
    assert len(queries) >= 8
    # A little of everything, so that every labelled series has a sample.
    await harness.add_character("Roryn", vit=0)
    row = await harness.row("Roryn")
    monkeypatch.setattr(type(harness.bot), "latency", property(lambda self: 0.05))
    await harness.run(harness.owner, "damage", character="Roryn", amount=1)
    await harness.click(harness.owner, old_message(f"lg:odds:{row.id}"), f"lg:odds:{row.id}")
    await harness.complete(harness.owner, "damage", "character", character="Ro")
    figures = await scrape()
    named = {name for query in queries for name in METRIC.findall(query)}
    assert {
        "lastgasp_commands_total",
        "lastgasp_command_duration_seconds_bucket",
        "lastgasp_deferred_answers_total",
        "lastgasp_late_answers_total",
        "lastgasp_busy_refusals_total",
        "lastgasp_gateway_latency_seconds",
        "process_resident_memory_bytes",
    } <= named
    missing = named - figures.names()
    assert not missing, f"the dashboard reads metrics /metrics does not have: {sorted(missing)}"


@pytest.mark.postgres
async def test_on_postgresql_the_pool_is_shown_and_no_lock_wait(spec_validator):
    if not PG_SERVER:
        pytest.skip(SKIP_PG)
    async with postgres_database(PG_SERVER) as url, started(url, spec_validator) as harness:
        await harness.add_character("Roryn", vit=10)
        await harness.run(harness.owner, "damage", character="Roryn", amount=1)
        async with serving(harness.bot) as scrape:
            figures = await scrape()
    assert figures.value("lastgasp_commands_total", command="damage", outcome="ok") == 1
    assert figures.value("lastgasp_db_pool_size") == 10  # bot/db/engine.py's
    assert figures.value("lastgasp_db_pool_connections", state="in_use") == 0
    assert figures.value("lastgasp_lock_wait_seconds_count") == 0  # row locks wait in the server
