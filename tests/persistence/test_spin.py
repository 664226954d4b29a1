"""The event loop polls while a hot-path round trip to PostgreSQL is in flight (bot/db/spin.py):
only then, at most SPIN_S a round trip, and never for an idle bot."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.db import spin
from bot.db.database import Database
from bot.db.postgres_path import PostgresHotPath
from bot.db.spin import Spinner
from rules.errors import RuleError
from tests.persistence.conftest import empty_database, upgraded
from tests.persistence.helpers import create, hit, refuse_events_on_postgres


async def _answered_after(seconds: float) -> None:
    """A round trip's wait: the loop's timer answers it, as a socket's answer would."""
    done = asyncio.get_running_loop().create_future()
    asyncio.get_running_loop().call_later(seconds, done.set_result, None)
    await done


async def _settled(spinner: Spinner) -> None:
    for _ in range(3):  # the turn already due runs, and arms no other
        await asyncio.sleep(0)
    assert not spinner.armed


async def test_the_loop_polls_while_a_round_trip_is_in_flight(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(spin, "SPIN_S", 0.05)  # longer than the wait, however busy the machine
    spinner = Spinner()
    spinner.enter()
    try:
        await _answered_after(0.005)
    finally:
        spinner.leave()
    polled = spinner.turns
    assert polled >= 3  # the loop kept turning instead of sleeping until the answer
    await _settled(spinner)
    assert spinner.turns <= polled + 1


async def test_polling_stops_at_its_budget_while_the_answer_is_still_due(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(spin, "SPIN_S", 0.002)
    spinner = Spinner()
    spinner.enter()
    try:
        waiting = asyncio.ensure_future(_answered_after(0.2))
        await asyncio.sleep(0.05)  # the budget is long spent: the loop sleeps again
        assert not spinner.armed
        polled = spinner.turns
        assert polled >= 1
        await waiting
        assert spinner.turns == polled
    finally:
        spinner.leave()


async def test_an_idle_loop_is_not_polled() -> None:
    spinner = Spinner()
    spinner.enter()
    spinner.leave()
    await _settled(spinner)
    before = spinner.turns
    await asyncio.sleep(0.01)
    assert spinner.turns == before


async def test_the_next_round_trip_polls_again_for_a_budget_of_its_own(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(spin, "SPIN_S", 0.005)
    spinner = Spinner()
    for _ in range(2):
        spinner.enter()
        started = spinner.turns
        try:
            await _answered_after(0.003)
        finally:
            spinner.leave()
        assert spinner.turns > started  # armed again after the last round trip disarmed it
        await _settled(spinner)


# --- on PostgreSQL's hot path ------------------------------------------------------------------


@pytest.fixture
async def pg(tmp_path: Path) -> AsyncIterator[Database]:
    async with empty_database("postgresql", tmp_path) as target, upgraded(target) as db:
        yield db


def _spinner(db: Database) -> Spinner:
    hot = db._hot  # the hot path the database runs its commands on
    assert isinstance(hot, PostgresHotPath)
    return hot._spinner


@pytest.mark.postgres
async def test_a_commands_round_trips_poll_and_leave_the_loop_idle_after(pg: Database) -> None:
    await create(pg, "Ana")
    spinner = _spinner(pg)
    before = spinner.turns
    outcome = await hit(pg, "Ana", 1)
    assert outcome.after.vit == 9
    assert spinner.turns > before  # the load and the save were polled for
    await _settled(spinner)
    assert spinner.in_flight == 0


@pytest.mark.postgres
async def test_a_round_trip_the_server_refuses_leaves_nothing_in_flight(pg: Database) -> None:
    """A save the server refuses (a trigger here) and a name that is not there (the settings'
    round trip, then the rule's refusal) each end their round trips."""
    await create(pg, "Ana")
    await refuse_events_on_postgres(pg)
    with pytest.raises(Exception, match="no event"):
        await hit(pg, "Ana", 1)
    with pytest.raises(RuleError):
        await hit(pg, "Nobody", 1)
    spinner = _spinner(pg)
    await _settled(spinner)
    assert spinner.in_flight == 0
