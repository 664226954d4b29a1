"""The database stops answering while the bot runs (docs/commands.md, "Within Discord's 3
seconds, always"): a play command on the hot path and a command in a unit of work are each
answered privately within the window, "cannot reach its database … nothing was changed", the
operator sees it in the log, and once the database answers again the same command goes
through: nothing changed meanwhile, nothing lands late.

The bot reaches the test's PostgreSQL server through a proxy that cuts what is open and then
takes new connections without answering them (tests/silent_network.py)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from typing import Any

import pytest

from bot.offline import EPHEMERAL
from tests.discord.conftest import (
    Harness,
    assert_refused,
    started,
)
from tests.discord.test_window import WINDOW_S, callbacks, run_timed, timed
from tests.silent_network import Proxy, database_behind_proxy, round_trip_timeout

UNREACHABLE = "cannot reach its database right now: nothing was changed"
CONNECT_TIMEOUT_S = 0.5
ROUND_TRIP_TIMEOUT_S = 1.0
ON_BOTH_PATHS = pytest.mark.parametrize(
    ("command", "options"),
    [("damage", {"character": "Roryn", "amount": 3}), ("day", {})],
    ids=["damage", "day"],  # the hot path; a unit of work
)


@pytest.fixture
async def behind_proxy(
    spec_validator: Any, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[tuple[Harness, Proxy]]:
    round_trip_timeout(monkeypatch, ROUND_TRIP_TIMEOUT_S)  # a stall told after 1 s, not 10
    async with (
        database_behind_proxy(monkeypatch, CONNECT_TIMEOUT_S) as (through, proxy),
        started(through, spec_validator) as harness,
    ):
        try:
            yield harness, proxy
        finally:  # the bot's connections close through it: a failed test must not hang there
            proxy.thaw()
            proxy.resume()


@pytest.mark.postgres
@ON_BOTH_PATHS
async def test_a_database_that_stops_answering_is_told_within_the_window(
    behind_proxy, caplog, command, options
):
    harness, proxy = behind_proxy
    await harness.add_character("Roryn", vit=8)
    before = await harness.snapshot()
    await harness.run(harness.gm, command, **options)  # the connections it uses, now idle
    done = await harness.snapshot()
    assert done != before
    record = timed(harness)

    proxy.silence()
    await asyncio.sleep(0.2)  # the cut connections reach the bot's loop
    with caplog.at_level(logging.INFO, logger="lastgasp"):
        result, took = await run_timed(harness, record, harness.gm, command, **options)
    assert took < WINDOW_S, f"first callback after {took:.2f} s"
    [callback] = callbacks(result)
    assert callback.payload["type"] == 4 and callback.payload["data"]["flags"] & EPHEMERAL
    text = assert_refused(result, UNREACHABLE, "tell the bot's admin")
    assert "Something went wrong" not in text and "Discord did not take" not in text
    warned = [r.getMessage() for r in caplog.records if r.name == "lastgasp.errors"]
    assert any("could not reach the database" in line for line in warned), warned
    [line] = [r.getMessage() for r in caplog.records if r.name == "lastgasp.commands"]
    assert line.endswith("outcome=error")  # an error for the operator, not a refusal

    proxy.resume()
    await harness.driver.idle()
    assert await harness.snapshot() == done  # nothing changed, nothing landed late
    again = await harness.run(harness.gm, command, **options)
    assert not again.ephemeral
    assert await harness.snapshot() != done


@pytest.mark.postgres
@ON_BOTH_PATHS
async def test_a_database_that_stalls_mid_command_is_told_to_check_history(
    behind_proxy, caplog, command, options
):
    """A round trip waits ROUND_TRIP_TIMEOUT_S at most, on the hot path and in a unit of work:
    then its commands are told that the database stopped answering and to check /history
    (whether a save landed cannot be known), and its connection is dropped; the next command
    goes through."""
    harness, proxy = behind_proxy
    await harness.add_character("Roryn", vit=8)
    record = timed(harness)
    await harness.run(harness.gm, command, **options)  # a connection, idle
    done = await harness.snapshot()
    proxy.freeze()
    with caplog.at_level(logging.INFO, logger="lastgasp"):
        result, took = await run_timed(harness, record, harness.gm, command, **options)
    assert ROUND_TRIP_TIMEOUT_S <= took < WINDOW_S, f"first callback after {took:.2f} s"
    [callback] = callbacks(result)  # the answer itself, not a defer
    assert callback.payload["type"] == 4 and callback.payload["data"]["flags"] & EPHEMERAL
    text = assert_refused(result, "stopped answering", "Check /history before you try again")
    assert "nothing was changed" not in text  # it cannot be known
    warned = [r.getMessage() for r in caplog.records if r.name == "lastgasp.errors"]
    assert any("got no answer from the database" in line for line in warned), warned
    [line] = [r.getMessage() for r in caplog.records if r.name == "lastgasp.commands"]
    assert line.endswith("outcome=error")

    proxy.thaw()
    await harness.driver.idle()
    assert await harness.snapshot() == done  # the stalled command never became a change
    again = await harness.run(harness.gm, command, **options)
    assert not again.ephemeral
    assert await harness.snapshot() != done
