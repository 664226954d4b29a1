"""The console in a terminal: line editing, history, Tab completion, Ctrl-C and Ctrl-D.

On a terminal, lines are read with the standard library's `readline` (arrow keys, Emacs keys,
Up/Down through the history kept in `$XDG_DATA_HOME/last-gasp/console_history`, default
`~/.local/share/last-gasp/`, at most HISTORY_LENGTH lines). Ctrl-C drops the line being typed, or
cancels the command running (the session goes on); Ctrl-D on an empty line leaves (exit 0).
From a pipe or a file, lines are read as they come and echoed (`> line`), so that a script gives
a transcript; there Ctrl-C ends the session (exit 130).

While a line is typed, the event loop waits: the bot does nothing between commands that the
console needs (each command's work, and the status board's refresh, are done before the prompt
comes back). So Tab cannot ask the bot: before each prompt the console asks autocomplete once for
what it offers the speaker (the character names), and Tab offers that.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import signal
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any, TextIO

from bot.app import create_bot
from bot.console.files import folder_shown
from bot.console.session import Console
from bot.offline import OfflineDriver

HISTORY_LENGTH = 1000
INTERRUPTED = 130  # the exit status of a process ended by Ctrl-C


def history_path() -> Path:
    """`$XDG_DATA_HOME/last-gasp/console_history` (default `~/.local/share/...`)."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "last-gasp" / "console_history"


class Interrupts:
    """SIGINT (Ctrl-C) for the session's phases, instead of asyncio's "cancel the main task":
    while a line is read it raises KeyboardInterrupt there (the line is dropped); while a
    command runs, it cancels that command (`on_interrupt`); else it is noted and ignored."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.reading = False
        self.on_interrupt: Callable[[], object] | None = None
        self.count = 0
        self._previous: Any = None
        self._installed = False

    def install(self) -> None:
        if threading.current_thread() is not threading.main_thread():
            return
        self._previous = signal.getsignal(signal.SIGINT)
        signal.signal(signal.SIGINT, self._handler)
        self._installed = True

    def restore(self) -> None:
        if self._installed:
            signal.signal(signal.SIGINT, self._previous)
            self._installed = False

    def _handler(self, signum: int, frame: FrameType | None) -> None:
        self.count += 1
        if self.reading:
            raise KeyboardInterrupt
        action = self.on_interrupt
        if action is not None:
            # The loop may be waiting in select(): wake it so the cancellation runs now.
            self.loop.call_soon_threadsafe(action)


class LineReader:
    """Lines from the terminal with readline, or from any text stream."""

    def __init__(self, stdin: TextIO, out: TextIO, console: Console, interactive: bool) -> None:
        self.stdin = stdin
        self.out = out
        self.interactive = interactive
        # readline works on the process's own terminal only.
        self.terminal = interactive and stdin is sys.stdin and out is sys.stdout and _tty(out)
        self.readline: Any = None
        self.history = history_path()
        if self.terminal:
            self._setup_readline(console)

    def _setup_readline(self, console: Console) -> None:
        try:
            import readline
        except ImportError:  # Windows: the console's own line editing
            return
        self.readline = readline
        readline.set_history_length(HISTORY_LENGTH)
        readline.set_auto_history(False)
        with contextlib.suppress(OSError):
            readline.read_history_file(self.history)
        readline.set_completer_delims(" \t\n")
        matches: list[str] = []

        def complete(text: str, state: int) -> str | None:
            nonlocal matches
            if state == 0:
                before = readline.get_line_buffer()[: readline.get_endidx()]
                try:
                    matches = console.completions(before)
                except Exception:  # a completion must never end the session
                    matches = []
            return matches[state] if state < len(matches) else None

        readline.set_completer(complete)
        if "libedit" in (readline.__doc__ or ""):
            readline.parse_and_bind("bind ^I rl_complete")
        else:
            readline.parse_and_bind("tab: complete")

    def read(self, prompt: str) -> str:
        """One line without its end; raises EOFError at the end of input (Ctrl-D)."""
        if self.terminal:
            line = input(prompt)
            self._remember(line)
            return line
        if self.interactive:
            print(prompt, end="", file=self.out, flush=True)
        line = self.stdin.readline()
        if not line:
            raise EOFError
        return line.rstrip("\r\n")

    def _remember(self, line: str) -> None:
        readline = self.readline
        if readline is None or not line.strip():
            return
        length = readline.get_current_history_length()
        if length and readline.get_history_item(length) == line:
            return  # the same line again: kept once
        readline.add_history(line)

    def save(self) -> None:
        if self.readline is None:
            return
        try:
            self.history.parent.mkdir(parents=True, exist_ok=True)
            self.readline.write_history_file(self.history)
        except OSError:
            pass  # no history is no reason to fail on the way out


async def run_console(
    database_url: str,
    *,
    seed: int | None = None,
    stdin: TextIO | None = None,
    out: TextIO | None = None,
) -> int:
    """The session: reads lines until :quit, Ctrl-D or the end of the input. Returns the exit
    status: 0, or 130 when Ctrl-C ended it (outside a terminal, or while starting)."""
    stdin = stdin or sys.stdin
    out = out or sys.stdout
    rng = random.Random(seed) if seed is not None else random.SystemRandom()
    interrupts = Interrupts(asyncio.get_running_loop())
    interrupts.install()
    try:
        driver = OfflineDriver(create_bot(database_url, rng=rng))
        starting = asyncio.ensure_future(driver.start())
        interrupts.on_interrupt = starting.cancel
        try:
            await starting
        except asyncio.CancelledError:
            current = asyncio.current_task()
            if current is not None and current.cancelling():
                raise
            print("interrupted while starting", file=sys.stderr)
            with contextlib.suppress(Exception):
                await driver.close()
            return INTERRUPTED
        finally:
            interrupts.on_interrupt = None
        try:
            return await _session(driver, stdin, out, interrupts)
        finally:
            interrupts.on_interrupt = None
            await driver.close()
    finally:
        interrupts.restore()


async def _session(
    driver: OfflineDriver, stdin: TextIO, out: TextIO, interrupts: Interrupts
) -> int:
    console = Console(driver, out)
    interactive = _tty(stdin)
    reader = LineReader(stdin, out, console, interactive)
    if interactive:
        console.print(
            "Last Gasp offline console. :help lists what you can type; Tab completes, "
            "Up recalls, Ctrl-C cancels, Ctrl-D leaves."
        )
        console.told_exports = True
        console.print(f"exports and pictures are saved in {folder_shown(console.saver.folder)}")
        console.print(f"speaking as {console.describe(console.speaker)}")
    try:
        while True:
            prompt = f"{console.speaker.name}> " if interactive else "> "
            if reader.readline is not None:
                await console.refresh_completions()  # Tab runs while the loop waits
            try:
                interrupts.reading = True
                line = reader.read(prompt)
            except KeyboardInterrupt:
                interrupts.reading = False
                if not interactive:
                    return INTERRUPTED
                console.print()  # the line typed is dropped; a fresh prompt
                continue
            except EOFError:
                if interactive:
                    console.print()
                return 0
            finally:
                interrupts.reading = False
            if not interactive and line.strip():
                console.print(f"> {line}")  # a scripted session reads as a transcript
            before = interrupts.count
            interrupts.on_interrupt = console.interrupt
            try:
                if not await console.handle(line):
                    return 0
            finally:
                interrupts.on_interrupt = None
            if not interactive and interrupts.count != before:
                return INTERRUPTED  # Ctrl-C in a script stops it
    finally:
        reader.save()


def _tty(stream: TextIO) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False
