"""The campaign page beside the bot, in a page process of its own (WEB_PORT with
`python -m bot run`, on a database another process can open).

The bot's process opens WEB_PORT and hands the listening socket to `python -m bot web`, which
it starts once its database is ready, starts again if it ends, and stops with itself. The
pages' reads and drawing then run beside the bot, not on the event loop that answers the
commands: served on that loop, each page view's CPU lengthened the commands' queue, and on
SQLite its reads too, which run on the loop itself (bot/db/looks.py). A page view must not move
the commands' p99 (bench/README.md, "Page views": on PostgreSQL too, once the benchmark's
readers viewed every page for real, the page on the loop moved it about a third, from a page
process 4–12 %). The socket stays open in the bot's process meanwhile: a reader arriving
while the page process starts (again) waits in its backlog, never refused.

The page process runs at the lowest priority (NICE): where the bot's process wants a core, the
bot comes first. It asks the bot for the names of the channels it shows (the bot knows them
from Discord) over a socket pair, one JSON line each way; it says "ready" there once it
listens, and stops when the pair closes (the bot gone, whatever way).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import json
import logging
import os
import signal
import socket
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from sqlalchemy.engine import make_url

from bot.config import Settings
from bot.web.links import Links

log = logging.getLogger("lastgasp.web")

RESTART_S = 1.0  # the first wait before starting an ended page process again; doubled to…
RESTART_MAX_S = 30.0  # …this while it keeps ending soon after starting
STEADY_S = 60.0  # a process that ran this long ended by accident: the next wait is RESTART_S
STOP_S = 4.0  # SIGTERM, then this long (its requests' SHUTDOWN_S and more) before SIGKILL
BACKLOG = 128
READY = b"ready"
NAMES_WAIT_S = 0.5  # a page shows channel ids rather than wait longer for the names
# The page process's niceness: on a core the bot's process wants, the bot runs first (the
# kernel's share of a core for nice 19 beside nice 0 is about 1.5 %), as the page on the
# bot's loop gave way to the commands; on a free core the page runs at full speed.
NICE = 19
ROOT = Path(__file__).resolve().parents[2]


def apart(database_url: str) -> bool:
    """Whether WEB_PORT's page is served by a page process: on a database another process
    can open (PostgreSQL, an SQLite file), where this system can hand that process a socket.
    Not on an SQLite database in memory: the bot's own loop serves that one."""
    url = make_url(database_url)
    memory = url.get_backend_name() == "sqlite" and url.database in (None, "", ":memory:")
    return not memory and hasattr(os, "fork")


def environment(settings: Settings, links: Links) -> dict[str, str]:
    """The page process's settings: the bot's own, the links' address named (WEB_PORT 0
    picks the port in the bot's process)."""
    env = dict(os.environ)
    env.update(
        DATABASE_URL=settings.database_url,
        WEB_BASE_URL=links.base_url,
        WEB_LINK_HOURS=f"{settings.web_link_hours!r}",
        WEB_RATE_LIMIT=str(settings.web_rate_limit or "off"),
        WEB_FORWARDED=str(settings.web_forwarded).lower(),
        LOG_LEVEL=settings.log_level,
        LOG_FORMAT=settings.log_format,
    )
    if settings.web_secret is not None:
        env["WEB_SECRET"] = settings.web_secret.get_secret_value()
    # `-m bot` finds this code wherever the bot was started from.
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    env.pop("WEB_PORT", None)  # the page process listens on the socket it is given
    return env


class PageProcess:
    """WEB_PORT, open in this process, served by a page process it starts and watches."""

    def __init__(
        self,
        settings: Settings,
        links: Links,
        *,
        database_ready: asyncio.Event,
        channel_name: Callable[[int], str | None],
    ) -> None:
        self.settings = settings
        self.links = links
        self.port = settings.web_port or 0
        self.ready = asyncio.Event()  # set each time a page process listens
        self.starts = 0
        self._database_ready = database_ready
        self._channel_name = channel_name
        self._listening: socket.socket | None = None
        self._process: asyncio.subprocess.Process | None = None
        self._watching: asyncio.Task[None] | None = None
        self._closing = False

    async def start(self) -> int:
        """Open WEB_PORT (OSError: taken) and start watching; the page process itself starts
        once the bot's database is ready."""
        self._listening = socket.create_server(
            (self.settings.web_host, self.port), backlog=BACKLOG, reuse_port=False
        )
        self.port = self._listening.getsockname()[1]
        if not self.settings.web_base_url:  # port 0: the links name the port picked
            self.links.base_url = f"http://localhost:{self.port}/"
        self._watching = asyncio.create_task(self._watch(), name="lastgasp-page-process")
        return self.port

    @property
    def pid(self) -> int | None:
        process = self._process
        return None if process is None or process.returncode is not None else process.pid

    def stop(self) -> None:
        """Tell the page process to stop now (the bot was told to: its requests in flight end
        while the bot drains its commands), and start it no more."""
        self._closing = True
        process = self._process
        if process is not None and process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                process.send_signal(signal.SIGTERM)

    async def close(self) -> None:
        self.stop()
        process = self._process
        if process is not None and process.returncode is None:
            try:
                await asyncio.wait_for(process.wait(), STOP_S)
            except TimeoutError:
                log.warning("the campaign page's process did not stop: killed")
                with contextlib.suppress(ProcessLookupError):
                    process.kill()
                await process.wait()
        if self._watching is not None:
            self._watching.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._watching
        if self._listening is not None:
            self._listening.close()

    async def _watch(self) -> None:
        await self._database_ready.wait()  # its schema upgraded by the bot, not raced
        loop = asyncio.get_running_loop()
        wait = RESTART_S
        while not self._closing:
            began = loop.time()
            try:
                ended = f"exit code {await self._run_once()}"
            except OSError as error:  # it could not start (no memory, no process left)
                ended = f"could not start: {error}"
            if self._closing:
                return
            wait = RESTART_S if loop.time() - began >= STEADY_S else wait
            log.warning(
                "the campaign page's process ended (%s): started again in %g s",
                ended,
                wait,
            )
            await asyncio.sleep(wait)
            wait = min(wait * 2, RESTART_MAX_S)

    async def _run_once(self) -> int | None:
        assert self._listening is not None
        ours, theirs = socket.socketpair()
        listening, names = self._listening.fileno(), theirs.fileno()
        try:
            self._process = await asyncio.create_subprocess_exec(
                sys.executable,
                *("-m", "bot", "web", "--listen-fd", str(listening), "--names-fd", str(names)),
                pass_fds=(listening, names),
                env=environment(self.settings, self.links),
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.DEVNULL,  # its one line "served on …" is this one's
            )
        finally:
            theirs.close()
        self.starts += 1
        reader, writer = await asyncio.open_connection(sock=ours)
        answering = asyncio.create_task(self._answer(reader, writer), name="lastgasp-page-names")
        try:
            return await self._process.wait()
        finally:
            self.ready.clear()
            answering.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await answering
            writer.close()

    async def _answer(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """The page process's "ready", and its questions: a JSON list of channel ids, answered
        with an object of the names the bot knows."""
        while line := await reader.readline():
            if line.strip() == READY:
                self.ready.set()
                continue
            try:
                ids = [int(channel) for channel in json.loads(line)]
            except (ValueError, TypeError):
                log.warning("the campaign page's process asked something else: %.80r", line)
                return
            known = {str(c): name for c in ids if (name := self._channel_name(c)) is not None}
            writer.write(json.dumps(known).encode() + b"\n")


def behind_the_bot() -> None:
    """The page process, at NICE (where the system has priorities)."""
    if hasattr(os, "setpriority"):
        with contextlib.suppress(OSError):
            os.setpriority(os.PRIO_PROCESS, 0, NICE)


class AskedNames:
    """In the page process: the channels' names, asked of the bot over the socket pair (the
    answers come in the order asked); `gone` is set when the bot's end closes (the page
    process's stop: the bot is gone)."""

    def __init__(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, gone: asyncio.Event
    ) -> None:
        self._writer = writer
        self._asked: collections.deque[asyncio.Future[dict[int, str]]] = collections.deque()
        self.gone = gone
        self._reading = asyncio.create_task(self._read(reader), name="lastgasp-page-names")

    @classmethod
    async def open(cls, fd: int, gone: asyncio.Event) -> AskedNames:
        reader, writer = await asyncio.open_connection(sock=socket.socket(fileno=fd))
        return cls(reader, writer, gone)

    def say_ready(self) -> None:
        self._writer.write(READY + b"\n")

    async def _read(self, reader: asyncio.StreamReader) -> None:
        try:
            while line := await reader.readline():
                answer = json.loads(line)
                asked = self._asked.popleft()  # a question timed out still takes its answer
                if not asked.done():
                    asked.set_result({int(c): str(name) for c, name in answer.items()})
        except (ValueError, AttributeError, IndexError, ConnectionError) as error:
            log.warning("the bot's answer about channels could not be read: %s", error)
        finally:
            self.gone.set()
            for asked in self._asked:
                if not asked.done():
                    asked.set_result({})  # the page shows the channels' ids

    async def __call__(self, channel_ids: Sequence[int]) -> dict[int, str]:
        if self.gone.is_set():
            return {}
        asked = asyncio.get_running_loop().create_future()
        self._asked.append(asked)
        self._writer.write(json.dumps(list(channel_ids)).encode() + b"\n")
        try:
            return await asyncio.wait_for(asyncio.shield(asked), NAMES_WAIT_S)
        except TimeoutError:
            return {}

    async def close(self) -> None:
        self._reading.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._reading
        self._writer.close()
