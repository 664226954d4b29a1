"""The campaign page while its database does not answer: 503, a page that says so and what to
do (reload in a minute), within the connect timeout, or the round trip's when the network
stalls mid-read; the page again once it answers."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator
from typing import Any

import pytest

from tests.silent_network import Proxy, database_behind_proxy, round_trip_timeout
from tests.web.conftest import Page, serving


@pytest.fixture
async def page_behind_proxy(
    spec_validator: Any, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[tuple[Page, Proxy]]:
    """Roryn's campaign page, shown, its bot reaching PostgreSQL through a proxy."""
    round_trip_timeout(monkeypatch, 0.5)
    async with (
        database_behind_proxy(monkeypatch, 0.5) as (through, proxy),
        serving(through, spec_validator) as site,
    ):
        try:
            await site.h.add_character("Roryn")
            page = await site.open(site.h.owner)
            assert page.status == 200 and "Roryn" in page.text
            yield page, proxy
        finally:  # the bot's connections close through it: a failed test must not hang there
            proxy.thaw()
            proxy.resume()


async def a_503_saying(page: Page, text: str) -> None:
    asked = time.monotonic()
    down = await page.get("")
    assert time.monotonic() - asked < 3.0  # our timeouts', not asyncpg's minute or the network's
    assert down.status == 503
    assert text in down.text
    assert "Roryn" not in down.text


@pytest.mark.postgres
async def test_a_database_that_stops_answering_is_a_503_saying_so(page_behind_proxy):
    page, proxy = page_behind_proxy
    proxy.silence()
    await asyncio.sleep(0.2)  # the cut connections reach the bot's loop
    await a_503_saying(page, "cannot reach its database right now: reload in a minute")
    proxy.resume()
    again = await page.get("")
    assert again.status == 200 and "Roryn" in again.text


@pytest.mark.postgres
async def test_a_read_that_stalls_is_a_503_saying_so(page_behind_proxy):
    page, proxy = page_behind_proxy
    proxy.freeze()
    await a_503_saying(page, "database stopped answering: reload in a minute")
    proxy.thaw()
    again = await page.get("")
    assert again.status == 200 and "Roryn" in again.text


@pytest.mark.postgres
async def test_live_boards_log_an_outage_once(spec_validator, monkeypatch, caplog):
    """An open live board looks for changes each poll: while the database is out of reach the
    log says so once, without a traceback, and once more when it answers again."""
    async with (
        database_behind_proxy(monkeypatch, 0.2) as (through, proxy),
        serving(through, spec_validator, live={"poll": 0.1}) as site,
    ):
        h = site.h
        await h.add_character("Roryn")
        await h.run(h.gm, "board start")
        page = await site.open(h.player)
        stream = await page.client.session.get(f"{page.url}boards/{h.guild.channel_id}/live")
        try:
            assert stream.status == 200
            with caplog.at_level(logging.INFO, logger="lastgasp.web"):
                proxy.silence()
                await asyncio.sleep(1.5)  # a look every 0.1 s, each out of reach
                logged = [r for r in caplog.records if r.name == "lastgasp.web"]
                [warned] = logged
                assert warned.levelno == logging.WARNING and warned.exc_info is None
                # A look cut mid-statement, or one that cannot connect: either names the database.
                said = warned.getMessage().removeprefix("live boards: ")
                assert said.startswith(("could not reach the database", "got no answer from"))
                proxy.resume()
                await asyncio.sleep(1.0)
                logged = [r.getMessage() for r in caplog.records if r.name == "lastgasp.web"]
                assert logged[1:] == ["live boards: the database answers again"]
        finally:
            stream.close()
            proxy.resume()
