"""Sharding: the settings, the bot it makes, and two shard processes on one PostgreSQL database
serving each guild exactly once."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
import subprocess
import sys
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import discord
import pytest
from pydantic import ValidationError
from sqlalchemy import text
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import create_async_engine

from bot.app import LastGaspBot, create_bot
from bot.config import Settings
from bot.db.database import Database
from bot.offline import OfflineDriver
from bot.shards import shard_of
from rules.dice import ScriptedRandom

ROOT = Path(__file__).resolve().parents[2]
PG_URL = os.environ.get("TEST_DATABASE_URL")
SHARD_ENV = ("SHARD_COUNT", "SHARD_IDS")


def settings(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, **env: str) -> Settings:
    monkeypatch.chdir(tmp_path)  # no .env file here
    for name in SHARD_ENV:
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return Settings()


def guild_on(shard: int, count: int, n: int = 0) -> int:
    """A snowflake-shaped guild id that belongs to `shard` of `count`."""
    timestamp = count * ((1 << 38) + n) + shard  # ms since Discord's epoch, ≡ shard mod count
    return (timestamp << 22) | 0x2A


# --- settings and create_bot ---------------------------------------------------------------------


def test_shard_settings_read_comma_separated_ids(monkeypatch, tmp_path):
    chosen = settings(monkeypatch, tmp_path, SHARD_COUNT="4", SHARD_IDS="1, 3")
    assert (chosen.shard_count, chosen.shard_ids) == (4, [1, 3])
    # A count alone: this one process runs every shard.
    assert settings(monkeypatch, tmp_path, SHARD_COUNT="3", SHARD_IDS=" ").shard_ids == [0, 1, 2]
    unsharded = settings(monkeypatch, tmp_path)
    assert (unsharded.shard_count, unsharded.shard_ids) == (None, None)


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"SHARD_IDS": "0"}, "SHARD_IDS needs SHARD_COUNT"),
        ({"SHARD_COUNT": "2", "SHARD_IDS": "0,2"}, "SHARD_IDS [2] are outside 0..1"),
        ({"SHARD_COUNT": "2", "SHARD_IDS": "-1"}, "SHARD_IDS [-1] are outside 0..1"),
        ({"SHARD_COUNT": "2", "SHARD_IDS": "1,1"}, "distinct"),
        ({"SHARD_COUNT": "0"}, "greater than or equal to 1"),
        ({"SHARD_COUNT": "2", "SHARD_IDS": "one"}, "valid integer"),
    ],
)
def test_shard_settings_refuse_what_cannot_work(monkeypatch, tmp_path, env, message):
    with pytest.raises(ValidationError, match=re.escape(message)):
        settings(monkeypatch, tmp_path, **env)


def test_the_cli_reports_wrong_shard_settings_without_a_traceback(monkeypatch, tmp_path, capsys):
    from bot.cli import main

    settings(monkeypatch, tmp_path, SHARD_COUNT="2")
    monkeypatch.setenv("SHARD_IDS", "5")
    assert main(["migrate"]) == 2
    assert "error: SHARD_IDS: [5] are outside 0..1" in capsys.readouterr().err


def test_create_bot_is_auto_sharded_only_when_sharding_is_configured():
    url = "sqlite+aiosqlite:///:memory:"
    plain = create_bot(url)
    assert isinstance(plain, LastGaspBot)
    assert not isinstance(plain, discord.AutoShardedClient)
    sharded = create_bot(url, shard_count=4, shard_ids=[1, 3])
    assert isinstance(sharded, LastGaspBot) and isinstance(sharded, discord.AutoShardedClient)
    assert (sharded.shard_count, sharded.shard_ids) == (4, [1, 3])
    assert create_bot(url, shard_count=2).shard_ids == [0, 1]
    with pytest.raises(ValueError, match="shard_count"):
        create_bot(url, shard_ids=[0])
    with pytest.raises(ValueError, match=re.escape("0..1")):
        create_bot(url, shard_count=2, shard_ids=[2])


def test_a_guild_belongs_to_the_shard_of_its_id():
    # (guild_id >> 22) % shard_count, Discord's rule; direct messages go to shard 0.
    assert shard_of((123 << 22) | 4_194_303, 4) == 3
    # Discord API server's id: its timestamp part is 19403645698.
    discord_api = 81384788765712384
    assert [shard_of(discord_api, n) for n in (1, 2, 3, 16)] == [0, 0, 1, 2]
    assert shard_of(guild_on(1, 2), 2) == 1 and shard_of(guild_on(2, 3, n=5), 3) == 2
    assert shard_of(None, 5) == 0


async def test_a_shard_ignores_the_guilds_of_other_shards(tmp_path, caplog):
    bot = create_bot(
        f"sqlite+aiosqlite:///{tmp_path / 'a.db'}", ScriptedRandom(), shard_count=2, shard_ids=[1]
    )
    driver = OfflineDriver(bot)
    await driver.start()
    try:
        ours = driver.add_guild(guild_on(1, 2))
        theirs = driver.add_guild(guild_on(0, 2))
        with caplog.at_level(logging.DEBUG, logger="lastgasp"):
            served = await driver.invoke(driver.member(ours, "A"), "character create", name="Ro")
            ignored = await driver.invoke(driver.member(theirs, "B"), "character create", name="Ro")
            typed = await driver.autocomplete(
                driver.member(theirs, "B"), "damage", "character", character="R"
            )
        assert served.card.title.endswith(" · Created")
        assert ignored.requests == [] and ignored.messages == []  # no answer at all
        assert typed.requests == [] and typed.choices is None
        # Direct messages are shard 0's (here refused there, ignored here).
        assert (await driver.dm(777, "damage", amount=1)).requests == []
        for guild, expected in ((ours, ["Ro"]), (theirs, [])):
            async with bot.db.transaction(guild.id, read_only=True) as uow:
                assert [row.sheet.name for row in await uow.characters()] == expected
        assert f"guild {theirs.id} is shard 0's, not this process's [1]" in caplog.text
        lines = [r.getMessage() for r in caplog.records if r.name == "lastgasp.commands"]
        assert len(lines) == 1 and f"guild={ours.id} " in lines[0]  # an ignored one is no command
    finally:
        await driver.close()


async def test_a_click_passes_the_same_shard_guard(tmp_path, caplog):
    bot = create_bot(
        f"sqlite+aiosqlite:///{tmp_path / 'a.db'}", ScriptedRandom(), shard_count=2, shard_ids=[1]
    )
    driver = OfflineDriver(bot)
    await driver.start()
    try:
        ours = driver.add_guild(guild_on(1, 2))
        theirs = driver.add_guild(guild_on(0, 2))
        owner = driver.member(ours, "A")
        await driver.invoke(owner, "character create", name="Ro")
        asked = await driver.invoke(owner, "character delete", character="Ro")
        confirm = next(i for i in asked.reply.custom_ids() if ":confirm:" in i)
        # The same button, clicked in a guild of shard 0: this process neither answers nor logs.
        stranger = driver.member(theirs, "B", user_id=owner.user_id)
        with caplog.at_level(logging.DEBUG, logger="lastgasp"):
            ignored = await driver.click(stranger, asked.reply, confirm)
        assert ignored.requests == [] and ignored.messages == []
        assert f"guild {theirs.id} is shard 0's, not this process's [1]" in caplog.text
        assert not [r for r in caplog.records if r.name == "lastgasp.commands"]
        # In its own shard's guild the click is answered (the question was left open).
        done = await driver.click(owner, asked.reply, confirm)
        assert "Deleted **Ro**" in done.reply.card.body
    finally:
        await driver.close()


# --- two shard processes, one PostgreSQL database ------------------------------------------------

GUILDS = 6
DAMAGE = (1, 2, 3)
MAX_VIT = 20
CLICKS = {"lg:board:sheet": "ok", "lg:board:gone": "expired"}  # custom id: its outcome


@pytest.fixture
async def fresh_postgres() -> AsyncIterator[str]:
    """The URL of a new, empty PostgreSQL database, dropped afterwards."""
    if not PG_URL:
        pytest.skip("TEST_DATABASE_URL is not set: the two-shard PostgreSQL test is skipped")
    name = f"lastgasp_ops_{uuid.uuid4().hex[:12]}"
    admin = create_async_engine(PG_URL, isolation_level="AUTOCOMMIT")
    async with admin.connect() as conn:
        await conn.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        yield make_url(PG_URL).set(database=name).render_as_string(hide_password=False)
    finally:
        async with admin.connect() as conn:
            await conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        await admin.dispose()


def two_shard_script() -> dict:
    """Six guilds, three per shard; each gets a character and three /damage, interleaved so
    that both processes write at the same time."""
    guilds = [
        {"id": guild_on(i % 2, 2, n=i), "channel_id": 7_000 + i, "gm": 9_000 + i}
        for i in range(GUILDS)
    ]

    def step(guild: dict, command: str, **options: object) -> dict:
        return {"guild": guild["id"], "command": command, "options": options}

    steps = [step(g, "character create", name="Hero", max_vit=MAX_VIT) for g in guilds]
    for amount in DAMAGE:
        steps += [step(g, "damage", character="Hero", amount=amount) for g in guilds]
    # Clicks pass the same guard: the board's "My sheet" (the GM's Hero), a button gone.
    for custom_id in CLICKS:
        steps += [{"guild": g["id"], "click": custom_id} for g in guilds]
    return {"guilds": guilds, "commands": steps}


def start_shard(script: Path, url: str, shard_id: int) -> subprocess.Popen:
    env = {
        **os.environ,
        "DATABASE_URL": url,
        "SHARD_COUNT": "2",
        "SHARD_IDS": str(shard_id),
        "LOG_LEVEL": "INFO",
        "LOG_FORMAT": "json",
    }
    return subprocess.Popen(
        [sys.executable, "-m", "tests.ops.shard_worker", str(script)],
        cwd=ROOT,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


@pytest.mark.postgres
@pytest.mark.slow
async def test_two_shard_processes_serve_each_guild_exactly_once(fresh_postgres, tmp_path):
    script = two_shard_script()
    path = tmp_path / "script.json"
    path.write_text(json.dumps(script))
    shards = [start_shard(path, fresh_postgres, shard_id) for shard_id in (0, 1)]
    try:
        # Both set up (and migrate the empty database: the upgrade's lock lets one do it),
        # then both are released together.
        for shard in shards:
            line = await asyncio.to_thread(shard.stdout.readline)
            assert line == "ready\n", shard.stderr.read()
        for shard in shards:
            shard.stdin.write("go\n")
            shard.stdin.flush()
        outputs = await asyncio.gather(
            *(asyncio.to_thread(shard.communicate, timeout=120) for shard in shards)
        )
    finally:
        for shard in shards:
            shard.kill() if shard.poll() is None else None
    for shard, (_, err) in zip(shards, outputs, strict=True):
        assert shard.returncode == 0, err

    # Every command was offered to both; exactly the owner shard of its guild answered it.
    handled_by = {}
    for shard_id, (out, err) in enumerate(outputs):
        lines = [json.loads(line) for line in out.splitlines()]
        assert len(lines) == len(script["commands"])
        for number, line in enumerate(lines):
            if line["handled"]:
                assert number not in handled_by, f"step {number} answered twice"
                handled_by[number] = shard_id
                assert "Something went wrong" not in line["text"], line["text"]
                if line["command"] == "lg:board:sheet":
                    left = MAX_VIT - sum(DAMAGE)
                    assert "Hero" in line["text"] and f"VIT {left}/" in line["text"]
        # The shard's command log: one JSON line per step it answered, in order.
        logged = [json.loads(x) for x in err.splitlines() if '"lastgasp.commands"' in x]
        expected = [CLICKS.get(line["command"], "ok") for line in lines if line["handled"]]
        assert [x["outcome"] for x in logged] == expected
        assert [x["command"] for x in logged if x["outcome"] == "expired"] == ["board:gone"] * (
            GUILDS // 2
        )
        assert {x["guild"] for x in logged} == {
            g["id"] for g in script["guilds"] if shard_of(g["id"], 2) == shard_id
        }
    assert handled_by == {
        number: shard_of(step["guild"], 2) for number, step in enumerate(script["commands"])
    }

    # Nothing lost, nothing twice: each guild's one character took each hit once.
    db = await Database.connect(fresh_postgres)
    try:
        for guild in script["guilds"]:
            async with db.transaction(guild["id"], read_only=True) as uow:
                [row] = await uow.characters()
                events = await uow.history(row.id, 100)
            assert (row.sheet.name, row.sheet.vit) == ("Hero", MAX_VIT - sum(DAMAGE))
            assert [(e.command, e.inputs.get("amount")) for e in reversed(events)] == [
                ("character create", None),
                *(("damage", amount) for amount in DAMAGE),
            ]
            assert {e.user_id for e in events} == {guild["gm"]}
        async with db.engine.connect() as conn:
            totals = await conn.execute(
                text("SELECT (SELECT count(*) FROM characters), (SELECT count(*) FROM events)")
            )
            assert tuple(totals.one()) == (GUILDS, GUILDS * (1 + len(DAMAGE)))
    finally:
        await db.close()
