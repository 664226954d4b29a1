"""Graceful shutdown of `python -m bot run`: on SIGTERM or SIGINT every interaction in flight
finishes and answers, new ones are answered that nothing changed, and the process exits 0 within
10 s. The process tests run the real bot against the Discord stand-in (tests/ops/standin.py)."""

from __future__ import annotations

import asyncio
import logging
import re
import shlex
import signal
import socket
import sqlite3
import time
from collections import Counter
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from bot import replies
from bot.failures import EXPIRED
from bot.lifecycle import RESTARTING, InFlight, shut_down
from bot.offline import Message, snowflake
from tests.ops.standin import DiscordStandIn, bot_process, running_standin, sqlite_url
from tests.web.conftest import SECRET

SHUTDOWN_BOUND_S = 10.0
# Discord slow to take the answers: the commands are still in flight when the signal comes.
CALLBACK_DELAY_S = 0.8


@pytest.fixture
async def standin() -> AsyncIterator[DiscordStandIn]:
    async with running_standin() as running:
        yield running


def env(database: Path) -> dict[str, str]:
    return {"DISCORD_TOKEN": "t0ken", "DATABASE_URL": sqlite_url(database), "LOG_LEVEL": "INFO"}


def stored(database: Path) -> tuple[set[str], int, int]:
    """(the characters' names, how many damage events, Target's VIT) in the bot's database."""
    with sqlite3.connect(database) as conn:
        names = {row[0] for row in conn.execute("SELECT name_key FROM characters")}
        [(damages,)] = conn.execute("SELECT count(*) FROM events WHERE command = 'damage'")
        [(vit,)] = conn.execute(
            "SELECT json_extract(sheet, '$.vit') FROM characters WHERE name_key = 'target'"
        )
    return names, damages, vit


async def held_in_flight(standin: DiscordStandIn) -> dict[str, Any]:
    """A `/character create` the bot has read and whose answer Discord never takes: it stays
    in flight, so the drain waits for it."""
    standin.callback_delay = 30.0
    create = standin.command(standin.gm, "character create", name="Roryn")
    await standin.push(create)
    await standin.replies(create)
    return create


@pytest.mark.slow
async def test_sigterm_answers_every_command_and_click_of_a_burst_and_exits_0(standin, tmp_path):
    database = tmp_path / "bot.db"
    gm = standin.gm
    async with bot_process(standin.url, tmp_path, "run", **env(database)) as bot:
        await standin.connected()
        target = standin.command(gm, "character create", name="Target", max_vit=50)
        await standin.push(target)
        assert (await standin.replies(target))[0].title.endswith(" · Created")

        target_id = character_id(database, "target")

        standin.callback_delay = CALLBACK_DELAY_S
        burst = []
        for i in range(6):
            burst.append(standin.command(gm, "character create", name=f"Extra{i}"))
            burst.append(standin.command(gm, "damage", character="Target", amount=1))
        # Clicks in flight too: the odds of a character that is up (a refusal), a button the
        # bot no longer knows (expired).
        burst.append(standin.click(gm, f"lg:odds:{target_id}"))
        burst.append(standin.click(gm, "delete:yes:abc123"))
        for payload in burst:
            await standin.push(payload)
        # The bot has read the burst (its first answer is on its way): in flight, not new.
        await standin.replies(burst[0])
        bot.send_signal(signal.SIGTERM)
        signalled = time.monotonic()
        await bot.wait_for_line("SIGTERM: stopping")
        # Arriving while the burst drains: answered, not ignored, and nothing changes.
        late = [
            standin.command(gm, "damage", character="Target", amount=1),
            standin.click(gm, "lg:odds:1"),
            standin.click(gm, f"lg:recover:{target_id}:0:2"),  # a roll: no die is rolled
            standin.click(gm, "something the bot never drew"),
        ]
        for payload in late:
            await standin.push(payload)
        code = await bot.wait(SHUTDOWN_BOUND_S)
        took = time.monotonic() - signalled

    assert code == 0, bot.stderr
    assert took < SHUTDOWN_BOUND_S
    assert "Traceback" not in bot.stderr
    for payload in late:
        [late_reply] = standin.callbacks_for(payload)
        assert (late_reply.text, late_reply.ephemeral) == (RESTARTING, True), late_reply
    # One command log line per interaction, the late ones refused.
    logged = [
        dict(field.split("=", 1) for field in shlex.split(line.split("lastgasp.commands: ")[1]))
        for line in bot.lines
        if "lastgasp.commands: " in line
    ]
    assert len(logged) == 1 + len(burst) + len(late)
    assert {x["user"] for x in logged} == {str(gm.user_id)}
    late_lines = [("damage", "refused"), ("odds", "refused"), ("recover", "refused")]
    late_lines.append(("expired", "refused"))
    lines = Counter((x["command"], x["outcome"]) for x in logged)

    created, damaged = set(), 0
    for payload in burst:
        [reply] = standin.callbacks_for(payload)  # exactly one answer each
        command = payload["data"].get("name") or payload["data"]["custom_id"]
        if reply.text == RESTARTING:
            assert reply.ephemeral
        elif command.startswith("lg:odds:"):
            assert reply.ephemeral and "Target is Up" in reply.text, reply.body
        elif command == "delete:yes:abc123":
            assert (reply.text, reply.ephemeral) == (EXPIRED, True)
        elif command == "character":
            assert reply.title.endswith(" · Created"), reply.body
            created.add(payload["data"]["options"][0]["options"][0]["value"].casefold())
        else:
            assert "Damage" in reply.title, reply.body
            damaged += 1
    expected = Counter([("character create", "ok"), *late_lines])
    for payload in burst:
        [reply] = standin.callbacks_for(payload)
        command = payload["data"].get("name") or payload["data"]["custom_id"]
        name = {"character": "character create", "delete:yes:abc123": "expired"}.get(command)
        name = name or ("odds" if command.startswith("lg:odds:") else command)
        ended = "expired" if reply.text == EXPIRED else "ok"
        expected[(name, "refused" if reply.ephemeral and ended == "ok" else ended)] += 1
    assert lines == expected
    # The commands in flight were let finish: answered after the signal, not cut off.
    answered = [c for p in burst for c in standin.callbacks_for(p) if c.text != RESTARTING]
    assert answered and max(c.at for c in answered) > signalled
    # The database holds exactly what was answered as done.
    names, damage_events, vit = stored(database)
    assert names == {"target"} | created
    assert (damage_events, vit) == (damaged, 50 - damaged)
    assert standin.gateway_ops.count(2) == 1  # one session, closed at the end


@pytest.mark.slow
async def test_ctrl_c_stops_run_cleanly_after_the_command_in_flight(standin, tmp_path):
    database = tmp_path / "bot.db"
    async with bot_process(standin.url, tmp_path, "run", **env(database)) as bot:
        await standin.connected()
        standin.callback_delay = CALLBACK_DELAY_S
        create = standin.command(standin.gm, "character create", name="Roryn")
        await standin.push(create)
        await standin.replies(create)  # arrived; Discord has not answered the bot yet
        bot.send_signal(signal.SIGINT)
        code = await bot.wait(SHUTDOWN_BOUND_S)

    assert code == 0, bot.stderr
    assert "Traceback" not in bot.stderr and "KeyboardInterrupt" not in bot.stderr
    assert "SIGINT: stopping" in bot.stderr
    [reply] = standin.callbacks_for(create)
    assert reply.title.endswith(" · Created")
    assert stored_names(database) == {"roryn"}


@pytest.mark.slow
async def test_a_second_ctrl_c_stops_waiting_at_once(standin, tmp_path):
    database = tmp_path / "bot.db"
    async with bot_process(standin.url, tmp_path, "run", **env(database)) as bot:
        await standin.connected()
        await held_in_flight(standin)
        bot.send_signal(signal.SIGINT)
        await bot.wait_for_line("draining: waiting for 1 interaction(s) in flight")
        bot.send_signal(signal.SIGINT)
        hurried = time.monotonic()
        code = await bot.wait(SHUTDOWN_BOUND_S)

    assert code == 0, bot.stderr
    assert time.monotonic() - hurried < 3.0  # not the 8 s of a patient drain
    [line] = [line for line in bot.lines if "still running" in line]
    assert re.search(
        r"closing with 1 interaction\(s\) still running after 0\.\d s: character create", line
    )
    assert "Traceback" not in bot.stderr


@pytest.mark.slow
async def test_the_page_on_the_bots_loop_closes_at_the_signal_not_after_the_drain(
    standin, tmp_path
):
    """WEB_PORT served on the bot's event loop (a database in memory): its readers are let go
    while the bot drains its commands, so the whole stop stays in 10 s."""
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    page = f"http://127.0.0.1:{port}/"
    served = {"WEB_PORT": str(port), "WEB_HOST": "127.0.0.1", "WEB_SECRET": SECRET}
    memory = {**env(tmp_path / "unused.db"), "DATABASE_URL": "sqlite+aiosqlite://", **served}
    fresh = aiohttp.TCPConnector(force_close=True)  # a new connection every request
    async with (
        bot_process(standin.url, tmp_path, "run", **memory) as bot,
        aiohttp.ClientSession(connector=fresh) as session,
    ):
        await standin.connected()
        async with session.get(page) as answer:
            assert answer.status == 200  # served
        await held_in_flight(standin)
        bot.send_signal(signal.SIGTERM)
        await bot.wait_for_line("draining: waiting for 1 interaction(s) in flight")
        with pytest.raises(aiohttp.ClientConnectionError):
            async with session.get(page, timeout=aiohttp.ClientTimeout(total=2.0)):
                pass
        assert bot.process.returncode is None  # still draining
        bot.send_signal(signal.SIGTERM)  # stop waiting for the command
        code = await bot.wait(SHUTDOWN_BOUND_S)
    assert code == 0, bot.stderr
    assert "Traceback" not in bot.stderr


@pytest.mark.slow
async def test_giving_up_on_a_command_past_its_defer_time_leaves_no_traceback(standin, tmp_path):
    database = tmp_path / "bot.db"
    async with bot_process(standin.url, tmp_path, "run", **env(database)) as bot:
        await standin.connected()
        create = await held_in_flight(standin)
        await asyncio.sleep(replies.DEFER_AFTER_S + 0.5)  # its defer timer has fired
        bot.send_signal(signal.SIGINT)
        await bot.wait_for_line("draining: waiting for 1 interaction(s) in flight")
        bot.send_signal(signal.SIGINT)  # give up on it now
        code = await bot.wait(SHUTDOWN_BOUND_S)

    assert code == 0, bot.stderr
    assert "still running" in bot.stderr
    assert "Traceback" not in bot.stderr and "never retrieved" not in bot.stderr, bot.stderr
    # Nothing is sent for an interaction after the bot gave up on it.
    assert len(standin.callbacks_for(create)) == 1


def character_id(database: Path, name_key: str) -> int:
    with sqlite3.connect(database) as conn:
        [(row_id,)] = conn.execute("SELECT id FROM characters WHERE name_key = ?", (name_key,))
    return row_id


def stored_names(database: Path) -> set[str]:
    with sqlite3.connect(database) as conn:
        return {row[0] for row in conn.execute("SELECT name_key FROM characters")}


# --- the pieces, without a process ----------------------------------------------------------------


def button_message(custom_id: str) -> Message:
    """A message of the bot's carrying one button: Discord sends a click only for a button that
    is on the message."""
    button = {"type": 2, "style": 2, "label": "Button", "custom_id": custom_id}
    return Message(id=snowflake(), kind="reply", components=[{"type": 1, "components": [button]}])


async def test_draining_refuses_commands_clicks_and_autocomplete_in_a_word(driver, caplog):
    guild = driver.add_guild()
    gm = driver.member(guild, "Gemma", manage_guild=True)
    await driver.invoke(gm, "character create", name="Roryn")
    fall = await driver.invoke(gm, "damage", character="Roryn", amount=10)  # buttons to click
    recover = next(i for i in fall.reply.custom_ids() if i.startswith("lg:recover:"))
    rolls_left = driver.bot.rng.remaining
    driver.bot.inflight.draining = True

    with caplog.at_level(logging.INFO, logger="lastgasp.commands"):
        command = await driver.invoke(gm, "heal", character="Roryn", amount=3)
        clicks = [
            await driver.click(gm, fall.reply, recover),  # a roll: refused before any dice
            await driver.click(gm, button_message("lg:odds:1"), "lg:odds:1"),
            await driver.click(gm, button_message("delete:yes:abc"), "delete:yes:abc"),  # expired
        ]
    typed = await driver.autocomplete(gm, "damage", "character", character="Ro")

    for result in (command, *clicks):
        assert (result.reply.card.body, result.ephemeral) == (RESTARTING, True)
        assert len(result.requests) == 1  # one answer, nothing else
    assert typed.choices == []
    lines = [r.msg for r in caplog.records if r.name == "lastgasp.commands"]
    assert [(line["command"], line["outcome"]) for line in lines] == [
        ("heal", "refused"),
        ("recover", "refused"),
        ("odds", "refused"),
        ("expired", "refused"),
    ]
    assert driver.bot.rng.remaining == rolls_left  # no die was rolled
    driver.bot.inflight.draining = False
    after = await driver.invoke(gm, "character show", character="Roryn")
    assert "VIT 0/10" in after.text(), after.text()  # the refused heal changed nothing


async def test_drain_waits_for_the_tasks_in_flight_and_counts_those_it_gave_up_on():
    inflight = InFlight()
    quick = asyncio.create_task(asyncio.sleep(0.05))
    stuck = asyncio.create_task(asyncio.sleep(60))
    inflight.track(quick, "damage")
    inflight.track(stuck, "character create")
    assert len(inflight) == 2

    started = time.monotonic()
    assert await inflight.drain(0.3) == 1
    assert 0.25 < time.monotonic() - started < 1.0
    assert inflight.draining and quick.done()
    assert inflight.running() == ["character create"]
    stuck.cancel()
    await asyncio.wait({stuck})
    await asyncio.sleep(0)  # its done-callback
    assert len(inflight) == 0


async def test_shutdown_gives_up_on_a_stuck_interaction_logs_it_and_closes(monkeypatch, caplog):
    import bot.lifecycle as lifecycle

    monkeypatch.setattr(lifecycle, "DRAIN_TIMEOUT_S", 0.2)

    class Bot:
        inflight = InFlight()
        closed = False

        async def close(self) -> None:
            self.closed = True

    fake = Bot()
    stuck = asyncio.create_task(asyncio.sleep(60))
    fake.inflight.track(stuck, "damage")
    running = asyncio.create_task(asyncio.sleep(0))  # bot.start, ended by the close
    with caplog.at_level(logging.INFO, logger="lastgasp.lifecycle"):
        await shut_down(fake, running)
    assert fake.closed
    assert re.search(
        r"closing with 1 interaction\(s\) still running after 0\.[23] s: damage", caplog.text
    )
    assert stuck.cancelled()  # given up on: ended, not left to fail on a closed connection


async def test_quiet_returns_once_no_interaction_is_handled_or_at_its_timeout():
    """The campaign page's pieces wait on it (bot/web/site.py: the commands first)."""
    inflight = InFlight()
    await asyncio.wait_for(inflight.quiet(60), 1)  # nothing in flight: at once
    release = asyncio.Event()
    order: list[str] = []

    async def command() -> None:
        await release.wait()
        order.append("command done")

    task = asyncio.create_task(command())
    inflight.track(task, "damage")

    async def page() -> None:
        await inflight.quiet(60)
        order.append("page goes on")

    waiting = asyncio.create_task(page())
    done, _ = await asyncio.wait({waiting}, timeout=0.2)
    assert not done  # the command is still being handled
    release.set()
    await asyncio.wait_for(waiting, 1)
    assert order == ["command done", "page goes on"]

    stuck = asyncio.create_task(asyncio.sleep(60))
    inflight.track(stuck, "character create")
    await asyncio.wait_for(inflight.quiet(0.05), 1)  # gives up waiting, never hangs
    stuck.cancel()
