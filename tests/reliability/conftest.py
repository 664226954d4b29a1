"""Fixtures of the reliability suite: the bot driven by raw payloads (bot.offline), on SQLite
and, when TEST_DATABASE_URL names a server, on PostgreSQL in a database of its own.

The Harness class is the one of tests/discord (its speakers, setup helpers and the check of
every captured body against Discord's API description, by the session's validator of
tests/conftest.py; without a description the bodies go unvalidated and every other check still
runs); only how it is built differs here.

What the suite checks of every interaction, shared by its files:
- `callbacks(result)`: the interaction callbacks it sent; exactly one, of type 4 (a message),
  5 (a defer) or 8 (autocomplete choices), whatever else it sends as followups;
- `snapshot(db)`: every row of every table as stored, so that a refusal can be shown to leave
  the database unchanged byte for byte;
- `LogCapture`: what the bot logged (`lastgasp.errors` at any level, anything at ERROR).
"""

from __future__ import annotations

import contextlib
import logging
import os
import random
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

from bot.app import create_bot
from bot.db.engine import READ_ONLY
from bot.db.tables import metadata
from bot.offline import OfflineDriver, Request, Result
from tests.discord.conftest import Harness, postgres_database
from tests.spec_validation import Validator

PG_SERVER = os.environ.get("TEST_DATABASE_URL")
SKIP_PG = "TEST_DATABASE_URL is not set: the PostgreSQL run of this test is skipped"

BACKENDS = [
    pytest.param("sqlite", id="sqlite"),
    pytest.param("postgresql", id="postgresql", marks=pytest.mark.postgres),
]

ANSWERS = (4, 5, 8)  # the callback types that answer a command or an autocomplete
CLICK_ANSWERS = (4, 5, 6, 7)  # and a click: also an update of the clicked message (6, 7)


@contextlib.asynccontextmanager
async def database_url(backend: str, tmp_path: Path) -> AsyncIterator[str]:
    if backend == "sqlite":
        yield f"sqlite+aiosqlite:///{tmp_path / 'lastgasp.db'}"
        return
    if not PG_SERVER:
        pytest.skip(SKIP_PG)
    async with postgres_database(PG_SERVER) as url:
        yield url


@contextlib.asynccontextmanager
async def started_harness(
    url: str,
    validator: Validator,
    rng: random.Random | None = None,
    *,
    board_interval: float | None = None,
) -> AsyncIterator[Harness]:
    bot = create_bot(url, rng=rng or random.Random(0), board_interval=board_interval)
    driver = OfflineDriver(bot)
    await driver.start()
    try:
        yield Harness(driver, validator)
    finally:
        await driver.close()


@pytest.fixture
async def harness(tmp_path: Path, spec_validator: Validator) -> AsyncIterator[Harness]:
    """A fresh bot on a fresh SQLite file (the same as tests/discord's, seeded rng)."""
    url = f"sqlite+aiosqlite:///{tmp_path / 'lastgasp.db'}"
    async with started_harness(url, spec_validator) as h:
        yield h


@pytest.fixture(params=BACKENDS)
async def any_harness(
    request: pytest.FixtureRequest, tmp_path: Path, spec_validator: Validator
) -> AsyncIterator[Harness]:
    """The same, on SQLite and on PostgreSQL."""
    async with (
        database_url(request.param, tmp_path) as url,
        started_harness(url, spec_validator) as h,
    ):
        yield h


# --- the database, byte for byte ----------------------------------------------------------------


async def snapshot(db: Any) -> dict[str, list[dict]]:
    """Every row of every table as the driver returns it (JSON as stored text), in key order,
    plus SQLite's autoincrement counters: equal snapshots mean an unchanged database."""
    found: dict[str, list[dict]] = {}
    async with db.engine.connect() as conn:
        conn = await conn.execution_options(**{READ_ONLY: True})  # no write lock to read
        ordered = {t.name: [c.name for c in t.primary_key.columns] for t in metadata.sorted_tables}
        if conn.dialect.name == "sqlite":
            ordered["sqlite_sequence"] = ["name"]
        for name, key in ordered.items():
            rows = await conn.exec_driver_sql(f"SELECT * FROM {name} ORDER BY {', '.join(key)}")
            found[name] = [dict(row) for row in rows.mappings().all()]
    return found


def check_bodies(validator: Validator, requests: list[Request]) -> None:
    """Every captured body against Discord's API description (the validator reads uploaded
    attachments' `"id": 0` as the string the description types it as). Without a description
    the rest still runs (the permission matrix, the fuzzing, the faults), bodies unvalidated."""
    for request in requests:
        validator.check(request)


def of_guild(state: dict[str, list[dict]], guild_id: int) -> dict[str, list[dict]]:
    """The rows that belong to one guild (combat members through their character)."""
    ours = {r["id"] for r in state["characters"] if r["guild_id"] == guild_id}

    def belongs(row: dict) -> bool:
        if "guild_id" in row:
            return row["guild_id"] == guild_id
        return row["character_id"] in ours

    return {
        table: [row for row in rows if belongs(row)]
        for table, rows in state.items()
        if table != "sqlite_sequence"
    }


# --- what an interaction sent -------------------------------------------------------------------


def callbacks(result: Result) -> list[Request]:
    """The interaction callbacks among the requests of one interaction."""
    return [r for r in result.requests if r.path.endswith("/callback")]


def assert_answered_once(result: Result, what: str = "", answers: tuple[int, ...] = ANSWERS) -> int:
    """Exactly one callback, and it answers (4, 5 or 8; `answers` for a click); followups may
    come after. Returns its type."""
    sent = callbacks(result)
    kinds = [r.payload.get("type") if isinstance(r.payload, dict) else None for r in sent]
    assert len(sent) == 1, f"{len(sent)} callbacks {kinds} for one interaction {what}"
    assert kinds[0] in answers, f"the callback is of type {kinds[0]}, not an answer {what}"
    return int(kinds[0])


def is_refusal(result: Result) -> bool:
    """A private text and nothing else: how the bot says no."""
    reply = result.reply
    card = reply.card
    return reply.ephemeral and not (card.title or card.buttons or card.selects or reply.files)


class LogCapture(logging.Handler):
    """What the bot logs: every record of `lastgasp.errors` (a command or a click that failed,
    or whose reply failed), and anything at ERROR from any logger."""

    ERRORS = "lastgasp.errors"

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.name.startswith(self.ERRORS) or record.levelno >= logging.ERROR:
            self.records.append(record)

    def clear(self) -> None:
        self.records.clear()

    def text(self) -> str:
        return "; ".join(f"{r.name}: {r.getMessage()}" for r in self.records)


@contextlib.contextmanager
def captured_logs() -> Iterator[LogCapture]:
    capture = LogCapture()
    errors = logging.getLogger(LogCapture.ERRORS)
    level = errors.level
    errors.setLevel(logging.DEBUG)
    logging.getLogger().addHandler(capture)
    try:
        yield capture
    finally:
        logging.getLogger().removeHandler(capture)
        errors.setLevel(level)
