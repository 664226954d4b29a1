"""Failures at the command line: one line saying what is wrong and what to do (a JSON line with
LOG_FORMAT=json), never a traceback; exit 2 for the settings or the command line, 1 for what
failed at run time. Through the real CLI: `bot.cli.main` in this process when the failure comes
before any event loop, `python -m bot` in its own process otherwise."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.cli import main
from bot.config import ENV_NAMES, FIXES, Settings
from bot.offline import APPLICATION_ID, snowflake
from bot.render.pictures import emoji_files
from tests.ops.standin import (
    ROOT,
    SETTINGS,
    DiscordStandIn,
    bot_process,
    running_standin,
    sqlite_url,
)
from tests.silent_network import closed_port

ONE_SETTING_LINE = re.compile(r"error: [A-Z_]+: [^\n|]+; [^\n|]+")


@pytest.fixture
def clean_env(monkeypatch, tmp_path) -> Path:
    """No setting from the test's own environment, no .env file: the working directory is
    tmp_path."""
    monkeypatch.chdir(tmp_path)
    for name in SETTINGS:
        monkeypatch.delenv(name, raising=False)
    return tmp_path


def one_line(err: str) -> str:
    assert "Traceback" not in err
    lines = err.splitlines()
    assert len(lines) == 1, err
    return lines[0]


# --- the settings: exit 2, before anything starts ------------------------------------------------


@pytest.mark.parametrize(
    ("env", "line"),
    [
        (
            {"DATABASE_URL": "mysql://x"},
            "error: DATABASE_URL: mysql:// is not a database Last Gasp can use; "
            "set sqlite+aiosqlite:///path/to/lastgasp.db or "
            "postgresql+asyncpg://user:password@host/db",
        ),
        (
            {"LOG_LEVEL": "verbose"},
            "error: LOG_LEVEL: 'verbose' is not a log level; "
            "set DEBUG, INFO, WARNING, ERROR or CRITICAL",
        ),
        (
            {"HEALTH_PORT": "http"},
            "error: HEALTH_PORT: 'http' is not a whole number; "
            "set a free port number (0 picks any), or unset it",
        ),
        ({"HEALTH_PORT": "70000"}, "error: HEALTH_PORT: 70000 is more than 65535; "),
        ({"SHARD_COUNT": "0"}, "error: SHARD_COUNT: 0 is less than 1; "),
        ({"SHARD_IDS": "0"}, "error: SHARD_IDS: needs SHARD_COUNT (the total number of shards); "),
        (
            {"LOG_FORMAT": "xml"},
            "error: LOG_FORMAT: 'xml' is not 'text' or 'json'; set text or json",
        ),
        ({"DEV_GUILD_ID": "my server"}, "error: DEV_GUILD_ID: 'my server' is not a whole number; "),
        ({"LASTGASP_SEED": "x"}, "error: LASTGASP_SEED: 'x' is not a whole number; "),
        ({"DATABASE_URL": "::"}, "error: DATABASE_URL: it is not a database URL; "),
        # The right database without its async driver says what to write (issue 21, item 13).
        (
            {"DATABASE_URL": "postgresql://lastgasp:secret@db.example/lastgasp"},
            "error: DATABASE_URL: postgresql:// lacks the driver Last Gasp connects through "
            "(asyncpg); write postgresql+asyncpg://… instead, the rest of the URL as it is",
        ),
        (
            {"DATABASE_URL": "postgres://lastgasp@db.example/lastgasp"},
            "error: DATABASE_URL: postgres:// lacks the driver Last Gasp connects through "
            "(asyncpg); write postgresql+asyncpg://… instead",
        ),
        (
            {"DATABASE_URL": "sqlite:///lastgasp.db"},
            "error: DATABASE_URL: sqlite:// lacks the driver Last Gasp connects through "
            "(aiosqlite); write sqlite+aiosqlite://… instead",
        ),
    ],
)
@pytest.mark.parametrize("command", ["run", "migrate", "health"])
def test_a_wrong_setting_is_one_line_naming_it_and_the_fix(
    clean_env, monkeypatch, capsys, env, line, command
):
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert main([command]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert one_line(err).startswith(line)
    assert ONE_SETTING_LINE.fullmatch(one_line(err))


def test_every_setting_has_a_fix_to_suggest():
    names = {ENV_NAMES.get(name, name.upper()) for name in Settings.model_fields}
    assert names - {"DISCORD_TOKEN"} == set(FIXES)  # a token is never malformed, only refused


def test_several_wrong_settings_still_make_one_line(clean_env, monkeypatch, capsys):
    monkeypatch.setenv("LOG_LEVEL", "loud")
    monkeypatch.setenv("HEALTH_PORT", "-1")
    assert main(["migrate"]) == 2
    line = one_line(capsys.readouterr().err)
    assert line.startswith("error: LOG_LEVEL: 'loud' is not a log level; ")
    assert " | HEALTH_PORT: -1 is less than 0; " in line


def test_a_wrong_setting_is_a_json_line_with_log_format_json(clean_env, monkeypatch, capsys):
    monkeypatch.setenv("LOG_FORMAT", "json")
    monkeypatch.setenv("LOG_LEVEL", "verbose")
    assert main(["run"]) == 2
    entry = json.loads(one_line(capsys.readouterr().err))
    assert (entry["level"], entry["logger"]) == ("ERROR", "lastgasp.cli")
    assert entry["message"].startswith("LOG_LEVEL: 'verbose' is not a log level; set DEBUG")


def test_a_database_that_does_not_answer_is_one_line_at_run_time(clean_env, monkeypatch, capsys):
    monkeypatch.setenv("DATABASE_URL", "postgresql+asyncpg://postgres@127.0.0.1:1/none")
    assert main(["migrate"]) == 1
    line = one_line(capsys.readouterr().err)
    assert line.startswith("error: cannot reach the database (")
    assert line.endswith(
        "; check DATABASE_URL and that the database server is running, then try again"
    )


@pytest.mark.parametrize("command", [["migrate"], ["console"], ["run"], ["sync"]])
def test_an_sqlite_file_in_a_missing_folder_is_one_line_naming_it(
    clean_env, monkeypatch, capsys, command
):
    database = clean_env / "no" / "such" / "folder" / "lastgasp.db"
    monkeypatch.setenv("DATABASE_URL", sqlite_url(database))
    if command == ["sync"]:
        monkeypatch.setenv("DISCORD_TOKEN", "t0ken")  # run without one is the console
    assert main(command) == 2
    line = one_line(capsys.readouterr().err)
    assert line == (
        f"error: DATABASE_URL: the folder of the SQLite database {database} does not exist; "
        f"create {database.parent}, or set DATABASE_URL to a file in a folder that exists"
    )
    assert not (clean_env / "no").exists()


# --- in a process of its own ---------------------------------------------------------------------


def python_m_bot(cwd: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if k not in SETTINGS}
    return subprocess.run(
        [sys.executable, "-m", "bot", *args],
        cwd=cwd,
        env={**base, "PYTHONPATH": str(ROOT), **env},
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.slow
def test_migrate_says_one_thing_at_info_and_alembic_keeps_quiet(tmp_path):
    database = tmp_path / "lastgasp.db"
    done = python_m_bot(tmp_path, "migrate", DATABASE_URL=sqlite_url(database), LOG_LEVEL="INFO")
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""  # no "Context impl SQLiteImpl.", no "Running upgrade"
    assert done.stdout == f"The database at {sqlite_url(database)} is up to date.\n"


@pytest.fixture
async def standin() -> AsyncIterator[DiscordStandIn]:
    async with running_standin() as running:
        yield running


async def run_against(url: str, cwd: Path, *args: str, **env: str) -> tuple[int, str, str]:
    async with bot_process(url, cwd, *args, **env) as bot:
        code = await bot.wait(30)
    return code, bot.stdout, bot.stderr


@pytest.mark.slow
@pytest.mark.parametrize("command", ["run", "sync"])
async def test_discord_unreachable_is_one_line(tmp_path, command):
    unreachable = f"http://127.0.0.1:{closed_port()}"
    settings = {"DISCORD_TOKEN": "t0ken", "DATABASE_URL": sqlite_url(tmp_path / "b.db")}
    code, out, err = await run_against(unreachable, tmp_path, command, **settings, LOG_LEVEL="INFO")
    assert code == 1
    line = one_line(err)
    assert line.startswith("error: cannot reach Discord (Cannot connect to host 127.0.0.1:")
    assert line.endswith(
        "; check this machine's network, DNS and firewall (or proxy), then try again"
    )
    assert out == ""


@pytest.mark.slow
async def test_a_gateway_refusing_the_first_connection_is_one_line(standin, tmp_path):
    """Logged in, but the gateway refuses: discord.py's own retry loop then dies of an
    AttributeError (Rapptz/discord.py#10520); the line says what it was handling."""
    standin.refuse_gateway = True
    settings = {"DISCORD_TOKEN": "t0ken", "DATABASE_URL": sqlite_url(tmp_path / "b.db")}
    code, _, err = await run_against(standin.url, tmp_path, "run", **settings, LOG_LEVEL="ERROR")
    assert code == 1 and standin.refused == 1
    assert "Traceback" not in err
    # discord.py's own line about the retry it then failed to make, and the one that matters.
    *_, line = err.splitlines()
    assert line.startswith("error: cannot reach Discord (503, message='Invalid response status'")


@pytest.mark.slow
async def test_discord_unreachable_is_a_json_line_with_log_format_json(tmp_path):
    unreachable = f"http://127.0.0.1:{closed_port()}"
    settings = {"DISCORD_TOKEN": "t0ken", "DATABASE_URL": sqlite_url(tmp_path / "b.db")}
    code, _, err = await run_against(unreachable, tmp_path, "run", **settings, LOG_FORMAT="json")
    assert code == 1
    entry = json.loads(one_line(err))
    assert entry["level"] == "ERROR" and entry["message"].startswith("cannot reach Discord (")


@pytest.mark.slow
async def test_sync_to_a_server_the_bot_is_not_in_is_one_line(standin, tmp_path):
    outsider = 81384788765712384
    standin.forbidden_guilds.add(outsider)
    standin.emoji = {name: snowflake() for name, _ in emoji_files()}  # synced before
    settings = {"DISCORD_TOKEN": "t0ken", "DATABASE_URL": sqlite_url(tmp_path / "b.db")}
    code, out, err = await run_against(
        standin.url, tmp_path, "sync", "--guild", str(outsider), **settings, LOG_LEVEL="INFO"
    )
    assert code == 2
    assert one_line(err) == (
        f"error: Discord refused to register the commands to server {outsider}: the bot is not "
        "in it (Missing Access); invite the bot there with the applications.commands scope, "
        "or check the server id"
    )
    assert ("PUT", f"/applications/{APPLICATION_ID}/guilds/{outsider}/commands") in standin.requests
    assert out == ""


@pytest.mark.slow
async def test_sync_registers_through_the_standin(standin, tmp_path):
    """The same path succeeding: the stand-in answers a real sync as Discord does, the dice
    emoji are uploaded once (a second sync keeps them), and a bot then started finds them."""
    settings = {"DISCORD_TOKEN": "t0ken", "DATABASE_URL": sqlite_url(tmp_path / "b.db")}
    code, out, err = await run_against(
        standin.url, tmp_path, "sync", "--guild", str(standin.guild.id), **settings
    )
    assert code == 0, err
    names = [name for name, _ in emoji_files()]
    assert sorted(standin.emoji) == sorted(names)
    registered, emoji_line = out.splitlines()
    server = standin.guild.id
    assert re.fullmatch(rf"Registered \d+ commands to server {server} \(instant\)\.", registered)
    assert emoji_line == f"Registered the dice emoji: {', '.join(names)}."

    code, out, err = await run_against(standin.url, tmp_path, "sync", **settings)
    assert code == 0, err
    assert out.splitlines()[1:] == ["The dice emoji were registered already."]
    assert out.splitlines()[0].endswith("commands globally (may take up to an hour).")
    posts = [r for r in standin.requests if r[0] == "POST" and r[1].endswith("/emojis")]
    assert len(posts) == len(names)  # none uploaded twice


@pytest.mark.slow
async def test_the_first_sync_does_not_tell_to_run_sync(standin, tmp_path):
    outsider = 81384788765712384
    standin.forbidden_guilds.add(outsider)  # no emoji registered yet: the first sync
    settings = {"DISCORD_TOKEN": "t0ken", "DATABASE_URL": sqlite_url(tmp_path / "b.db")}
    code, _, err = await run_against(
        standin.url, tmp_path, "sync", "--guild", str(outsider), **settings, LOG_LEVEL="INFO"
    )
    assert code == 2
    assert "python -m bot sync" not in err
    assert one_line(err).startswith("error: Discord refused to register the commands")


def test_a_postgresql_url_without_its_driver_is_not_repeated(clean_env, monkeypatch, capsys):
    """The fix is said without the URL itself: it may hold a password."""
    monkeypatch.setenv("DATABASE_URL", "postgresql://lastgasp:s3cret@db.example/lastgasp")
    assert main(["migrate"]) == 2
    line = one_line(capsys.readouterr().err)
    assert "postgresql+asyncpg://…" in line and "s3cret" not in line and "db.example" not in line
