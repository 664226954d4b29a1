"""Is this process healthy? `GET /health` for load balancers and orchestrators, and the probe
behind `python -m bot health` (Docker's HEALTHCHECK). `GET /metrics`: this process's figures
for Prometheus (bot/metrics.py)."""

from __future__ import annotations

import asyncio
import logging
import math
from pathlib import Path
from typing import Any

import aiohttp
import discord
from aiohttp import web
from discord.ext import commands
from prometheus_client.aiohttp import make_aiohttp_handler
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from bot.config import sqlite_path
from bot.db.engine import READ_ONLY, create_engine

log = logging.getLogger("lastgasp.health")

TIMEOUT_S = 5.0  # a database or bot slower than this is as bad as a dead one for a probe
_ANY_ADDRESS = ("", "0.0.0.0", "::")


async def database_answers(engine: AsyncEngine) -> bool:
    """SELECT 1, in a read-only transaction (no write lock on SQLite), within TIMEOUT_S."""

    async def select_one() -> None:
        async with engine.connect() as conn:
            await conn.execution_options(**{READ_ONLY: True})
            await conn.execute(text("SELECT 1"))

    try:
        await asyncio.wait_for(select_one(), TIMEOUT_S)
    except Exception as error:  # any failure is the answer "no"
        log.warning("health: the database did not answer: %r", error)
        return False
    return True


class Connections:
    """Which of this process's shards are connected to Discord's gateway now.

    discord.py's ready flag is set once and stays set through an outage (the connection
    dropped, reconnects failing), so it cannot say "connected now". discord.py's public events
    can: a shard is down from its disconnect until it connects (READY) or resumes again."""

    def __init__(self, bot: commands.Bot) -> None:
        self._shards_down: set[int] = set()  # shard ids (0 for an unsharded bot)
        if isinstance(bot, discord.AutoShardedClient):
            # A sharded bot also sends the plain events, without a shard id: not those.
            bot.add_listener(self._shard_up, "on_shard_connect")
            bot.add_listener(self._shard_up, "on_shard_ready")
            bot.add_listener(self._shard_up, "on_shard_resumed")
            bot.add_listener(self._shard_down, "on_shard_disconnect")
        else:
            bot.add_listener(self._up, "on_connect")
            bot.add_listener(self._up, "on_ready")
            bot.add_listener(self._up, "on_resumed")
            bot.add_listener(self._down, "on_disconnect")

    @property
    def disconnected(self) -> list[int]:
        """The shards disconnected now, e.g. [0]; empty when every shard is connected."""
        return sorted(self._shards_down)

    async def _up(self) -> None:
        self._shards_down.discard(0)

    async def _down(self) -> None:
        self._shards_down.add(0)

    async def _shard_up(self, shard_id: int) -> None:
        self._shards_down.discard(shard_id)

    async def _shard_down(self, shard_id: int) -> None:
        self._shards_down.add(shard_id)


async def report(bot: Any, connections: Connections | None = None) -> tuple[int, dict[str, Any]]:
    """200 and status ok when the database answers and the bot is ready and connected now
    (every shard of it, per `connections`) and not stopping; 503 otherwise."""
    try:
        engine = bot.db.engine
    except RuntimeError:  # not connected yet (before setup_hook) or closed
        database = False
    else:
        database = await database_answers(engine)
    inflight = getattr(bot, "inflight", None)
    stopping = inflight is not None and inflight.draining
    connected = connections is None or not connections.disconnected
    ready = bot.is_ready() and connected and not stopping
    healthy = database and ready
    body = {
        "status": "ok" if healthy else "unavailable",
        "database": "ok" if database else "unavailable",
        "ready": ready,
        "latency_ms": _ms(bot.latency),  # Discord's gateway heartbeat, averaged over shards
        "shards": _shards(bot),
    }
    return (200 if healthy else 503), body


def _shards(bot: discord.Client) -> list[dict[str, Any]]:
    if not isinstance(bot, discord.AutoShardedClient):
        return [{"id": 0, "latency_ms": _ms(bot.latency)}]
    shards = []
    for shard_id in bot.shard_ids or []:
        info = bot.get_shard(shard_id)  # None until the shard connects
        shards.append({"id": shard_id, "latency_ms": _ms(info.latency) if info else None})
    return shards


def _ms(seconds: float) -> float | None:
    return round(seconds * 1000, 1) if math.isfinite(seconds) else None  # nan/inf: not measured


class HealthServer:
    """`GET /health` and `GET /metrics` on host:port, beside the bot in the same event loop."""

    def __init__(self, bot: Any, host: str, port: int) -> None:
        self.bot = bot
        self.connections = Connections(bot)  # listening from now: build it before bot.start
        self.host = host
        self.port = port
        app = web.Application()
        app.router.add_get("/health", self._health)
        metrics = getattr(bot, "metrics", None)
        if metrics is not None:
            # Prometheus' text format (or OpenMetrics when asked), compressed when asked.
            app.router.add_get("/metrics", make_aiohttp_handler(metrics.registry))
        self._runner = web.AppRunner(app, access_log=None)  # probes every few seconds: no log

    async def start(self) -> int:
        """Listen; returns the port (the one picked when port is 0)."""
        await self._runner.setup()
        await web.TCPSite(self._runner, self.host, self.port).start()
        self.port = self._runner.addresses[0][1]
        log.info(
            "health check on http://%s:%s/health, metrics on /metrics",
            self.host or "0.0.0.0",
            self.port,
        )
        return self.port

    async def close(self) -> None:
        await self._runner.cleanup()

    async def _health(self, _request: web.Request) -> web.Response:
        status, body = await report(self.bot, self.connections)
        return web.json_response(body, status=status)


async def probe(database_url: str, health_host: str, health_port: int | None) -> list[str]:
    """What is wrong, for `python -m bot health`: the database from the settings, and the
    running bot's /health when HEALTH_PORT names it. Empty: healthy."""
    problems = []
    missing = missing_sqlite_file(database_url)
    if missing is not None:
        # Opening it would create an empty database: a probe must not change anything.
        problems.append(
            f"there is no database at {missing.resolve()}; check DATABASE_URL (the bot and "
            "`python -m bot migrate` create it)"
        )
    else:
        engine = create_engine(database_url)
        try:
            if not await database_answers(engine):
                problems.append("the database does not answer")
        finally:
            await engine.dispose()
    if health_port:  # 0 is a port picked at start: unknown here
        host = "127.0.0.1" if health_host in _ANY_ADDRESS else health_host
        url = f"http://{host}:{health_port}/health"
        try:
            timeout = aiohttp.ClientTimeout(total=TIMEOUT_S)
            async with aiohttp.ClientSession(timeout=timeout) as session, session.get(url) as r:
                if r.status != 200:
                    problems.append(f"{url} answered {r.status}: {await r.text()}")
        except (aiohttp.ClientError, TimeoutError) as error:
            problems.append(_unanswered(url, health_port, error))
    return problems


def _unanswered(url: str, port: int, error: BaseException) -> str:
    """Why the bot's /health did not answer, in words (not aiohttp's repr)."""
    if isinstance(error, aiohttp.ClientConnectorDNSError):
        return f"{url}: its host is not known here; check HEALTH_HOST"
    if isinstance(error, aiohttp.ClientConnectorError):
        return (
            f"no bot is listening at {url}; start it (`python -m bot run`) with HEALTH_PORT="
            f"{port}, or check HEALTH_PORT and HEALTH_HOST"
        )
    if isinstance(error, TimeoutError):
        return f"{url} did not answer within {TIMEOUT_S:g} s"
    reason = " ".join(str(error).split()) or type(error).__name__
    return f"{url} did not answer ({reason})"


def missing_sqlite_file(database_url: str) -> Path | None:
    """The SQLite file `database_url` names, if it does not exist (None: it does, or the
    database is not an SQLite file)."""
    path = sqlite_path(database_url)
    return path if path is not None and not path.exists() else None
