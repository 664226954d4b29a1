"""Ready means connected now: /health answers 503 while the gateway connection is down (even
after discord.py was once ready) and 200 again once the bot resumes; and the health probe never
creates a database."""

from __future__ import annotations

import asyncio
import signal
import socket
from collections.abc import AsyncIterator

import aiohttp
import pytest

from bot.app import create_bot
from bot.cli import main
from bot.health import HealthServer, report
from tests.ops.standin import DiscordStandIn, bot_process, running_standin, sqlite_url


@pytest.fixture
async def standin() -> AsyncIterator[DiscordStandIn]:
    async with running_standin() as running:
        yield running


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


async def health(port: int) -> tuple[int, dict]:
    async with (
        aiohttp.ClientSession() as session,
        session.get(f"http://127.0.0.1:{port}/health") as response,
    ):
        return response.status, await response.json()


async def until_status(port: int, status: int, timeout: float) -> dict:
    """/health's body once it answers `status` (polled), within `timeout` s."""
    last: object = None
    try:
        async with asyncio.timeout(timeout):
            while True:
                try:
                    last = await health(port)
                except aiohttp.ClientError as error:  # not listening yet
                    last = error
                else:
                    if last[0] == status:
                        return last[1]
                await asyncio.sleep(0.1)
    except TimeoutError:
        raise AssertionError(f"/health did not answer {status} in {timeout} s: {last}") from None


@pytest.mark.slow
async def test_health_is_503_while_the_gateway_is_down_and_200_once_resumed(standin, tmp_path):
    port = free_port()
    settings = {
        "DISCORD_TOKEN": "t0ken",
        "DATABASE_URL": sqlite_url(tmp_path / "bot.db"),
        "HEALTH_HOST": "127.0.0.1",
        "HEALTH_PORT": str(port),
    }
    async with bot_process(standin.url, tmp_path, "run", **settings) as bot:
        await standin.connected()
        await until_status(port, 200, timeout=10)

        # The outage: the connection drops and every reconnect is refused.
        standin.refuse_gateway = True
        await standin.drop()
        down = await until_status(port, 503, timeout=5)
        assert (down["status"], down["database"], down["ready"]) == ("unavailable", "ok", False)
        async with asyncio.timeout(10):
            while not standin.refused:  # the bot tried, and failed, to reconnect
                await asyncio.sleep(0.05)
        assert (await health(port))[0] == 503

        standin.refuse_gateway = False
        up = await until_status(port, 200, timeout=20)  # discord.py's backoff: a few seconds
        assert (up["status"], up["ready"]) == ("ok", True)
        assert standin.gateway_ops.count(6) >= 1  # it resumed the session
        assert standin.gateway_ops.count(2) == 1  # never identified again

        bot.send_signal(signal.SIGTERM)
        assert await bot.wait(10) == 0, bot.stderr


async def test_the_shard_events_drive_ready(tmp_path, monkeypatch):
    """Per shard, without a process: a sharded bot is unready while any of its shards is down."""
    bot = create_bot(f"sqlite+aiosqlite:///{tmp_path / 'x.db'}", shard_count=4, shard_ids=[1, 3])
    server = HealthServer(bot, "127.0.0.1", 0)  # listening from here on
    monkeypatch.setattr(bot, "is_ready", lambda: True)  # what READY of every shard would do

    async def ready_after(event: str, *args: object) -> bool:
        bot.dispatch(event, *args)
        await asyncio.sleep(0.01)  # listeners run as tasks
        _, body = await report(bot, server.connections)
        return body["ready"]

    async with bot:  # the bot's loop: discord.py dispatches on it
        assert await ready_after("shard_connect", 1) is True
        assert await ready_after("shard_disconnect", 3) is False
        assert server.connections.disconnected == [3]
        assert await ready_after("disconnect") is False  # the shard-less event changes nothing
        assert await ready_after("shard_resumed", 3) is True
        assert await ready_after("shard_disconnect", 1) is False
        assert await ready_after("shard_ready", 1) is True


async def test_a_draining_bot_is_not_ready(driver, monkeypatch):
    monkeypatch.setattr(driver.bot, "is_ready", lambda: True)
    assert (await report(driver.bot))[0] == 200
    driver.bot.inflight.draining = True  # SIGTERM received: stopping
    status, body = await report(driver.bot)
    assert (status, body["ready"], body["database"]) == (503, False, "ok")


def test_the_health_probe_does_not_create_a_missing_database(tmp_path, monkeypatch, capsys):
    missing = tmp_path / "missing.db"
    monkeypatch.chdir(tmp_path)  # no .env file
    for name in ("HEALTH_PORT", "HEALTH_HOST", "LOG_FORMAT", "LOG_LEVEL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("DATABASE_URL", sqlite_url(missing))

    assert main(["health"]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert err.splitlines() == [
        f"unhealthy: there is no database at {missing}; check DATABASE_URL (the bot and "
        "`python -m bot migrate` create it)"
    ]
    assert list(tmp_path.iterdir()) == []  # no file, no -wal, no -shm
