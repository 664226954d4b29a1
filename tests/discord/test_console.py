"""`python -m bot console|run|sync|migrate` as a person runs them, in a subprocess.

A scripted console session goes through standard input and is read back as a transcript.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

SESSION = """\
# a scripted session: comments are skipped
:as player Alice
/character create name:Roryn res:2
/character select character:Roryn
/damage amount:11
:as player Bob
/damage character:Roryn amount:1
/spend character:Roryn amount:1 reason:"Channel Casting"
:as gm
/recover character:Roryn
:complete /heal character:ro
/heal character:Roryn amount:abc
:as outsider
/heal character:Roryn amount:1
/nonsense
:quit
/damage amount:1
"""


def bot(tmp_path: Path, *args: str, stdin: str = "", **env: str) -> subprocess.CompletedProcess:
    environment = {
        **{k: v for k, v in os.environ.items() if k not in ("DISCORD_TOKEN", "LASTGASP_SEED")},
        "DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'console.db'}",
        "PYTHONPATH": str(ROOT),
        **env,
    }
    return subprocess.run(
        [sys.executable, "-m", "bot", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=tmp_path,  # no stray .env from the repo
        env=environment,
        timeout=120,
    )


@pytest.fixture(scope="module")
def transcript(tmp_path_factory) -> str:
    done = bot(tmp_path_factory.mktemp("console"), "console", "--seed", "7", stdin=SESSION)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_transcript_echoes_each_command(transcript):
    assert transcript.startswith("> # a scripted session: comments are skipped\n> :as player")
    assert "> :as player Alice\nspeaking as Alice (player)" in transcript


def test_commands_run_as_the_speaker(transcript):
    damage = transcript.split("> /damage amount:11\n", 1)[1]
    assert damage.startswith("[public reply]\n  # Roryn · Damage  (orange)\n")
    assert "  **VIT 10 → -1 · Up → Critical**" in damage


def test_refusals_are_marked_ephemeral(transcript):
    bob = transcript.split("> /damage character:Roryn amount:1\n", 1)[1]
    assert bob.startswith("[ephemeral reply]\n  That character belongs to another player")
    outsider = transcript.split("> /heal character:Roryn amount:1\n", 1)[1]
    assert outsider.startswith("[ephemeral reply]\n  No character named Roryn in this server.")


def test_the_gm_rolls_with_every_die_shown(transcript):
    recover = transcript.split("> /recover character:Roryn\n", 1)[1]
    # seed 7 rolls a Miss: R-4 costs the Critical character 1 VIT
    assert recover.startswith("[public reply]\n  # Roryn · Recovery roll  (red)\n")
    assert "  **VIT -1 → -2 · Critical → Dying**" in recover
    assert "  - Critical recovery roll:\n      ○ M\n      1 Miss\n" in recover


def test_autocomplete_and_input_errors(transcript):
    assert "> :complete /heal character:ro\nchoices: Roryn · Dying, VIT -2/10" in transcript
    assert "> /heal character:Roryn amount:abc\nerror: 'abc' is not a whole number" in transcript
    assert "> /nonsense\nerror: no slash command /nonsense" in transcript


def test_quit_ends_the_session(transcript):
    assert transcript.rstrip().endswith("> :quit")


def test_a_seed_replays_the_same_session(tmp_path, transcript):
    again = bot(tmp_path, "console", stdin=SESSION, LASTGASP_SEED="7")
    assert again.stdout == transcript


def test_run_without_a_token_opens_the_console(tmp_path):
    done = bot(tmp_path, "run", stdin=":as gm\n:who\n")
    assert done.returncode == 0
    notice = [line for line in done.stderr.splitlines() if "DISCORD_TOKEN" in line]
    assert notice == [
        "DISCORD_TOKEN is not set: set it in the environment or in a .env file; starting the "
        f"offline console on sqlite+aiosqlite:///{tmp_path / 'console.db'} instead."
    ]
    assert "speaking as GM (GM)" in done.stdout


def test_sync_without_a_token_says_what_to_set(tmp_path):
    done = bot(tmp_path, "sync", "--guild", "123")
    assert done.returncode == 2
    assert done.stderr.strip() == (
        "error: DISCORD_TOKEN is not set: set it in the environment or in a .env file "
        "to register the commands."
    )


def test_migrate_brings_the_database_to_head(tmp_path):
    done = bot(tmp_path, "migrate")
    assert done.returncode == 0, done.stderr
    assert "is up to date" in done.stdout
    assert (tmp_path / "console.db").exists()


def test_a_button_is_pressed_with_click(tmp_path):
    script = ":as gm\n/character create name:Big\n/character delete character:Big\n:click confirm\n"
    done = bot(tmp_path, "console", stdin=script)
    assert done.returncode == 0, done.stderr
    after = done.stdout.split("> :click confirm\n", 1)[1]
    assert after.startswith("[ephemeral update]\n  Deleted **Big**.")


def test_mentions_of_the_console_personas_read_as_their_names(tmp_path):
    script = ":as player Alice\n/character create name:Roryn\n:as gm\n/character list\n"
    done = bot(tmp_path, "console", stdin=script)
    assert done.returncode == 0, done.stderr
    listing = done.stdout.split("> /character list\n", 1)[1]
    assert "  **Roryn** · Up · VIT 10/10 · Stamina 8/8 · @Alice\n" in listing
