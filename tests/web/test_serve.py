"""Turning the page on (issue 18 item 3): the settings (WEB_*), the page beside the bot
(WEB_PORT) and on its own (`python -m bot web`), and behind a reverse proxy that serves it
under a path of its own (WEB_BASE_URL, WEB_FORWARDED)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest
from aiohttp import web
from pydantic import ValidationError

from bot.app import create_bot
from bot.cli_failures import CONFIGURATION, Failure
from bot.config import Settings, describe_settings_error
from bot.web.serve import beside
from tests.web.conftest import SECRET, Site, serving
from tests.web.pages_html import parse

ROOT = Path(__file__).resolve().parents[2]


def _settings(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, **env: str) -> Settings:
    monkeypatch.chdir(tmp_path)  # no .env of the developer's
    for name in list(os.environ):
        if name.startswith("WEB_"):
            monkeypatch.delenv(name)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return Settings()


def test_the_settings_read_the_web_variables(monkeypatch, tmp_path) -> None:
    settings = _settings(
        monkeypatch,
        tmp_path,
        WEB_PORT="8081",
        WEB_SECRET=SECRET,
        WEB_LINK_HOURS="2",
        WEB_BASE_URL="https://lastgasp.example.org/campaign",
        WEB_RATE_LIMIT="30/1m",
        WEB_FORWARDED="true",
    )
    assert settings.web_port == 8081 and settings.web_link_hours == 2
    assert settings.web_secret is not None and settings.web_secret.get_secret_value() == SECRET
    assert settings.web_base_url == "https://lastgasp.example.org/campaign/"
    assert settings.web_rate_limit is not None and settings.web_rate_limit.count == 30
    assert settings.web_forwarded
    off = _settings(monkeypatch, tmp_path, WEB_RATE_LIMIT="off", WEB_PORT="")
    assert off.web_rate_limit is None and off.web_port is None and off.web_secret is None


@pytest.mark.parametrize(
    ("name", "value", "said"),
    [
        ("WEB_SECRET", "short and weak", "WEB_SECRET: it is shorter than 32 characters"),
        ("WEB_BASE_URL", "ftp://example.org/", "WEB_BASE_URL: 'ftp://example.org/' is not"),
        ("WEB_BASE_URL", "https://e.org/?a=1", "has a query"),
        ("WEB_PORT", "http", "WEB_PORT: 'http' is not a whole number"),
        ("WEB_LINK_HOURS", "0", "WEB_LINK_HOURS"),
        ("WEB_RATE_LIMIT", "often", "WEB_RATE_LIMIT"),
    ],
)
def test_a_wrong_web_setting_says_what_to_write(monkeypatch, tmp_path, name, value, said) -> None:
    with pytest.raises(ValidationError) as raised:
        _settings(monkeypatch, tmp_path, **{name: value})
    text = describe_settings_error(raised.value)
    assert said in text, text
    if name == "WEB_SECRET":
        assert value not in text  # a secret is never repeated


def test_python_m_bot_web_without_a_secret_says_so(tmp_path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("WEB_")}
    env["DATABASE_URL"] = f"sqlite+aiosqlite:///{tmp_path / 'lastgasp.db'}"
    done = subprocess.run(
        [sys.executable, "-m", "bot", "web"],
        cwd=tmp_path,
        env={**env, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == CONFIGURATION, done.stderr
    assert "WEB_SECRET is not set" in done.stderr and "Traceback" not in done.stderr


async def test_the_page_beside_the_bot(monkeypatch, tmp_path) -> None:
    """WEB_PORT without WEB_SECRET: refused before anything starts; without WEB_PORT, no page
    here (another process serves it) but `/web`'s links; a taken WEB_PORT refused in one line
    (served in a page process or, on a database in memory, on the bot's loop:
    tests/web/test_page_process.py)."""
    bot = create_bot(f"sqlite+aiosqlite:///{tmp_path / 'lastgasp.db'}")
    no_secret = _settings(monkeypatch, tmp_path, WEB_PORT="0")
    with pytest.raises(Failure, match="WEB_SECRET is not set"):
        await beside(bot, no_secret)
    links_only = _settings(
        monkeypatch, tmp_path, WEB_SECRET=SECRET, WEB_BASE_URL="https://e.org/lg/"
    )
    assert await beside(bot, links_only) is None  # another process serves the page
    assert bot.web_links is not None and bot.web_links.base_url == "https://e.org/lg/"
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        for url in (f"sqlite+aiosqlite:///{tmp_path / 'lastgasp.db'}", "sqlite+aiosqlite://"):
            settings = _settings(
                monkeypatch, tmp_path, WEB_SECRET=SECRET, WEB_PORT=port, WEB_HOST="127.0.0.1"
            )
            settings.database_url = url
            with pytest.raises(Failure, match=f"cannot serve the campaign page on port {port}"):
                await beside(create_bot(url), settings)


# --- behind a reverse proxy -------------------------------------------------------------


class Proxy:
    """A reverse proxy as nginx is set up for the page (README): /lastgasp/… passed on without
    its prefix, X-Forwarded-For appended, the answer passed back as it is."""

    def __init__(self, upstream: str) -> None:
        self.upstream = upstream
        self.client = "203.0.113.7"  # the reader's address, as the proxy sees it
        app = web.Application()
        app.router.add_route("*", "/lastgasp/{path:.*}", self.forward)
        self.runner = web.AppRunner(app)

    async def start(self) -> int:
        await self.runner.setup()
        site = web.TCPSite(self.runner, "127.0.0.1", 0)
        await site.start()
        return int(self.runner.addresses[0][1])

    async def forward(self, request: web.Request) -> web.StreamResponse:
        url = f"{self.upstream}{request.match_info['path']}"
        headers = {k: v for k, v in request.headers.items() if k.lower() != "host"}
        headers["X-Forwarded-For"] = self.client
        async with (
            aiohttp.ClientSession() as session,
            session.request(
                request.method,
                url,
                params=request.query,
                headers=headers,
                allow_redirects=False,
            ) as answer,
        ):
            body = await answer.read()
            response = web.Response(body=body, status=answer.status)
            for name, value in answer.headers.items():
                if name.lower() not in ("content-length", "transfer-encoding", "content-encoding"):
                    response.headers.add(name, value)
            return response


@pytest.fixture
async def proxied(tmp_path, spec_validator) -> AsyncIterator[tuple[Site, Proxy, str]]:
    from bot.limits import RateLimit

    url = f"sqlite+aiosqlite:///{tmp_path / 'lastgasp.db'}"
    async with serving(url, spec_validator, forwarded=True, rate_limit=RateLimit(40, 60)) as site:
        proxy = Proxy(site.base)
        port = await proxy.start()
        base = f"http://127.0.0.1:{port}/lastgasp/"
        site.server.site.links.base_url = base  # WEB_BASE_URL: the proxy's address
        try:
            yield site, proxy, base
        finally:
            await proxy.runner.cleanup()


async def test_behind_a_proxy_every_link_goes_through_it(proxied) -> None:
    site, proxy, base = proxied
    h = site.h
    await h.add_character("Roryn", vit=-1, logged=True)
    await h.run(h.gm, "board start")
    link = await site.link(h.owner)
    assert link.startswith(f"{base}login/")
    client = site.client()
    async with client.session.get(link, allow_redirects=False) as login:
        assert login.status == 303
        assert login.headers["Location"] == f"/lastgasp/servers/{h.guild.id}/"
        assert login.cookies["lastgasp_link"]["path"] == f"/lastgasp/servers/{h.guild.id}/"
    page = await client.get(link)
    assert page.status == 200 and str(page.url).startswith(base)
    row = await h.row("Roryn")
    character = await page.get(f"characters/{row.id}")
    assert character.status == 200
    for found in (page, character):
        for element in parse(found.text).elements:
            for attr in ("href", "src"):
                value = element.attrs.get(attr)
                if value and value.startswith("/"):
                    assert value.startswith("/lastgasp/"), element
                    assert (await found.follow(value)).status == 200, value
    # The rate is the reader's (X-Forwarded-For), not the proxy's own address
    proxy.client = "203.0.113.8"
    assert (await page.get("")).status == 200
    window = site.server._rate._window
    assert window is not None and len(window) == 2  # two readers counted apart


async def test_a_page_checks_no_template_file_once_it_is_loaded(
    site: Site, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Jinja2 would look at each template's file on every page (a system call on the event
    # loop, the commands' core); the templates ship with the code and never change under it.
    await site.h.add_character("Roryn")
    page = await site.open(site.h.owner)  # every template of the page loaded once
    checked: list[str] = []
    getmtime = os.path.getmtime

    def counted(path: str | os.PathLike[str]) -> float:
        checked.append(os.fspath(path))
        return getmtime(path)

    monkeypatch.setattr(os.path, "getmtime", counted)
    again = await page.get("")
    assert again.status == 200 and "Roryn" in again.text
    assert [path for path in checked if "templates" in path] == []
