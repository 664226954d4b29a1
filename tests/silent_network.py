"""Servers out of reach, for the tests of what a member or an operator is told then: a port
nothing listens on, one that takes connections and never answers them, and a TCP proxy in
front of the test's PostgreSQL server that stops answering."""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import AsyncIterator

import pytest
from sqlalchemy.engine import make_url

from bot.db import engine, postgres_path


def connect_timeout(monkeypatch: pytest.MonkeyPatch, seconds: float) -> None:
    """Connecting to PostgreSQL gives up after `seconds` instead of CONNECT_TIMEOUT_S, for the
    engine's connections and the hot path's alike."""
    monkeypatch.setattr(engine, "CONNECT_TIMEOUT_S", seconds)
    monkeypatch.setattr(postgres_path, "CONNECT_TIMEOUT_S", seconds)


def round_trip_timeout(monkeypatch: pytest.MonkeyPatch, seconds: float) -> None:
    """A round trip's answer is waited for `seconds` instead of ROUND_TRIP_TIMEOUT_S, on the
    engine's connections and the hot path's alike (read as the database is connected: set it
    before)."""
    monkeypatch.setattr(engine, "ROUND_TRIP_TIMEOUT_S", seconds)
    monkeypatch.setattr(postgres_path, "ROUND_TRIP_TIMEOUT_S", seconds)


def closed_port() -> int:
    """A port nothing listens on: connecting is refused at once, as without a network."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextlib.asynccontextmanager
async def silent_port() -> AsyncIterator[int]:
    """A port that accepts connections and never says a word (a server that hangs, or a
    firewall that swallows the answers)."""
    held: list[asyncio.StreamWriter] = []
    server = await asyncio.start_server(lambda _r, w: held.append(w), "127.0.0.1", 0)
    try:
        yield server.sockets[0].getsockname()[1]
    finally:
        server.close()
        for writer in held:
            writer.close()


class Proxy:
    """Forwards every connection to the server, until `silence()`: then what is open is cut
    (the server's side of a restart) and new connections are taken but never answered, until
    `resume()`. `freeze()` holds whatever either side sends on the open connections (a network
    that stalls mid-command), until `thaw()` lets it through."""

    def __init__(self, host: str, port: int) -> None:
        self._target = (host, port)
        self._silent = False
        self._flowing = asyncio.Event()
        self._flowing.set()
        self._open: set[asyncio.StreamWriter] = set()
        self._server: asyncio.Server | None = None

    async def start(self) -> int:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        return int(self._server.sockets[0].getsockname()[1])

    def silence(self) -> None:
        self._silent = True
        for writer in list(self._open):
            writer.close()

    def resume(self) -> None:
        self._silent = False

    def freeze(self) -> None:
        self._flowing.clear()

    def thaw(self) -> None:
        self._flowing.set()

    async def close(self) -> None:
        self.thaw()
        self.silence()
        if self._server is not None:
            self._server.close()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._open.add(writer)
        try:
            if self._silent:
                await reader.read()  # until the client gives up
                return
            up_reader, up_writer = await asyncio.open_connection(*self._target)
            self._open.add(up_writer)
            try:
                await asyncio.gather(self._pipe(reader, up_writer), self._pipe(up_reader, writer))
            finally:
                self._open.discard(up_writer)
                up_writer.close()
        finally:
            self._open.discard(writer)
            writer.close()

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(ConnectionError):
            while data := await reader.read(65536):
                await self._flowing.wait()
                writer.write(data)
                await writer.drain()
        writer.close()


@contextlib.asynccontextmanager
async def proxied(url: str) -> AsyncIterator[tuple[str, Proxy]]:
    """`url` (a PostgreSQL server's) reached through a Proxy: the proxied URL and the proxy."""
    parsed = make_url(url)
    proxy = Proxy(parsed.host or "127.0.0.1", parsed.port or 5432)
    port = await proxy.start()
    try:
        yield parsed.set(host="127.0.0.1", port=port).render_as_string(hide_password=False), proxy
    finally:
        await proxy.close()


@contextlib.asynccontextmanager
async def database_behind_proxy(
    monkeypatch: pytest.MonkeyPatch, connect_s: float
) -> AsyncIterator[tuple[str, Proxy]]:
    """A fresh database on the test's PostgreSQL server (the test skips without one), reached
    through a Proxy: its URL and the proxy; connecting gives up after `connect_s`. A bot on it
    must close before the block ends, with the proxy flowing (thaw, resume)."""
    # Here, not above: the plain helpers' users need not load the bot's harness.
    from tests.discord.conftest import PG_SERVER, SKIP_PG, postgres_database

    if not PG_SERVER:
        pytest.skip(SKIP_PG)
    connect_timeout(monkeypatch, connect_s)
    async with postgres_database(PG_SERVER) as url, proxied(url) as (through, proxy):
        yield through, proxy
