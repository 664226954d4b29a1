"""The page beside the bot (WEB_PORT with `python -m bot run`): in a page process of its own
(bot/web/process.py), on an SQLite file and on PostgreSQL: served on the bot's port, reading the
bot's database, the channels' names asked of the bot, started once the database is ready,
started again when it ends without refusing a reader, stopped with the bot — and ended when the
bot is gone. On an SQLite database in memory, on the bot's own event loop."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest

from bot.app import create_bot
from bot.config import Settings
from bot.web import process as page_process
from bot.web.links import Link
from bot.web.process import PageProcess
from bot.web.serve import beside
from tests.discord.conftest import BOTH_DATABASES, Harness, database, started
from tests.spec_validation import Validator
from tests.web.conftest import SECRET, Site
from tests.web.pages_html import parse
from tests.web.test_live import follows_a_damage

ROOT = Path(__file__).resolve().parents[2]
START_S = 60.0  # a page process's start: a fresh interpreter importing the bot


def _settings(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, url: str) -> Settings:
    monkeypatch.chdir(tmp_path)  # no .env of the developer's
    for name in list(os.environ):
        if name.startswith("WEB_"):
            monkeypatch.delenv(name)
    env = {
        "DATABASE_URL": url,
        "WEB_PORT": "0",
        "WEB_HOST": "127.0.0.1",
        "WEB_SECRET": SECRET,
        "WEB_RATE_LIMIT": "off",
        "LOG_LEVEL": "WARNING",
    }
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return Settings()


def _ended(pid: int) -> bool:
    """Gone, or a zombie no one has reaped yet: it runs no more."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return True
    return "\nState:\tZ" in status


@contextlib.asynccontextmanager
async def page_beside(
    h: Harness, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, url: str
) -> AsyncIterator[tuple[PageProcess, Site]]:
    settings = _settings(monkeypatch, tmp_path, url)
    page = await beside(h.bot, settings)
    assert isinstance(page, PageProcess)
    site = Site.__new__(Site)  # for its link(), open() and client()
    site.h, site.base, site._clients = h, f"http://127.0.0.1:{page.port}/", []
    try:
        await asyncio.wait_for(page.ready.wait(), START_S)
        yield page, site
    finally:
        await site.close()
        await page.close()


@pytest.mark.parametrize("backend", BOTH_DATABASES)
async def test_the_page_process_serves_the_bots_port_and_database(
    backend: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, spec_validator: Validator
) -> None:
    async with (
        database(backend, tmp_path) as url,
        started(url, spec_validator) as h,
        page_beside(h, monkeypatch, tmp_path, url) as (page, site),
    ):
        pid = page.pid
        assert pid is not None and pid != os.getpid()
        assert os.getpriority(os.PRIO_PROCESS, pid) == page_process.NICE  # the bot first
        await h.add_character("Roryn", vit=3)
        await h.run(h.gm, "board start")
        link = await site.link(h.owner)
        assert link.startswith(f"http://localhost:{page.port}/login/")  # /web names the port
        opened = await site.client().get(link.replace("localhost", "127.0.0.1"))
        assert opened.status == 200 and "Roryn" in parse(opened.text).text
        # The channel's name comes from the bot: the page process knows none of its own.
        board = await opened.get(f"boards/{h.guild.channel_id}")
        assert board.status == 200 and "#table" in parse(board.text).text, board.text
        assert "#table" in parse(opened.text).text
        # Its live board hears the bot's writes (another process: by its poll).
        await follows_a_damage(h, opened.client, str(board.url))
    assert _ended(pid)  # stopped with the bot
    async with aiohttp.ClientSession() as session:
        with pytest.raises(aiohttp.ClientConnectionError):  # and the port closed
            await session.get(f"http://127.0.0.1:{page.port}/")


def test_only_a_database_in_memory_is_served_on_the_bots_loop(tmp_path: Path) -> None:
    assert page_process.apart(f"sqlite+aiosqlite:///{tmp_path / 'lastgasp.db'}")
    assert page_process.apart("postgresql+asyncpg://postgres@127.0.0.1:5432/lastgasp")
    assert not page_process.apart("sqlite+aiosqlite:///:memory:")
    assert not page_process.apart("sqlite+aiosqlite://")


async def test_a_page_process_that_ends_starts_again_and_no_reader_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, spec_validator: Validator
) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'lastgasp.db'}"
    async with (
        started(url, spec_validator) as h,
        page_beside(h, monkeypatch, tmp_path, url) as (page, site),
    ):
        await h.add_character("Roryn", vit=3)
        client = site.client()
        link = (await site.link(h.owner)).replace("localhost", "127.0.0.1")
        assert (await client.get(link)).status == 200
        first = page.pid
        assert first is not None
        os.kill(first, signal.SIGKILL)
        # Asked at once: the port stays open in the bot's process, the request waits in its
        # backlog for the page process started again.
        again = await client.get(f"{site.base}servers/{h.guild.id}/", timeout=START_S)
        assert again.status == 200 and "Roryn" in parse(again.text).text
        assert page.starts == 2 and page.pid not in (None, first)


async def test_a_reader_before_the_database_is_ready_waits_for_the_page(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'lastgasp.db'}"
    bot = create_bot(url)  # not started: its database is not ready
    page = await beside(bot, _settings(monkeypatch, tmp_path, url))
    assert isinstance(page, PageProcess)
    try:
        async with aiohttp.ClientSession() as session:
            home = asyncio.ensure_future(session.get(f"http://127.0.0.1:{page.port}/"))
            await asyncio.sleep(1.0)
            assert page.pid is None and not home.done()  # waiting, not refused
            bot.database_ready.set()
            async with await asyncio.wait_for(home, START_S) as answer:
                assert answer.status == 200 and "type /web" in await answer.text()
    finally:
        await page.close()


async def test_the_page_beside_a_database_in_memory_is_on_the_bots_loop(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No other process can open it: the page is served by the bot's own event loop."""
    url = "sqlite+aiosqlite:///:memory:"
    bot = create_bot(url)
    server = await beside(bot, _settings(monkeypatch, tmp_path, url))
    assert server is not None and not isinstance(server, PageProcess)
    try:
        async with aiohttp.ClientSession() as session:
            link = bot.web_links.url(Link(1, 2, 0, False, None, "T", "A")) if bot.web_links else ""
            async with session.get(link.replace("localhost", "127.0.0.1")) as page:
                assert page.status == 503  # the bot has not connected its database yet
                assert "starting" in await page.text()
    finally:
        await server.close()


# What a bot's process does, for the test of the page process ending with it: start the page
# process, say its pid, and wait to be killed.
_A_BOT = """
import asyncio, sys
from bot.config import Settings
from bot.web.process import PageProcess
from bot.web.serve import links

async def main():
    settings = Settings()
    ready = asyncio.Event()
    ready.set()
    page = PageProcess(settings, links(settings, 0, lambda: 0.0), database_ready=ready,
                       channel_name=lambda _c: None)
    await page.start()
    await page.ready.wait()
    print(page.pid, page.port, flush=True)
    await asyncio.sleep(3600)

asyncio.run(main())
"""


async def test_the_page_process_ends_when_the_bot_is_gone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _settings(monkeypatch, tmp_path, f"sqlite+aiosqlite:///{tmp_path / 'lastgasp.db'}")
    bot = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        _A_BOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.PIPE,
    )
    try:
        assert bot.stdout is not None
        said = await asyncio.wait_for(bot.stdout.readline(), START_S)
        pid, port = (int(part) for part in said.split())
        async with (
            aiohttp.ClientSession() as session,
            session.get(f"http://127.0.0.1:{port}/") as home,
        ):
            assert home.status == 200
        bot.kill()  # no stop of its own: its end of the pair closes with it
        await bot.wait()
        deadline = time.monotonic() + 10
        while not _ended(pid) and time.monotonic() < deadline:
            await asyncio.sleep(0.1)
        assert _ended(pid)
    finally:
        if bot.returncode is None:
            bot.kill()
            await bot.wait()


def _children(pid: int) -> list[int]:
    found = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    return [int(child) for child in found]


@pytest.mark.slow
async def test_python_m_bot_run_serves_its_port_by_a_page_process_and_stops_it_on_sigterm(
    tmp_path: Path,
) -> None:
    from tests.ops.standin import bot_process, running_standin, sqlite_url
    from tests.ops.test_shutdown import SHUTDOWN_BOUND_S

    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    settings = {
        "DISCORD_TOKEN": "t0ken",
        "DATABASE_URL": sqlite_url(tmp_path / "bot.db"),
        "WEB_PORT": str(port),
        "WEB_HOST": "127.0.0.1",
        "WEB_SECRET": SECRET,
    }
    async with (
        running_standin() as standin,
        bot_process(standin.url, tmp_path, "run", **settings) as bot,
        aiohttp.ClientSession() as session,
    ):
        await standin.connected()
        async with session.get(f"http://127.0.0.1:{port}/", timeout=START_S) as home:
            assert home.status == 200 and "type /web" in await home.text()
        [page] = _children(bot.process.pid)
        bot.send_signal(signal.SIGTERM)
        signalled = time.monotonic()
        assert await bot.wait(SHUTDOWN_BOUND_S) == 0, bot.stderr
        assert time.monotonic() - signalled < SHUTDOWN_BOUND_S
        assert "Traceback" not in bot.stderr and "page's process ended" not in bot.stderr
        assert _ended(page)
        with pytest.raises(aiohttp.ClientConnectionError):
            await session.get(f"http://127.0.0.1:{port}/")
