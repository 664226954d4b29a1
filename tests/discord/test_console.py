"""The offline console (`python -m bot console`, and `run` without a token) as a person uses it.

Three ways in: a real process on a pseudo-terminal where the terminal matters (line editing,
history, Tab, Ctrl-C, Ctrl-D), a process with piped standard input (a script gives a
transcript), and `Console.handle` / `run_console` in this process for everything else. The
console drives the real command tree through `bot.offline.OfflineDriver`, as the tests do.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import io
import json
import os
import pty
import random
import re
import select
import signal
import struct
import subprocess
import sys
import termios
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from bot.app import create_bot
from bot.console import HISTORY_LENGTH, Console, run_console
from bot.offline import Message, OfflineDriver, Result

ROOT = Path(__file__).resolve().parents[2]
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[()][0-9A-B]|\x1b=|\x1b>|\x07|\r")

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


def environment(tmp_path: Path, **env: str) -> dict[str, str]:
    return {
        **{
            k: v
            for k, v in os.environ.items()
            if k not in ("DISCORD_TOKEN", "LASTGASP_SEED", "NO_COLOR")
        },
        "DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'console.db'}",
        "PYTHONPATH": str(ROOT),
        "XDG_DATA_HOME": str(tmp_path / "data"),
        **env,
    }


def bot(tmp_path: Path, *args: str, stdin: str = "", **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "bot", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=tmp_path,  # no stray .env from the repo
        env=environment(tmp_path, **env),
        timeout=120,
    )


# --- a scripted session: the transcript ----------------------------------------------------------


@pytest.fixture(scope="module")
def transcript(tmp_path_factory) -> str:
    done = bot(tmp_path_factory.mktemp("console"), "console", "--seed", "7", stdin=SESSION)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_transcript_echoes_each_command(transcript):
    assert transcript.startswith("> # a scripted session: comments are skipped\n> :as player")
    assert "> :as player Alice\nspeaking as Alice (player)" in transcript


def test_commands_run_as_the_speaker_with_the_headline_first(transcript):
    damage = transcript.split("> /damage amount:11\n", 1)[1]
    # the embed as Discord shows it: its title, then the headline, then the change
    assert damage.startswith(
        "[public reply]\n"
        "  # 🟠 Roryn · Damage  (critical)\n"
        "  Roryn collapses, Critical at VIT -1: 1 recovery die at its next turn.\n"
        "  VIT 10 → -1 · Up → Critical\n"
    )
    assert "**" not in transcript  # markdown is rendered as text, not shown


def test_refusals_are_marked_ephemeral(transcript):
    bob = transcript.split("> /damage character:Roryn amount:1\n", 1)[1]
    assert bob.startswith("[ephemeral reply]\n  That character belongs to another player")
    outsider = transcript.split("> /heal character:Roryn amount:1\n", 1)[1]
    assert outsider.startswith("[ephemeral reply]\n  No character named Roryn in this server.")


def test_the_gm_rolls_with_every_die_shown(transcript):
    recover = transcript.split("> /recover character:Roryn\n", 1)[1]
    # seed 7 rolls a Miss: R-4 costs the Critical character 1 VIT
    assert recover.startswith("[public reply]\n  # 🔴 Roryn · Recovery roll  (dying)\n")
    assert "  VIT -1 → -2 · Critical → Dying\n" in recover
    assert "Critical recovery roll: ⬜  1 Miss" in recover


def test_autocomplete_and_input_errors(transcript):
    assert "> :complete /heal character:ro\nchoices: 🔴 Roryn · Dying, VIT -2/10" in transcript
    assert (
        "> /heal character:Roryn amount:abc\nerror: amount takes a whole number, not 'abc'\n"
        in transcript
    )
    assert "> /nonsense\nerror: no slash command /nonsense (:commands lists them)\n" in transcript


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


def test_a_missing_file_is_one_line_and_the_session_goes_on(tmp_path):
    """It ended the session with a FileNotFoundError traceback."""
    script = ":as gm\n/character import file:missing.json\n:who\n"
    done = bot(tmp_path, "console", stdin=script)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr + done.stdout
    after = done.stdout.split("> /character import file:missing.json\n", 1)[1]
    assert after.startswith(
        "error: no file missing.json here or in ./lastgasp-exports/\n> :who\nspeaking as GM"
    )


def test_ctrl_c_ends_a_piped_session_without_a_traceback(tmp_path):
    process = subprocess.Popen(
        [sys.executable, "-m", "bot", "console"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
        env=environment(tmp_path),
    )
    try:
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write(":who\n")
        process.stdin.flush()
        ready, _, _ = select.select([process.stdout], [], [], 60)
        assert ready, "the console did not answer"
        assert process.stdout.readline() == "> :who\n"
        assert process.stdout.readline() == "speaking as GM (GM)\n"
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 130
    assert "Traceback" not in err and "CancelledError" not in err


# --- a terminal: readline editing, history, Tab, Ctrl-C, Ctrl-D ----------------------------------


class Terminal:
    """A process on a pseudo-terminal of its own (its controlling terminal, so that Ctrl-C
    typed there is SIGINT), read and typed into as a person would."""

    def __init__(self, argv: list[str], env: dict[str, str], cwd: Path) -> None:
        pid, fd = pty.fork()
        if pid == 0:  # the child: becomes the program
            try:
                os.chdir(cwd)
                os.execve(argv[0], argv, env)
            finally:
                os._exit(127)
        self.pid, self.fd = pid, fd
        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
        self.raw = b""
        self.seen = 0  # how much of the screen `expect` has consumed
        self.status: int | None = None

    @property
    def screen(self) -> str:
        return ANSI.sub("", self.raw.decode(errors="replace"))

    def _read(self, seconds: float) -> None:
        ready, _, _ = select.select([self.fd], [], [], seconds)
        if ready:
            try:
                data = os.read(self.fd, 65536)
            except OSError:  # the process is gone
                data = b""
            self.raw += data

    def expect(self, pattern: str, timeout: float = 60) -> re.Match[str]:
        """Wait for `pattern` in what appeared since the last match."""
        deadline = time.monotonic() + timeout
        while True:
            found = re.compile(pattern).search(self.screen, self.seen)
            if found:
                self.seen = found.end()
                return found
            if time.monotonic() > deadline:
                raise AssertionError(f"{pattern!r} not seen in:\n{self.screen[-3000:]}")
            self._read(0.05)

    def type(self, text: str | bytes, pause: float = 0.15) -> None:
        os.write(self.fd, text.encode() if isinstance(text, str) else text)
        time.sleep(pause)  # as a person types: readline sees each key sequence whole

    def wait(self, timeout: float = 60) -> int:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self._read(0.05)
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.status = os.waitstatus_to_exitcode(status)
                with contextlib.suppress(OSError):
                    while True:
                        data = os.read(self.fd, 65536)
                        if not data:
                            break
                        self.raw += data
                return self.status
        raise AssertionError(f"the console did not leave:\n{self.screen[-3000:]}")

    def close(self) -> None:
        if self.status is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)
            with contextlib.suppress(ChildProcessError):
                os.waitpid(self.pid, 0)
        os.close(self.fd)


LEFT, UP = "\x1b[D", "\x1b[A"
CTRL_C, CTRL_D = "\x03", "\x04"


@pytest.fixture
def terminal(tmp_path: Path):
    opened: list[Terminal] = []

    def open_(*argv: str) -> Terminal:
        env = environment(tmp_path, TERM="xterm", INPUTRC=os.devnull)
        term = Terminal([sys.executable, *argv], env, tmp_path)
        opened.append(term)
        return term

    yield open_
    for term in opened:
        term.close()


def test_arrow_keys_edit_the_line_and_the_history_outlives_the_session(tmp_path, terminal):
    """Arrow keys printed `^[[D`; there was no history."""
    history = tmp_path / "data" / "last-gasp" / "console_history"
    history.parent.mkdir(parents=True)
    history.write_text("".join(f":as player P{n}\n" for n in range(1500)) + ":as player Zed\n")
    term = terminal("-m", "bot", "console")
    term.expect(r"GM> ")
    term.type(f":wo{LEFT}h\r")  # ":wo", back one, "h": ":who"
    term.expect(r"speaking as GM \(GM\)\nGM> ")
    term.type(UP + UP + "\r")  # the line before :who: the last of the previous session
    term.expect(r"speaking as Zed \(player\)\nZed> ")
    term.type(CTRL_D)
    assert term.wait() == 0
    assert "^[[" not in term.screen
    lines = history.read_text().splitlines()
    assert lines[-2:] == [":who", ":as player Zed"]
    assert len(lines) <= HISTORY_LENGTH  # bounded


def test_ctrl_c_drops_the_line_being_typed_and_ctrl_d_leaves(terminal):
    term = terminal("-m", "bot", "console")
    term.expect(r"GM> ")
    term.type("/character create name:Nobody")
    term.type(CTRL_C)
    term.expect(r"GM> ")
    term.type("/character list\r")
    term.expect(r"No characters|0 characters")
    term.type(CTRL_D)
    assert term.wait() == 0
    assert "Nobody" not in term.screen.split("/character create name:Nobody", 1)[1]
    assert "Traceback" not in term.screen


def test_tab_completes_commands_and_options(terminal):
    term = terminal("-m", "bot", "console")
    term.expect(r"GM> ")
    term.type("/charac\t")  # -> "/character "
    term.type("cre\t")  # -> "create "
    term.type("na\t")  # -> "name:"
    term.type("Tabby\r")
    term.expect(r"Tabby · Created")
    term.type("/damage amount:1 charac\t")  # -> "character:"
    term.type("ta\t")  # a character's name, as autocomplete offers it (issue 21, item 12)
    term.type("\r")
    term.expect(r"Tabby · Damage")
    term.type(CTRL_D)
    assert term.wait() == 0


def test_ctrl_c_cancels_a_running_command_and_the_session_goes_on(tmp_path, terminal):
    """Ctrl-C was ignored once, then the next command died with a CancelledError traceback and
    the process hung."""
    hanging = tmp_path / "hanging_console.py"
    hanging.write_text(
        "import asyncio, sys\n"
        "from bot.db.database import Database\n"
        "async def act(self, *args, **kwargs):\n"
        "    print('(the command hangs)', flush=True)\n"
        "    await asyncio.sleep(3600)\n"
        "Database.act = act\n"
        "from bot.cli import main\n"
        "sys.exit(main(['console']))\n"
    )
    term = terminal(str(hanging))
    term.expect(r"GM> ")
    term.type("/damage amount:1\r")
    term.expect(r"\(the command hangs\)")
    term.type(CTRL_C)
    term.expect(r"cancelled: /damage was stopped by Ctrl-C")
    term.expect(r"GM> ")
    term.type(":who\r")
    term.expect(r"speaking as GM \(GM\)")
    term.type("/character list\r")  # the bot still answers
    term.expect(r"Characters")
    term.type(CTRL_D)
    assert term.wait(timeout=30) == 0
    assert "Traceback" not in term.screen and "CancelledError" not in term.screen


# --- in this process: the console's API, driven line by line --------------------------------------


class Session:
    """A console on a fresh database, its output kept: `await session("line", …)` returns what
    those lines printed."""

    def __init__(self, folder: Path, *, seed: int = 1, clock: Any = None) -> None:
        self.url = f"sqlite+aiosqlite:///{folder / 'console.db'}"
        self.seed = seed
        self.clock = clock
        self.out = io.StringIO()
        self.emoji: dict[str, int] = {}

    async def start(self) -> Session:
        options = {"clock": self.clock} if self.clock else {}
        bot_ = create_bot(self.url, rng=random.Random(self.seed), **options)
        self.driver = OfflineDriver(bot_)
        self.driver.emoji.update(self.emoji)
        await self.driver.start()
        self.console = Console(self.driver, self.out)
        return self

    async def __call__(self, *lines: str) -> str:
        start = len(self.out.getvalue())
        for line in lines:
            assert await self.console.handle(line)
        return self.out.getvalue()[start:]

    async def close(self) -> None:
        await asyncio.wait_for(self.driver.close(), 10)


@pytest.fixture
async def session(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.chdir(tmp_path)
    started = await Session(tmp_path).start()
    try:
        yield started
    finally:
        await started.close()


async def test_the_api_an_outside_tool_relies_on(tmp_path, monkeypatch):
    """A subclass overriding print and show, reading speaker, guild, names and last, calling
    handle per line (the discord-look tool)."""
    monkeypatch.chdir(tmp_path)

    class Recorder(Console):
        def __init__(self, driver: Any) -> None:
            self.printed: list[str] = []
            self.results: list[Any] = []
            super().__init__(driver, io.StringIO())

        def print(self, text: str = "") -> None:
            self.printed.append(text)

        def show(self, result: Any) -> None:
            self.results.append(result)

    driver = OfflineDriver(create_bot(f"sqlite+aiosqlite:///{tmp_path / 'x.db'}"))
    await driver.start()
    try:
        console = Recorder(driver)
        assert await console.handle(":as player Alice")
        assert console.speaker.name == "Alice" and console.printed == ["speaking as Alice (player)"]
        assert await console.handle("/character create name:Roryn")
        assert await console.handle("/damage character:Roryn amount:10")
        assert console.last is console.results[-1]
        assert await console.handle(":click odds")
        assert console.results[-1].reply.card.title.endswith("Roryn · Odds")
        assert await console.handle("# a comment")
        assert console.names[console.speaker.user_id] == "Alice"
        assert console.guild.roles == {"GM": console.guild.roles["GM"]}
        assert await console.handle(":complete /heal character:Ro")
        assert console.results[-1].choices
        assert not await console.handle(":quit")
        assert not (tmp_path / "lastgasp-exports").exists()  # show() overridden: nothing saved
    finally:
        await driver.close()


async def test_run_console_reads_a_script_from_any_stream(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    out = io.StringIO()
    url = f"sqlite+aiosqlite:///{tmp_path / 'c.db'}"
    status = await run_console(url, seed=3, stdin=io.StringIO(":as gm\n:who\n"), out=out)
    assert status == 0
    assert out.getvalue() == "> :as gm\nspeaking as GM (GM)\n> :who\nspeaking as GM (GM)\n"


# --- every per-line error is one line ------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "said"),
    [
        ("/damage", "error: /damage needs amount: Damage taken, 1 to 10000"),
        (
            "/spend character:Roryn",
            "error: /spend needs amount: Stamina to spend, 1 to 20; "
            "reason: What it is spent on, e.g. Channel Casting",
        ),
        (
            "/damage amount:3 foo:1",
            "error: /damage has no option 'foo'; it takes amount, character",
        ),
        (
            "/dmg amount:1",
            "error: no slash command /dmg (did you mean /damage? :commands lists them)",
        ),
        ("/damage 3", "error: /damage takes its options as name:value (e.g. amount:3), not '3'"),
        (
            "/character",
            "error: /character needs a subcommand: create, delete, edit, export, give, import, "
            "list, revive, select, set, show",
        ),
        ("/character remove character:Roryn", "error: /character has no subcommand remove"),
        ("/emotion emotion:joy", "error: emotion is one of anger, fear, sadness, guilt, not 'joy'"),
        ("/heal amount:lots", "error: amount takes a whole number, not 'lots'"),
        ("/character show public:maybe", "error: public takes yes or no, not 'maybe'"),
        ('/spend amount:1 reason:"open', "error: no closing quotation: close the quote"),
        ("/character import file:missing.json", "error: no file missing.json here or in "),
        ("/settings set gm_role:Wizards", "error: no role Wizards in this server"),
        (":frobnicate", "error: unknown console command :frobnicate"),
        (":click nothing-like-it", "error: no button shown matches 'nothing-like-it'"),
    ],
)
async def test_a_line_the_console_cannot_run_is_one_line(session, line, said):
    """A missing option said "This command is out of date…"; a missing file ended the session."""
    await session(":as gm", "/character create name:Roryn")
    sent = len(session.driver.requests)
    printed = await session(line)
    assert printed.startswith(said)
    assert printed.count("\n") == 1  # one line
    assert len(session.driver.requests) == sent  # nothing was sent to the bot
    assert "speaking as GM" in await session(":who")  # and the session goes on


async def test_an_unexpected_failure_is_one_line_too(session, monkeypatch):
    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("the driver broke\nover two lines")

    monkeypatch.setattr(session.driver, "send", broken)
    printed = await session("/character list")
    assert printed == "error: RuntimeError: the driver broke over two lines\n"
    monkeypatch.undo()
    assert "Characters" in await session("/character list")


async def test_an_option_given_with_a_space_after_the_colon(session):
    """Tab completion leaves `amount: `; the value that follows is the option's."""
    printed = await session(":as player Alice", '/character create name: "Sir Roryn"')
    assert "Sir Roryn · Created" in printed


async def test_ctrl_c_cancels_the_command_running_and_its_work(session, monkeypatch):
    from bot.db.database import Database

    started = asyncio.Event()

    async def hangs(self: Any, *args: Any, **kwargs: Any) -> Any:
        started.set()
        await asyncio.sleep(3600)

    await session(":as player Alice", "/character create name:Roryn")
    monkeypatch.setattr(Database, "act", hangs)
    line = asyncio.ensure_future(session("/damage character:Roryn amount:3"))
    await asyncio.wait_for(started.wait(), 10)
    assert session.console.interrupt()
    printed = await asyncio.wait_for(line, 10)
    assert printed == (
        "cancelled: /damage was stopped by Ctrl-C; if it had already changed something, "
        "/history shows it.\n"
    )
    await asyncio.wait_for(session.driver.idle(), 5)  # none of the bot's work is left running
    assert not session.console.interrupt()  # nothing to cancel now
    monkeypatch.undo()
    assert "VIT 10 → 7" in await session("/damage character:Roryn amount:3")


# --- exports and pictures ----------------------------------------------------------------------


async def test_exports_and_pictures_are_saved_in_a_folder_it_names(tmp_path, monkeypatch):
    """/character export wrote no file."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "table").mkdir()
    url = f"sqlite+aiosqlite:///{tmp_path / 'table' / 'lastgasp.db'}"
    script = "\n".join(
        [
            ":as player Alice",
            "/character create name:Roryn res:0",
            "/character export character:Roryn",
            "/character export character:Roryn",
            "/damage character:Roryn amount:11",
            "/odds character:Roryn",
            ":as gm",
            "/recover character:Roryn faces:M",
            "/character delete character:Roryn",
            ":click confirm",
            "/character import file:Roryn.json",  # found in the exports folder
        ]
    )
    out = io.StringIO()
    assert await run_console(url, seed=1, stdin=io.StringIO(script), out=out) == 0
    text = out.getvalue()
    folder = tmp_path / "table" / "lastgasp-exports"
    assert text.count("exports and pictures are saved in ") == 1
    assert "exports and pictures are saved in ./table/lastgasp-exports/\n" in text
    assert "[file Roryn.json, " in text
    assert ": saved as table/lastgasp-exports/Roryn.json]" in text
    assert ": saved as table/lastgasp-exports/Roryn-2.json]" in text  # never over a file
    exported = json.loads((folder / "Roryn.json").read_text())
    assert exported["sheet"]["name"] == "Roryn"
    for picture in ("odds.png", "last-gasp.png"):
        assert f"[picture {picture}, " in text
        assert f": saved as table/lastgasp-exports/{picture}]" in text
        assert (folder / picture).read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
    imported = text.split("> /character import file:Roryn.json\n", 1)[1]
    assert "Roryn" in imported and "error" not in imported


# --- buttons -------------------------------------------------------------------------------------


async def test_click_finds_a_button_of_an_earlier_message_by_its_label(session):
    """:click saw only the last reply's buttons."""
    await session(":as gm", "/character create name:Roryn")
    await session("/damage character:Roryn amount:10")  # a fall: the Recovery roll button
    await session("/character list")  # a reply without buttons
    printed = await session(":click recovery ROLL")  # any case, part of the label
    assert "Roryn · Recovery roll" in printed


async def test_click_takes_the_most_recent_message_and_a_custom_id(session):
    await session(":as gm", "/character create name:Roryn", "/character create name:Sera")
    await session("/damage character:Roryn amount:11", "/damage character:Sera amount:11")
    assert "Sera · Odds" in await session(":click Odds")  # Sera's message is the newer
    odds = [cid for _, label, cid in session.console.clickable() if label == "Odds"]
    assert len(odds) == 2  # the most recent first: Sera's, then Roryn's
    assert "Roryn · Odds" in await session(f":click {odds[-1]}")  # a custom id, exactly


async def test_click_with_a_part_that_names_two_buttons_says_which(session):
    await session(":as gm", "/character create name:Roryn", "/character delete character:Roryn")
    printed = await session(":click lg:delete")
    assert printed.startswith("error: 'lg:delete' names several buttons: Delete (lg:delete:")
    assert printed.count("\n") == 1
    assert "Deleted Roryn" in await session(":click delete")  # the label, exactly


async def test_click_alone_lists_the_buttons(session):
    assert await session(":click") == "No button has been shown yet.\n"
    await session(":as gm", "/character create name:Roryn", "/damage character:Roryn amount:10")
    assert await session(":click") == (  # a list, not an error (issue 21, item 12)
        "Buttons shown, the most recent first (:click LABEL presses one):\n"
        "  Recovery roll (lg:recover:1:0:2)\n"
        "  Odds (lg:odds:1)\n"
    )


# --- text as Discord shows it ------------------------------------------------------------------


async def test_relative_timestamps_and_mentions_read_as_text(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    now = [datetime(2026, 3, 1, 12, 0, tzinfo=UTC)]
    session = await Session(tmp_path, clock=lambda: now[0]).start()
    try:
        await session(":as player Alice", "/character create name:Tam_the_Bold")
        now[0] += timedelta(minutes=2)
        history = await session("/history character:Tam_the_Bold")
        assert "by @Alice 2 minutes ago" in history
        assert "<t:" not in history and "<@" not in history
        assert "Tam_the_Bold · History" in history  # escapes undone: no `Tam\_the\_Bold`
        await session(":as gm", "/settings set gm_role:GM")
        assert "gm_role: @GM (P-1)" in await session("/settings show")
    finally:
        await session.close()
    # A new session does not know Alice until she speaks: her mention reads @user.
    again = await Session(tmp_path).start()
    try:
        listing = await again("/character list")
        assert "Tam_the_Bold · Up · VIT 10/10 · Stamina 8/8 · @user" in listing
        await again(":as player Alice")
        assert "· @Alice" in await again("/character list")
    finally:
        await again.close()


async def test_dice_emoji_read_as_their_text_faces(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    session = Session(tmp_path)
    session.emoji = {"lg_miss": 11, "lg_hit": 12, "lg_crit": 13, "lg_miss_rerolled": 14}
    await session.start()
    try:
        await session(":as gm", "/character create name:Roryn res:3")
        await session("/damage character:Roryn amount:10")  # VIT 0, RES 3: three dice
        printed = await session('/recover character:Roryn faces:"C H M"')
        assert session.console.last is not None
        sent = session.console.last.reply.card.markdown
        assert "<:lg_crit:13>" in sent  # the bot used the application's emoji
        assert "💥 ⚪ ⬜" in printed and "<:" not in printed
    finally:
        await session.close()


async def test_absolute_timestamps_roles_channels_and_unknown_emoji(session):
    stamp = 1_767_268_800  # 2026-01-01 12:00 UTC
    local = datetime.fromtimestamp(stamp, UTC).astimezone()
    text = (
        f"**Due** <t:{stamp}:f> · <t:{stamp}:d> · <t:{stamp}:t> · by <@1> for <@&"
        f"{session.console.guild.roles['GM']}> and <@&5> in <#{session.console.guild.channel_id}>"
        " <:party:77> \\*not bold\\* `code` ~~gone~~"
    )
    message = Message(id=1, kind="reply", content=text)
    session.console.show(Result(requests=[], messages=[message]))
    printed = session.out.getvalue().splitlines()
    assert printed == [
        "[public reply]",
        f"  Due {local.strftime('%d %B %Y %H:%M')} · {local.strftime('%Y-%m-%d')} · "
        f"{local.strftime('%H:%M')} · by @user for @GM and @role in #table :party: *not bold* "
        "`code` ~~gone~~",
    ]


# --- the status board ----------------------------------------------------------------------------


async def test_the_board_is_its_own_block_refreshed_when_it_changes(session):
    await session(":as gm", "/character create name:Roryn")
    started = await session("/board start")
    assert "The status board is posted" in started
    block = started.split("The status board is posted", 1)[1]
    assert "┌─ Status board " in block
    assert "│ 🟢 Roryn · Up · VIT 10/10 · Stamina 8/8" in block
    assert "└─" in block
    assert "Status board" not in await session("/settings show")  # unchanged: not shown again
    damaged = await session("/damage character:Roryn amount:3")
    reply, board = damaged.split("┌─ Status board", 1)
    assert "VIT 10 → 7" in reply  # the reply first, then the board
    assert "│ 🟢 Roryn · Up · VIT 7/10 · Stamina 8/8" in board
    sheet = await session(":click my sheet")  # a button of the board
    assert sheet.startswith("[ephemeral ")
    assert "Roryn" in sheet


async def test_the_session_ends_at_once_after_a_board_change(tmp_path, monkeypatch):
    """The end of the input right after a board's edit: the console leaves (it hung, the
    board worker having swallowed its cancellation)."""
    monkeypatch.chdir(tmp_path)
    script = (
        ":as gm\n/character create name:Roryn\n/board start\n/damage character:Roryn amount:1\n"
    )
    url = f"sqlite+aiosqlite:///{tmp_path / 'c.db'}"
    out = io.StringIO()
    session = run_console(url, stdin=io.StringIO(script), out=out)
    assert await asyncio.wait_for(session, 30) == 0
    assert "│ 🟢 Roryn · Up · VIT 9/10" in out.getvalue()


async def test_the_bot_closes_right_after_a_board_change(tmp_path):
    """A change to a board's guild in the same moment as the shutdown: the board worker still
    ends (it waits with asyncio.timeout; on Python 3.11 wait_for could swallow the
    cancellation when the event was already set, and bot.close() waited forever)."""
    driver = OfflineDriver(create_bot(f"sqlite+aiosqlite:///{tmp_path / 'b.db'}"))
    await driver.start()
    guild = driver.add_guild(name="Table")
    gm = driver.member(guild, "GM", manage_guild=True)
    await driver.invoke(gm, "character create", name="Roryn")
    await driver.invoke(gm, "board start")
    await asyncio.sleep(0.1)  # the worker waits for a change
    driver.bot.boards.changed(guild.id)  # a command's commit, as the shutdown begins
    closing = asyncio.ensure_future(driver.close())
    done, _ = await asyncio.wait({closing}, timeout=5)
    if not done:  # unstick it, so that the test ends
        driver.bot.boards._worker.cancel()
        await asyncio.wait({closing}, timeout=5)
    assert done, "bot.close() still waiting after 5 s"


# --- Tab completion ------------------------------------------------------------------------------


async def test_completions(session):
    complete = session.console.completions
    assert complete("/da") == ["/damage ", "/day "]  # a whole word ends with a space
    assert complete("/character cr") == ["create "]
    assert complete("/damage ") == ["amount:", "character:", "several:"]  # option names: colons
    assert complete("/damage amount:3 ") == ["character:", "several:"]
    assert complete("/emotion emotion:f") == ["emotion:fear "]
    assert complete("/character show public:") == ["public:yes ", "public:no "]
    assert complete(":c") == [":complete ", ":click ", ":commands "]
    assert complete(":as p") == ["player "]
    await session(":as player Alice")
    assert complete(":as player A") == ["Alice "]
    assert complete("/settings set gm_role:") == ["gm_role:@everyone ", "gm_role:GM "]
    assert complete(":complete /heal ch") == ["character:"]


# --- issue 21, item 12: frictions a newcomer found ----------------------------------------------


async def test_the_board_prints_after_the_command_that_changed_it_never_one_late(session):
    """The board worker edits by itself: when its pace let it start the edit as the command
    committed, the console read the board before that edit landed and showed it a command
    late. The console now settles the edit in flight first."""
    boards = session.driver.bot.boards
    boards.interval = 0.0  # the worker is always due, as between typed lines
    await session(":as gm", "/character create name:Roryn", "/board start")
    for vit in (9, 8, 7, 6, 5):
        printed = await session("/damage character:Roryn amount:1")
        reply, board = printed.split("┌─ Status board", 1)
        assert f"VIT {vit + 1} → {vit}" in reply
        assert f"│ 🟢 Roryn · Up · VIT {vit}/10" in board, printed


async def test_a_value_with_a_space_and_no_quotes_gets_the_quoting_hint(session):
    printed = await session(":as gm", "/character create name:Sir Kael res:2")
    assert printed.endswith('error: a value with spaces needs quotes: name:"Sir Kael"\n')
    printed = await session('/spend amount:1 reason:Channel Casting at dawn character:"Sir Kael"')
    assert printed == 'error: a value with spaces needs quotes: reason:"Channel Casting at dawn"\n'
    assert "Sir Kael · Created" in await session('/character create name:"Sir Kael"')
    printed = await session("/character import file:Sir Kael.json")  # a file name too
    assert printed == 'error: a value with spaces needs quotes: file:"Sir Kael.json"\n'
    assert (await session("/damage amount:2 3")).startswith("error: /damage has no option '3'")


async def test_an_option_written_with_equals_is_answered_with_a_colon(session):
    """Issue 21, item 13: `amount=2` suggested `amount:amount=2`."""
    await session(":as gm", "/character create name:Roryn")
    sent = len(session.driver.requests)
    assert await session("/damage amount=2") == (
        "error: write options as name:value: amount:2, not amount=2\n"
    )
    assert await session("/damage character:Roryn amount=2") == (
        "error: write options as name:value: amount:2, not amount=2\n"
    )
    assert len(session.driver.requests) == sent


async def test_tab_completes_the_character_names_autocomplete_offers(session):
    await session(":as gm", "/character create name:Roryn", '/character create name:"Sir Kael"')
    await session("/character create name:Sera", "/character delete character:Sera")
    await session(":click delete")
    complete = session.console.completions
    assert complete("/damage character:") == []  # nothing asked yet
    await session.console.refresh_completions()
    assert complete("/damage character:") == ["character:Roryn ", 'character:"Sir Kael" ']
    assert complete("/damage amount:1 character:r") == ["character:Roryn "]
    assert complete('/heal character:"si') == ['character:"Sir Kael" ']
    # /history offers the deleted characters too (its own autocomplete), as Discord does
    history = complete("/history character:")
    assert len(history) == 3 and history[:2] == complete("/damage character:")
    await session(":as player Alice")
    await session.console.refresh_completions()
    assert complete("/damage character:") == ["character:Roryn ", 'character:"Sir Kael" ']
