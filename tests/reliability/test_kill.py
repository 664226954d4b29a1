"""Killed mid-load, the bot loses nothing it answered; restarted, it answers what it left.

A bot process (tests/reliability/kill_worker.py) runs a steady load through the real command
tree and reports each command as soon as its reply reached the HTTP seam; it is killed with
SIGKILL mid-load. Then: every command it answered as done is in the event log exactly once,
none it refused is, every character's log (bookkeeping too, U-2) replays to its sheet (nothing
torn, and on PostgreSQL no event of an optimistic attempt that lost its race), and a new bot on
the same database carries on.

A button posted before a restart carries its state in its custom id: the new process answers
it once, acts once, and a second press (or an expired button) is answered and changes nothing.
"""

from __future__ import annotations

import asyncio
import copy
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from bot.db.database import Database
from rules.models import GuildSettings
from tests.reliability import kill_worker
from tests.reliability.conftest import (
    BACKENDS,
    CLICK_ANSWERS,
    assert_answered_once,
    database_url,
    is_refusal,
    snapshot,
    started_harness,
)
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
            assert result.card.title and not result.ephemeral, result.text()


async def logged_tags_and_replay(db: Database) -> dict[str, int]:
    """How often each tag is in the log; and every character's log replays to its sheet."""
    settings = GuildSettings()
    tags: dict[str, int] = {}
    async with db.transaction(kill_worker.GUILD_ID, read_only=True) as uow:
        for name in kill_worker.NAMES:
            row = await uow.character(name, lock=False)
            log = list(reversed(await uow.history(row.id, 100_000, bookkeeping=True)))
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


async def test_a_recovery_button_from_before_a_restart_rolls_once(
    tmp_path: Path, spec_validator: Any
) -> None:
    """The button's state is in its custom id (bot/render/buttons.py): a new process answers
    it, the roll is made once, and the same button pressed again this round rolls nothing
    (R-8: one recovery roll per round in combat)."""
    url = f"sqlite+aiosqlite:///{tmp_path / 'restart.db'}"
    async with started_harness(url, spec_validator) as first:
        await first.add_character("Roryn", vit=1, res=2)
        await first.start_combat(["Roryn"])
        fell = await first.run(first.owner, "damage", character="Roryn", amount=2)
        [roll] = [i for i in fell.reply.custom_ids() if i.startswith("lg:recover:")]
    async with started_harness(url, spec_validator) as second:
        guild = second.driver.add_guild(first.guild.id, roles=dict(first.guild.roles))
        owner = second.driver.member(guild, "Alice", user_id=first.owner.user_id)
        before = await snapshot(second.db)
        rolled = await second.click(owner, fell.reply, roll)
        assert rolled.messages and not rolled.reply.ephemeral, rolled.text()
        assert_answered_once(rolled, answers=CLICK_ANSWERS)
        after = await snapshot(second.db)
        assert len(after["events"]) == len(before["events"]) + 1, "not rolled exactly once"
        again = await second.click(owner, fell.reply, roll)
        assert_answered_once(again, answers=CLICK_ANSWERS)
        assert is_refusal(again), again.text()
        assert await snapshot(second.db) == after, "a stale button changed something"


async def test_a_delete_button_from_before_a_restart_deletes_once(
    tmp_path: Path, spec_validator: Any
) -> None:
    """Confirmed after a restart: deleted once; the same button pressed twice (the second
    press sent before the first one's update reached the client) deletes nothing more."""
    url = f"sqlite+aiosqlite:///{tmp_path / 'restart.db'}"
    async with started_harness(url, spec_validator) as first:
        await first.add_character("Roryn")
        asked = await first.run(first.owner, "character delete", character="Roryn")
        question = copy.deepcopy(asked.reply)  # as the client shows it: with its buttons
        [confirm] = [i for i in question.custom_ids() if "confirm" in i]
    async with started_harness(url, spec_validator) as second:
        guild = second.driver.add_guild(first.guild.id, roles=dict(first.guild.roles))
        owner = second.driver.member(guild, "Alice", user_id=first.owner.user_id)
        clicked = await second.click(owner, copy.deepcopy(question), confirm)
        assert_answered_once(clicked, answers=CLICK_ANSWERS)
        after = await snapshot(second.db)
        assert not after["characters"], f"not deleted: {clicked.text()}"
        again = await second.click(owner, copy.deepcopy(question), confirm)
        assert_answered_once(again, answers=CLICK_ANSWERS)
        assert again.messages and all(m.ephemeral for m in again.messages), again.text()
        assert await snapshot(second.db) == after, "deleted twice"


async def test_an_expired_button_from_before_a_restart_is_answered_and_changes_nothing(
    tmp_path: Path, spec_validator: Any
) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'restart.db'}"
    async with started_harness(url, spec_validator) as first:
        await first.add_character("Roryn")
        asked = await first.run(first.owner, "character delete", character="Roryn")
    # The same question, its time passed: `lg:delete:confirm:<id>:<asker>:<until>`.
    question = copy.deepcopy(asked.reply)
    [live] = [i for i in question.custom_ids() if "confirm" in i]
    expired = live.rsplit(":", 1)[0] + f":{int(time.time()) - 1}"
    question.components = json.loads(json.dumps(question.components).replace(live, expired))
    async with started_harness(url, spec_validator) as second:
        guild = second.driver.add_guild(first.guild.id, roles=dict(first.guild.roles))
        owner = second.driver.member(guild, "Alice", user_id=first.owner.user_id)
        before = await snapshot(second.db)
        clicked = await second.click(owner, question, expired)
        assert_answered_once(clicked, answers=CLICK_ANSWERS)
        assert is_refusal(clicked), clicked.text()
        assert await snapshot(second.db) == before
