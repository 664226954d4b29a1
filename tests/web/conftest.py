"""The campaign page as its readers reach it: a link made by `/web` through the real command tree
(the offline driver, tests/discord/conftest.py's harness), opened over a real socket from the
real aiohttp app (bot/web), served on the bot's own event loop as WEB_PORT serves it.

    async def test_something(site):
        await site.h.add_character("Roryn", vit=3)
        page = await site.open(site.h.owner)          # /web, then its link: the campaign
        assert page.status == 200 and "Roryn" in page.text
        sheet = await page.get("characters/1")       # relative to the server's page

`site.h` is the harness (its members, its database); `site.link(member)` runs `/web` and
returns the URL it gave; `site.client()` a fresh browser-like client (its own cookies);
`site.server` the WebServer; `site.base` its address.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from yarl import URL

from bot.offline import Member
from bot.web.app import WebServer
from bot.web.links import Links
from bot.web.live import LiveBoards
from bot.web.serve import channel_names
from tests.discord.conftest import BOTH_DATABASES, Harness, database, started
from tests.spec_validation import Validator

SECRET = "a test secret of more than thirty-two characters"


@dataclass
class Page:
    status: int
    text: str
    url: URL
    headers: Any
    client: Client
    body: bytes = b""

    async def get(self, path: str, **kwargs: Any) -> Page:
        """A path relative to this page's server (`characters/3`), as a link on it would go."""
        return await self.client.get(
            str(self.client.server_url(self.url).join(URL(path))), **kwargs
        )

    async def follow(self, href: str) -> Page:
        """A link of this page (its href as written), as a browser follows it."""
        return await self.client.get(str(self.url.join(URL(href))))


class Client:
    """One reader's browser: its own cookies (a link's cookie is kept per server)."""

    def __init__(self, base: str) -> None:
        self.base = base
        # unsafe: cookies for an IP address (127.0.0.1), as a browser keeps them
        self.session = aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True))

    def server_url(self, url: URL) -> URL:
        """The server's page that `url` is of (`…/servers/<id>/`, behind a proxy's prefix too)."""
        found = re.match(r"^(.*?/servers/\d+/)", url.path + "/")
        return url.with_path(found[1]) if found else url

    async def get(self, url: str, **kwargs: Any) -> Page:
        async with self.session.get(url, **kwargs) as response:
            body = await response.read()
            text = (
                body.decode("utf-8", "replace") if response.content_type.startswith("text/") else ""
            )
            return Page(response.status, text, response.url, response.headers, self, body)

    async def close(self) -> None:
        await self.session.close()


class Site:
    def __init__(self, h: Harness, server: WebServer) -> None:
        self.h = h
        self.server = server
        self.base = f"http://127.0.0.1:{server.port}/"
        self._clients: list[Client] = []

    async def link(self, member: Member) -> str:
        """`/web` as the member types it: its private reply's link."""
        result = await self.h.run(member, "web")
        reply = result.reply
        assert reply.ephemeral, result.text()
        [button] = reply.card.buttons  # a link button: its custom id is its URL
        assert button.custom_id.startswith("http://"), result.text()
        return button.custom_id

    def client(self) -> Client:
        client = Client(self.base)
        self._clients.append(client)
        return client

    async def open(self, member: Member, client: Client | None = None) -> Page:
        """A fresh reader opens the member's new link: the server's page (after the link's
        redirect), or the refusal."""
        return await (client or self.client()).get(await self.link(member))

    async def close(self) -> None:
        for client in self._clients:
            await client.close()


@contextlib.asynccontextmanager
async def serving(
    url: str, validator: Validator, live: dict[str, Any] | None = None, **options: Any
) -> AsyncIterator[Site]:
    """A bot on `url` with the page on its event loop, as `python -m bot run` serves it with
    WEB_PORT and WEB_SECRET; `options` go to the WebServer (rate_limit, forwarded), `live` to
    its LiveBoards (limit, per_address, poll)."""
    async with started(url, validator) as h:
        bot = h.bot
        links = Links(
            SECRET,
            hours=24,
            base_url="http://127.0.0.1/",
            clock=lambda: bot.clock().timestamp(),
        )
        options.setdefault("rate_limit", None)
        options.setdefault("commands", bot.inflight)  # the commands first, as beside the bot
        if live is not None:
            options["live"] = LiveBoards(lambda: bot.db, **live)
        server = WebServer(
            lambda: bot.db,
            links,
            host="127.0.0.1",
            port=0,
            clock=lambda: bot.clock(),
            channel_names=channel_names(bot),  # as beside the bot (bot/web/serve.py)
            **options,
        )
        await server.start()
        links.base_url = f"http://127.0.0.1:{server.port}/"
        bot.web_links = links
        site = Site(h, server)
        try:
            yield site
        finally:
            await site.close()
            await server.close()


@pytest.fixture
async def site(tmp_path: Path, spec_validator: Validator) -> AsyncIterator[Site]:
    """The page beside a fresh bot on a fresh SQLite file."""
    async with serving(f"sqlite+aiosqlite:///{tmp_path / 'lastgasp.db'}", spec_validator) as s:
        yield s


@pytest.fixture(params=BOTH_DATABASES)
async def any_site(
    request: pytest.FixtureRequest, tmp_path: Path, spec_validator: Validator
) -> AsyncIterator[Site]:
    """The same on SQLite and, with TEST_DATABASE_URL, on PostgreSQL."""
    async with database(request.param, tmp_path) as url, serving(url, spec_validator) as s:
        yield s
