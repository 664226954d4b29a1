"""GET /health and `python -m bot health`: healthy only when the database answers and the bot
is ready."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import aiohttp
import pytest

from bot.app import create_bot
from bot.db.engine import create_engine
from bot.health import HealthServer, database_answers, report

ROOT = Path(__file__).resolve().parents[2]
# Nothing listens on port 1: the connection is refused at once.
DEAD_POSTGRES = "postgresql+asyncpg://postgres@127.0.0.1:1/none"


def ready(bot, monkeypatch) -> None:
    # What the gateway's READY would do; the offline driver never logs in.
    monkeypatch.setattr(bot, "is_ready", lambda: True)


async def test_the_report_needs_the_database_and_a_ready_bot(driver, monkeypatch):
    bot = driver.bot
    status, body = await report(bot)
    assert status == 503
    assert body == {
        "status": "unavailable",
        "database": "ok",
        "ready": False,
        "latency_ms": None,  # no heartbeat yet
        "shards": [{"id": 0, "latency_ms": None}],
    }
    ready(bot, monkeypatch)
    status, body = await report(bot)
    assert (status, body["status"], body["database"], body["ready"]) == (200, "ok", "ok", True)


async def test_a_bot_without_its_database_is_unavailable(monkeypatch):
    bot = create_bot("sqlite+aiosqlite:///:memory:", shard_count=4, shard_ids=[1, 3])
    ready(bot, monkeypatch)
    status, body = await report(bot)  # never set up: no database connected
    assert (status, body["status"], body["database"]) == (503, "unavailable", "unavailable")
    assert body["shards"] == [{"id": 1, "latency_ms": None}, {"id": 3, "latency_ms": None}]


async def test_a_database_that_does_not_answer_is_reported(tmp_path):
    dead = create_engine(DEAD_POSTGRES)
    alive = create_engine(f"sqlite+aiosqlite:///{tmp_path / 'x.db'}")
    try:
        assert await database_answers(dead) is False
        assert await database_answers(alive) is True
    finally:
        await dead.dispose()
        await alive.dispose()


async def get(port: int) -> tuple[int, dict]:
    async with (
        aiohttp.ClientSession() as session,
        session.get(f"http://127.0.0.1:{port}/health") as response,
    ):
        return response.status, await response.json()


async def cli_health(**env: str) -> tuple[int, str]:
    """`python -m bot health` in its own process, this event loop free to serve /health."""
    base = {k: v for k, v in os.environ.items() if k not in ("HEALTH_PORT", "HEALTH_HOST")}
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        "health",
        cwd=ROOT,
        env={**base, **env},
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    out, _ = await asyncio.wait_for(process.communicate(), 60)
    return process.returncode or 0, out.decode()


async def test_the_endpoint_and_the_cli_probe(driver, monkeypatch, tmp_path):
    server = HealthServer(driver.bot, "127.0.0.1", 0)
    port = await server.start()
    try:
        assert port > 0
        status, body = await get(port)
        assert (status, body["status"], body["ready"]) == (503, "unavailable", False)
        url = driver.bot.database_url
        code, out = await cli_health(DATABASE_URL=url, HEALTH_PORT=str(port))
        assert code == 1 and f"127.0.0.1:{port}/health answered 503" in out

        ready(driver.bot, monkeypatch)
        status, body = await get(port)
        assert (status, body["status"], body["database"]) == (200, "ok", "ok")
        assert (await cli_health(DATABASE_URL=url, HEALTH_PORT=str(port))) == (0, "healthy\n")
    finally:
        await server.close()
    # The bot gone: the database alone still answers, its /health does not; said in one line
    # (it printed aiohttp's ClientConnectorError repr; issue 21, item 13).
    code, out = await cli_health(DATABASE_URL=url, HEALTH_PORT=str(port))
    assert code == 1
    assert out == (
        f"unhealthy: no bot is listening at http://127.0.0.1:{port}/health; start it "
        f"(`python -m bot run`) with HEALTH_PORT={port}, or check HEALTH_PORT and HEALTH_HOST\n"
    )
    assert (await cli_health(DATABASE_URL=url)) == (0, "healthy\n")


async def test_the_cli_probe_fails_when_the_database_does_not_answer():
    code, out = await cli_health(DATABASE_URL=DEAD_POSTGRES)
    assert code == 1 and "unhealthy: the database does not answer" in out


async def test_the_cli_probe_says_when_the_health_host_is_unknown(tmp_path):
    url = f"sqlite+aiosqlite:///{tmp_path / 'h.db'}"
    (tmp_path / "h.db").touch()  # an empty SQLite database answers
    code, out = await cli_health(
        DATABASE_URL=url, HEALTH_PORT="8080", HEALTH_HOST="no-such-host.invalid"
    )
    assert (code, out) == (
        1,
        "unhealthy: http://no-such-host.invalid:8080/health: its host is not known here; "
        "check HEALTH_HOST\n",
    )


@pytest.mark.parametrize("value", ["70000", "-1", "http"])
async def test_a_wrong_health_port_is_refused(value):
    code, out = await cli_health(HEALTH_PORT=value)
    assert code == 2 and "error: HEALTH_PORT: " in out


async def test_run_serves_health_beside_the_sharded_bot(monkeypatch, tmp_path):
    """`python -m bot run` with HEALTH_PORT and shards, Discord's login replaced."""
    import bot.app
    from bot import cli
    from bot.config import Settings

    seen: dict = {}
    real_start = HealthServer.start

    async def start(server: HealthServer) -> int:
        seen["server"] = server
        return await real_start(server)

    real_create_bot = bot.app.create_bot

    def create_offline(*args, **kwargs):
        made = seen["bot"] = real_create_bot(*args, **kwargs)

        async def connect(token: str) -> None:  # instead of logging in: ask /health meanwhile
            seen["health"] = await get(seen["server"].port)

        made.start = connect
        return made

    monkeypatch.setattr(HealthServer, "start", start)
    monkeypatch.setattr(bot.app, "create_bot", create_offline)
    settings = Settings(
        discord_token="t0ken",
        database_url=f"sqlite+aiosqlite:///{tmp_path / 'run.db'}",
        shard_count=2,
        shard_ids=[1],
        health_host="127.0.0.1",
        health_port=0,
    )
    assert await cli.run(settings) == 0
    assert (seen["bot"].shard_count, seen["bot"].shard_ids) == (2, [1])
    status, body = seen["health"]
    assert (status, body["ready"], body["shards"]) == (503, False, [{"id": 1, "latency_ms": None}])
    with pytest.raises(aiohttp.ClientConnectionError):  # closed with the bot
        await get(seen["server"].port)


async def test_run_refuses_a_taken_health_port_in_one_line(tmp_path, capsys):
    """A port already in use stops `run` with a message that says what to set, no traceback."""
    import socket

    from bot import cli
    from bot.config import Settings

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        settings = Settings(
            discord_token="t0ken",
            database_url=f"sqlite+aiosqlite:///{tmp_path / 'run.db'}",
            health_host="127.0.0.1",
            health_port=taken.getsockname()[1],
        )
        assert await cli.run(settings) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: cannot serve the health check on port ")
    assert "set HEALTH_PORT to a free port" in err and len(err.splitlines()) == 1
