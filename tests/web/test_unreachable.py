"""The campaign page while its database does not answer: 503, a page that says so and what to
do (reload in a minute), within the connect timeout, or the round trip's when the network
stalls mid-read; the page again once it answers."""

from __future__ import annotations

import asyncio
import time

import pytest

from tests.discord.conftest import PG_SERVER, SKIP_PG, postgres_database
from tests.silent_network import connect_timeout, proxied, round_trip_timeout
from tests.web.conftest import serving


@pytest.mark.postgres
async def test_a_database_that_stops_answering_is_a_503_saying_so(spec_validator, monkeypatch):
    if not PG_SERVER:
        pytest.skip(SKIP_PG)
    connect_timeout(monkeypatch, 0.5)
    async with (
        postgres_database(PG_SERVER) as url,
        proxied(url) as (through, proxy),
        serving(through, spec_validator) as site,
    ):
        await site.h.add_character("Roryn")
        page = await site.open(site.h.owner)
        assert page.status == 200 and "Roryn" in page.text
        proxy.silence()
        await asyncio.sleep(0.2)  # the cut connections reach the bot's loop
        asked = time.monotonic()
        down = await page.get("")
        assert time.monotonic() - asked < 3.0  # the connect timeout's, not asyncpg's minute
        assert down.status == 503
        assert "cannot reach its database right now: reload in a minute" in down.text
        assert "Roryn" not in down.text
        proxy.resume()
        again = await page.get("")
        assert again.status == 200 and "Roryn" in again.text


@pytest.mark.postgres
async def test_a_read_that_stalls_is_a_503_saying_so(spec_validator, monkeypatch):
    if not PG_SERVER:
        pytest.skip(SKIP_PG)
    round_trip_timeout(monkeypatch, 0.5)
    async with (
        postgres_database(PG_SERVER) as url,
        proxied(url) as (through, proxy),
        serving(through, spec_validator) as site,
    ):
        try:
            await site.h.add_character("Roryn")
            page = await site.open(site.h.owner)
            assert page.status == 200 and "Roryn" in page.text
            proxy.freeze()
            asked = time.monotonic()
            down = await page.get("")
            assert time.monotonic() - asked < 3.0
            assert down.status == 503
            assert "database stopped answering: reload in a minute" in down.text
            assert "Roryn" not in down.text
        finally:  # the bot's connections close through it: a failed test must not hang there
            proxy.thaw()
        again = await page.get("")
        assert again.status == 200 and "Roryn" in again.text
