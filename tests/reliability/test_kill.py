"""Killed mid-load, the bot loses nothing it answered; restarted, it answers what it left.

A bot process (tests/reliability/kill_worker.py) runs a steady load through the real command
tree and reports each command as soon as its reply reached the HTTP seam; it is killed with
SIGKILL mid-load. Then: every command it answered as done is in the event log exactly once,
none it refused is, every character's log replays to its sheet (nothing torn), and a new bot
on the same database carries on. A button posted before a restart is answered, not dropped.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from bot.db import Database
from rules.models import GuildSettings
from tests.reliability import kill_worker
from tests.reliability.conftest import BACKENDS, database_url, snapshot, started_harness
from tests.reliability.test_serializability import REPLAY, dice_of

ROOT = Path(__file__).resolve().parents[2]
ANSWERS_BEFORE_THE_KILL = 150


def read_until_killed(worker: subprocess.Popen) -> list[str]:
    """Lines up to the kill, which comes once enough commands were answered."""
    lines: list[str] = []
    deadline = time.monotonic() + 60
    while len(lines) < ANSWERS_BEFORE_THE_KILL:
        line = worker.stdout.readline()
        assert line, f"the worker stopped: {worker.stderr.read()}"
        assert time.monotonic() < deadline, "the worker made no progress"
        if line.startswith("answered "):
            lines.append(line)
    os.kill(worker.pid, signal.SIGKILL)
    rest, _ = worker.communicate(timeout=30)
    assert worker.returncode == -signal.SIGKILL
    return lines + [line + "\n" for line in rest.splitlines() if line.startswith("answered ")]


@pytest.mark.slow
@pytest.mark.parametrize("backend", BACKENDS)
async def test_a_killed_bot_loses_no_answered_command(
    backend: str, tmp_path: Path, spec_validator: Any
) -> None:
    async with database_url(backend, tmp_path) as url:
        worker = subprocess.Popen(
            [sys.executable, "-m", "tests.reliability.kill_worker", url],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            ready = await asyncio.to_thread(worker.stdout.readline)
            assert ready == "ready\n", ready + worker.stderr.read()
            lines = await asyncio.to_thread(read_until_killed, worker)
        finally:
            if worker.poll() is None:
                worker.kill()
                worker.wait()
        answered = [line.split() for line in lines]
        done = {tag for _, tag, kind, ok in answered if ok == "1" and kind != "rest"}
        refused = {tag for _, tag, kind, ok in answered if ok == "0" and kind != "rest"}
        assert len(done) > ANSWERS_BEFORE_THE_KILL // 4, "the load was mostly refused"

        if backend == "sqlite":
            path = url.split("///", 1)[1]
            with sqlite3.connect(path) as check:
                assert check.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        db = await Database.connect(url)
        try:
            tags = await logged_tags_and_replay(db)
        finally:
            await db.close()
        for tag in done:
            assert tags.get(tag) == 1, (
                f"{tag} was answered as done, and is logged {tags.get(tag, 0)}×"
            )
        assert not refused & set(tags), "a refused command left an event"

        # A new bot on the same database carries on.
        async with started_harness(url, spec_validator) as h:
            guild = h.driver.add_guild(kill_worker.GUILD_ID)
            gm = h.driver.member(guild, "GM", user_id=kill_worker.GM_ID, manage_guild=True)
            result = await h.run(gm, "damage", character="Ash", amount=1)
            assert result.reply.embeds and not result.ephemeral, result.text()


async def logged_tags_and_replay(db: Database) -> dict[str, int]:
    """How often each tag is in the log; and every character's log replays to its sheet."""
    settings = GuildSettings()
    tags: dict[str, int] = {}
    async with db.transaction(kill_worker.GUILD_ID, read_only=True) as uow:
        for name in kill_worker.NAMES:
            row = await uow.character(name, lock=False)
            log = list(reversed(await uow.history(row.id, 100_000)))
            assert log[0].command == "character create"
            sheet = log[0].after
            for event in log[1:]:
                assert event.before == sheet, f"{name}: event {event.id} is torn from the last"
                outcome = REPLAY[event.command](
                    sheet, event.inputs, settings, dice_of(event.rolls, settings.die_faces)
                )
                assert outcome.after == event.after, f"{name}: event {event.id} does not replay"
                sheet = outcome.after
                tag = event.inputs.get("reason") or event.inputs.get("what")
                if tag:
                    tags[tag] = tags.get(tag, 0) + 1
            assert sheet == row.sheet, f"{name}: the sheet is not the end of its log"
    return tags


async def test_a_button_from_before_a_restart_is_answered_and_changes_nothing(
    tmp_path: Path, spec_validator: Any
) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'restart.db'}"
    async with started_harness(url, spec_validator) as first:
        await first.add_character("Roryn")
        asked = await first.run(first.owner, "character delete", character="Roryn")
        confirm = next(i for i in asked.reply.custom_ids() if "confirm" in i)
    async with started_harness(url, spec_validator) as second:
        guild = second.driver.add_guild(first.guild.id, roles=dict(first.guild.roles))
        owner = second.driver.member(guild, "Alice", user_id=first.owner.user_id)
        before = await snapshot(second.db)
        clicked = await second.click(owner, asked.reply, confirm)
        assert clicked.messages, "the click got no answer"
        assert await snapshot(second.db) == before
