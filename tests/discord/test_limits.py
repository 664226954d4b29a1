"""Limits against abuse (docs/commands.md, "Too many commands at once"), driven as Discord drives
them: a member's flood of commands and clicks through the real command tree, on a fake clock.

What is proved here: per member per server, RATE_LIMIT commands and clicks together in any
window (8 in 10 s here); every one beyond is answered at once, privately (one callback, never
deferred), with the slow-down text, and changes nothing; another member, or the same member in
another server, is not slowed; the window reopens; autocomplete has a rate of its own, beyond
which it offers nothing without a database read; the windows stay bounded in memory; the
RATE_LIMIT setting. The harness's bots have no limit (create_bot's default): each test here
turns it on.
"""

from __future__ import annotations

import asyncio
import logging
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from pydantic import ValidationError

from bot.app import create_bot
from bot.config import Settings, describe_settings_error
from bot.limits import AUTOCOMPLETE_FACTOR, DEFAULT_RATE_LIMIT, Limits, RateLimit, Window
from bot.offline import EPHEMERAL, Message, Result
from tests.discord.conftest import Harness, assert_refused

RATE = RateLimit(8, 10.0)
SLOW_DOWN = "Slow down: a member may send 8 commands and button presses in 10 seconds."
NOTHING_CHANGED = "Nothing was changed."


class FakeClock:
    """The bot's clock, moved by the test (never slept on)."""

    def __init__(self) -> None:
        self.now = datetime(2026, 1, 1, 20, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


def limited(harness: Harness, rate: RateLimit = RATE) -> FakeClock:
    """The harness's bot held to `rate`, on a fake clock of its own."""
    clock = FakeClock()
    bot = harness.bot
    bot.clock = clock
    bot.limits = Limits(rate, clock=lambda: bot.clock().timestamp())
    return clock


def slowed(result: Result) -> bool:
    return result.reply.ephemeral and result.reply.card.body.startswith("Slow down")


def assert_slowed_at_once(result: Result, seconds: int) -> None:
    """The slow-down answer: private, plain, one callback that is the answer (no defer)."""
    text = assert_refused(result, SLOW_DOWN, NOTHING_CHANGED)
    assert f"Try again in {seconds} second" in text
    [callback] = [r for r in result.requests if r.path.endswith("/callback")]
    assert callback.payload["type"] == 4 and callback.payload["data"]["flags"] & EPHEMERAL
    assert len(result.requests) == 1


async def combat_board(harness: Harness) -> tuple[Message, str]:
    """Roryn (VIT 10) in combat, a status board: its message and its Next round button."""
    await harness.add_character("Roryn", vit=10)
    await harness.start_combat(["Roryn"])
    await harness.run(harness.gm, "board start")
    [message] = harness.driver.channel_messages.values()
    button = f"lg:board:round:{harness.guild.channel_id}"
    return message, button


async def current_round(harness: Harness) -> int:
    async with harness.db.transaction(harness.guild.id, read_only=True) as uow:
        return (await uow.combat(harness.guild.channel_id)).round


# --- the flood -----------------------------------------------------------------------------------


async def test_a_flood_of_commands_and_clicks_lets_8_through_and_slows_the_rest(any_harness):
    """40 /damage and 40 Next round clicks by one member within one second: the first 8 go
    through (4 of each), the other 72 are each answered privately at once, and change nothing
    (every table as it was after the 8th)."""
    harness = any_harness
    message, button = await combat_board(harness)
    clock = limited(harness)
    passed: list[Result] = []
    before: Any = None
    for i in range(80):
        if i % 2:
            result = await harness.click(harness.gm, message, button)
        else:
            result = await harness.run(harness.gm, "damage", character="Roryn", amount=1)
        if slowed(result):
            assert_slowed_at_once(result, 10)
        else:
            passed.append(result)
        if i == 7:
            before = await harness.snapshot()
        clock.advance(1 / 80)
    assert len(passed) == 8 and not any(r.ephemeral for r in passed)
    assert await harness.snapshot() == before  # the 72 slowed changed nothing
    assert (await harness.sheet("Roryn")).vit == 10 - 4
    assert await current_round(harness) == 1 + 4

    # Another member of the server is not slowed; nor is the GM's other server's member.
    heal = await harness.run(harness.owner, "heal", character="Roryn", amount=1)
    assert not heal.ephemeral and (await harness.sheet("Roryn")).vit == 7
    assert not slowed(await harness.run(harness.outsider, "character list"))


async def test_a_concurrent_burst_lets_exactly_8_through(any_harness):
    """40 /damage and 40 My sheet clicks sent at once, none awaited before the next is sent:
    still exactly 8 handled (the damage among them is all the damage done), 72 slowed."""
    harness = any_harness
    message, _ = await combat_board(harness)
    await harness.select(harness.owner, "Roryn")
    limited(harness)
    driver = harness.driver
    sends = []
    for i in range(80):
        if i % 2:
            click = driver.click_payload(harness.owner, message, "lg:board:sheet")
            sends.append(driver.send(click, clicked=message))
        else:
            payload = driver.payload(harness.owner, "damage", character="Roryn", amount=1)
            sends.append(driver.send(payload))
    results = [harness.validated(await sent.result()) for sent in sends]
    for result in (slow := [r for r in results if slowed(r)]):
        assert_slowed_at_once(result, 10)
    passed = [r for r in results if not slowed(r)]
    assert len(slow) == 72 and len(passed) == 8
    damaged = [r for r in passed if "takes 1 damage" in r.text()]
    shown = [r for r in passed if r.reply.ephemeral and "Roryn" in r.card.title]
    assert len(damaged) + len(shown) == 8
    assert (await harness.sheet("Roryn")).vit == 10 - len(damaged)


async def test_the_window_reopens_after_10_seconds(harness):
    clock = limited(harness)
    await harness.add_character("Roryn", vit=10)
    for _ in range(8):
        assert not slowed(await harness.run(harness.owner, "damage", character="Roryn", amount=1))
    clock.advance(3.2)
    assert_slowed_at_once(await harness.run(harness.owner, "odds", character="Roryn"), 7)
    clock.advance(6.7)  # 9.9 s after the first: still full
    assert_slowed_at_once(await harness.run(harness.owner, "odds", character="Roryn"), 1)
    clock.advance(0.1)  # 10 s after the first of the 8: room for 8 again
    for _ in range(8):
        assert not slowed(await harness.run(harness.owner, "heal", character="Roryn", amount=1))
    assert slowed(await harness.run(harness.owner, "heal", character="Roryn", amount=1))
    assert (await harness.sheet("Roryn")).vit == 10


async def test_the_same_member_in_another_server_is_counted_apart(harness):
    limited(harness)
    elsewhere = harness.driver.member(harness.other_guild, "Alice", user_id=harness.owner.user_id)
    for _ in range(8):
        assert not slowed(await harness.run(harness.owner, "character list"))
    assert slowed(await harness.run(harness.owner, "character list"))
    assert not slowed(await harness.run(elsewhere, "character list"))


async def test_a_slowed_click_on_the_delete_question_deletes_nothing(harness):
    """A click is counted with the commands: the 9th, a Delete, is slowed and the character
    stays."""
    limited(harness)
    await harness.add_character("Roryn")
    asked = await harness.run(harness.owner, "character delete", character="Roryn")
    delete = next(
        b.custom_id
        for b in asked.card.buttons
        if b.custom_id.startswith("lg:delete:") and "cancel" not in b.custom_id
    )
    for _ in range(7):
        await harness.run(harness.owner, "character list")
    before = await harness.snapshot()
    assert_slowed_at_once(await harness.click(harness.owner, asked.reply, delete), 10)
    assert await harness.snapshot() == before
    assert (await harness.sheet("Roryn")).name == "Roryn"


async def test_each_slowed_command_and_click_ends_with_its_log_line(harness, caplog):
    """One log line per interaction however it ends: `outcome=slowed` for those slowed."""
    message, _ = await combat_board(harness)
    limited(harness)
    for _ in range(8):
        await harness.run(harness.owner, "character list")
    with caplog.at_level(logging.INFO, logger="lastgasp.commands"):
        await harness.run(harness.owner, "character list")
        await harness.click(harness.owner, message, "lg:board:sheet")
    lines = [r.getMessage() for r in caplog.records if r.name == "lastgasp.commands"]
    assert len(lines) == 2 and all("outcome=slowed" in line for line in lines), lines
    assert 'command="character list"' in lines[0] and "command=board:sheet" in lines[1]


# --- autocomplete --------------------------------------------------------------------------------


async def test_an_autocomplete_flood_gets_no_choices_and_reads_nothing(any_harness, monkeypatch):
    """Autocomplete's own rate (5 × 8 in 10 s): beyond it, no choices, and no database
    transaction is opened for it. Commands keep their own count."""
    harness = any_harness
    limited(harness)
    await harness.add_character("Roryn")
    opened = []
    transaction = harness.db.transaction

    def counted(*args: Any, **kwargs: Any) -> Any:
        opened.append(args)
        return transaction(*args, **kwargs)

    monkeypatch.setattr(harness.db, "transaction", counted)
    allowed = RATE.count * AUTOCOMPLETE_FACTOR
    for _ in range(allowed):
        choices = await harness.complete(harness.owner, "damage", "character", character="Ro")
        assert [c["value"] for c in choices] == ["Roryn"]
    assert len(opened) == allowed
    for _ in range(20):
        assert await harness.complete(harness.owner, "damage", "character", character="Ro") == []
    assert len(opened) == allowed  # the 20 beyond read nothing
    # The member's commands are counted apart, and another member types freely.
    assert not slowed(await harness.run(harness.owner, "character list"))
    choices = await harness.complete(harness.player, "damage", "character", character="Ro")
    assert [c["value"] for c in choices] == ["Roryn"]


# --- the harness, the setting, the memory --------------------------------------------------------


async def test_the_harness_and_create_bot_have_no_limit_unless_given(harness, tmp_path):
    """The tests, the console and the benchmark send many commands quickly: no limit unless
    create_bot is given one (RATE_LIMIT gives it to `python -m bot run`)."""
    assert harness.bot.limits.rate is None
    await harness.add_character("Roryn", max_vit=100)
    for _ in range(30):
        assert not slowed(await harness.run(harness.owner, "damage", character="Roryn", amount=1))
    bot = create_bot(f"sqlite+aiosqlite:///{tmp_path / 'x.db'}", rate_limit=RATE)
    assert bot.limits.rate == RATE


@pytest.mark.parametrize(
    ("written", "rate"),
    [
        ("8/10s", RATE),
        ("8/10", RATE),
        (" 30 / 1m ", RateLimit(30, 60.0)),
        ("off", None),
        ("", DEFAULT_RATE_LIMIT),
    ],
)
def test_rate_limit_setting(monkeypatch, written, rate):
    monkeypatch.setenv("RATE_LIMIT", written)
    assert Settings(_env_file=None).rate_limit == rate


def test_no_rate_limit_setting_is_8_in_10_seconds(monkeypatch):
    monkeypatch.delenv("RATE_LIMIT", raising=False)
    assert Settings(_env_file=None).rate_limit == RateLimit(8, 10.0) == DEFAULT_RATE_LIMIT


@pytest.mark.parametrize("written", ["fast", "8 per 10s", "0/10s", "8/0s"])
def test_a_wrong_rate_limit_says_how_to_write_one(monkeypatch, written):
    monkeypatch.setenv("RATE_LIMIT", written)
    with pytest.raises(ValidationError) as raised:
        Settings(_env_file=None)
    said = describe_settings_error(raised.value)
    assert said.startswith("RATE_LIMIT: ") and "e.g. 8/10s, or off" in said


def test_a_member_of_10000_servers_does_not_grow_the_windows_without_end():
    window = Window(RATE, keys=100)
    for guild in range(10_000):
        assert window.admit((guild, 42), now=guild / 1000) == 0
    assert len(window) == 100  # the least recently let through forgotten first
    assert window.admit((20_000, 42), now=30.0) == 0
    assert len(window) == 1  # every window that emptied is forgotten


def test_a_clock_set_back_does_not_hold_a_member_back():
    window = Window(RATE)
    for _ in range(8):
        window.admit((1, 2), now=1000.0)
    assert window.admit((1, 2), now=1000.0) == pytest.approx(10.0)
    assert window.admit((1, 2), now=400.0) == 0  # the clock went back ten minutes


async def test_bursts_from_many_members_each_get_their_own_8(harness):
    limited(harness)
    members = [harness.member(f"Player {n}") for n in range(5)]
    sends = [
        harness.driver.send(harness.driver.payload(member, "character list"))
        for _ in range(10)
        for member in members
    ]
    results = [await sent.result() for sent in sends]
    assert sum(not slowed(r) for r in results) == 5 * 8
    await asyncio.sleep(0)
