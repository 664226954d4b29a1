"""Page views of the campaign page, as a load beside the benchmark's commands (issue 18: a page
view must not move the commands' p99).

On its own, against any page (the bot's with WEB_PORT, or `python -m bot web`):

    python bench/web_views.py --link URL [--rate 20] [--live 5] [--seconds 60]

opens the link (a link made by `/web`), finds the server's pages on it (the campaign, its
characters, its boards), then views them at `--rate` pages a second, each with the pictures it
shows (a down character's odds chart) as a browser loads them (an open loop: a slow page does
not slow the next one down) while `--live` live boards stay open, and prints one JSON line:
requests (pages and pictures), statuses, latency p50/p99 (ms), live updates received.

Beside the benchmark's bot, as WEB_PORT serves it (by a page process the bot starts; the page
views from processes of their own, as readers' browsers are):

    python bench/web_views.py bench [--rate 20] [--live 5] -- --quick --db sqlite

runs `bench/run.py` with these arguments, each bot of it serving the page, and this load
against it for the whole of each run. To plug it into bench/run.py instead, wrap the measured
run of `bot_run` in `async with web_views.beside(load, rate=…, live=…):` (see `beside`).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import os
import re
import signal
import sys
import time
from collections import Counter
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

import aiohttp

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # `python bench/web_views.py` puts bench/, not the repo, on the path
    sys.path.insert(0, str(ROOT))

SECRET = "the benchmark's own secret, long enough to be one"
OPEN_BOARDS, CLOSE_BOARDS = signal.SIGUSR1, signal.SIGUSR2  # a reader's live boards, on and off
_HREF = re.compile(r'href="([^"]+)"')
_IMG = re.compile(r'<img src="([^"]+)"')


def _percentile(values: list[float], p: float) -> float:
    if not values:
        return math.nan
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, math.ceil(p * len(ordered)) - 1)]


class Views:
    """The page views of one reader's browser, and its live boards."""

    def __init__(self, link: str, rate: float, live: int) -> None:
        self.link = link
        self.rate = rate
        self.live = live
        self.latencies: list[float] = []
        self.statuses: Counter[int] = Counter()
        self.updates = 0
        self.paths: list[str] = []  # the pages viewed in turn
        self.boards: list[str] = []

    async def run(self, seconds: float, stop: asyncio.Event) -> dict[str, Any]:
        jar = aiohttp.CookieJar(unsafe=True)  # a cookie for 127.0.0.1, as a browser keeps it
        limits = aiohttp.TCPConnector(limit=64)
        async with aiohttp.ClientSession(cookie_jar=jar, connector=limits) as session:
            await self._discover(session)
            tasks: set[asyncio.Task[None]] = set()

            def open_boards() -> None:
                while len(tasks) < self.live:
                    tasks.add(asyncio.create_task(self._watch(session, stop)))

            def close_boards() -> None:  # the browsers' tabs closed: their connections end
                for task in tasks:
                    task.cancel()
                tasks.clear()

            loop = asyncio.get_running_loop()
            loop.add_signal_handler(OPEN_BOARDS, open_boards)
            loop.add_signal_handler(CLOSE_BOARDS, close_boards)
            open_boards()
            print("ready", flush=True)  # beside() starts the measured runs from here
            started = time.perf_counter()
            try:
                await self._view(session, seconds, stop)
            finally:
                stop.set()
                running = list(tasks)
                close_boards()
                await asyncio.gather(*running, return_exceptions=True)
            elapsed = time.perf_counter() - started
        return {
            "seconds": round(elapsed, 1),
            "requests": len(self.latencies),
            "rate": round(len(self.latencies) / elapsed, 1) if elapsed else 0,
            "statuses": dict(self.statuses),
            "p50_ms": round(_percentile(self.latencies, 0.50) * 1000, 1),
            "p99_ms": round(_percentile(self.latencies, 0.99) * 1000, 1),
            "live": self.live,
            "live_updates": self.updates,
        }

    async def _discover(self, session: aiohttp.ClientSession) -> None:
        """The server's pages, from its campaign page: characters, the bookkeeping view of
        one, every board."""
        async with session.get(self.link) as response:
            if response.status != 200:
                raise SystemExit(f"the link opens nothing: {response.status}")
            campaign = str(response.url)
            html = await response.text()
        hrefs = dict.fromkeys(_HREF.findall(html))
        characters = [urljoin(campaign, h) for h in hrefs if "/characters/" in h][:10]
        self.boards = [urljoin(campaign, h) for h in hrefs if "/boards/" in h]
        self.paths = [campaign, *characters]
        if characters:
            self.paths.append(f"{characters[0]}?all=1")
        self.paths += self.boards

    async def _view(
        self, session: aiohttp.ClientSession, seconds: float, stop: asyncio.Event
    ) -> None:
        """An open loop: one request every 1/rate s, whatever the previous one is doing."""
        if self.rate <= 0:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), seconds)
            return
        loop = asyncio.get_running_loop()
        start = loop.time()
        pending: set[asyncio.Task[None]] = set()
        n = 0
        while not stop.is_set() and loop.time() - start < seconds:
            path = self.paths[n % len(self.paths)]
            task = asyncio.create_task(self._one(session, path))
            pending.add(task)
            task.add_done_callback(pending.discard)
            n += 1
            delay = start + n / self.rate - loop.time()
            if delay < -1 / self.rate:  # paused (SIGSTOP: bench/run.py --views): not made up
                start, delay = loop.time() - n / self.rate, 0
            if delay > 0:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), delay)
        if pending:
            await asyncio.wait(pending, timeout=10)

    async def _one(self, session: aiohttp.ClientSession, url: str) -> None:
        """A page, then the pictures it shows, as a browser loads them (a character's odds
        chart only while that character is down: asked for otherwise it is a cheap 404)."""
        body = await self._get(session, url)
        for src in dict.fromkeys(_IMG.findall(body)):
            await self._get(session, urljoin(url, src))

    async def _get(self, session: aiohttp.ClientSession, url: str) -> str:
        """One request, timed; its text if it is a page."""
        began = time.perf_counter()
        try:
            async with session.get(url) as response:
                body = await response.read()
                self.statuses[response.status] += 1
                page = response.content_type == "text/html"
        except aiohttp.ClientError:
            self.statuses[0] += 1
            return ""
        self.latencies.append(time.perf_counter() - began)
        return body.decode() if page else ""

    async def _watch(self, session: aiohttp.ClientSession, stop: asyncio.Event) -> None:
        """One open live board, reopened when it ends (as a browser's EventSource does)."""
        if not self.boards:
            return
        while not stop.is_set():
            with contextlib.suppress(aiohttp.ClientError):
                async with session.get(f"{self.boards[0]}/live") as response:
                    async for line in response.content:
                        if line.startswith(b"event: board"):
                            self.updates += 1
            await asyncio.sleep(1)


async def views(link: str, rate: float, live: int, seconds: float) -> dict[str, Any]:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    return await Views(link, rate, live).run(seconds, stop)


# --- beside the benchmark's bot -----------------------------------------------------------------


class Reader:
    """The readers' two processes, each started once for a whole run so that no start-up is
    in a slice: the page views, paused (SIGSTOP) and resumed between slices, and the live
    boards, closed and opened again (their connections ended, then made anew)."""

    def __init__(
        self, pages: asyncio.subprocess.Process, boards: asyncio.subprocess.Process, on_loop: bool
    ) -> None:
        self._pages = pages
        self._boards = boards
        self.on_loop = on_loop  # where the page is served: the bot's loop, or a page process

    def pause(self) -> None:
        self._pages.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        self._pages.send_signal(signal.SIGCONT)

    def close_boards(self) -> None:
        self._boards.send_signal(CLOSE_BOARDS)

    def open_boards(self) -> None:
        self._boards.send_signal(OPEN_BOARDS)


@contextlib.asynccontextmanager
async def beside(
    load: Any, *, rate: float, live: int, guild: int = 0, on_loop: bool | None = None
) -> AsyncIterator[Reader]:
    """The page served beside the benchmark's bot (`load`: a bench.load.BotLoad, started) —
    as WEB_PORT serves it (`on_loop` None: by a page process the bot starts,
    bot/web/process.py), on the bot's loop (True), or by a page process (False) — with a
    status board in one guild's channel and a link for that guild's GM; and the page views of
    `views` against it while the block runs, from two processes of their own: one views pages
    at `rate` a second, one keeps `live` live boards open. Prints each one's figures at the
    end."""
    from bot.config import Settings
    from bot.web.app import WebServer
    from bot.web.links import Link, Links
    from bot.web.process import PageProcess, apart
    from bot.web.serve import channel_name, on_the_loop

    bot, world = load.bot, load.world
    guild_id = world.guild_id(guild)
    channel_id = guild_id + 1  # a channel of the guild's own; the bot's boards never edit it
    links = Links(SECRET, hours=24, base_url="http://127.0.0.1/")
    server: WebServer | PageProcess
    if on_loop is None:
        on_loop = not apart(bot.database_url)
    if on_loop:
        server = on_the_loop(bot, links, host="127.0.0.1", port=0, rate_limit=None)
        await server.start()
    else:
        settings = Settings(
            database_url=bot.database_url,
            web_port=0,
            web_host="127.0.0.1",
            web_secret=SECRET,
            web_base_url=None,
            web_rate_limit=None,
            log_level="WARNING",
        )
        server = PageProcess(
            settings, links, database_ready=bot.database_ready, channel_name=channel_name(bot)
        )
        await server.start()
        await asyncio.wait_for(server.ready.wait(), 60)
    links.base_url = f"http://127.0.0.1:{server.port}/"
    async with bot.db.transaction(guild_id) as uow:
        await uow.set_board(channel_id, 1)
    link = Link(guild_id, world.gm_id(guild), 0, True, None, f"Table {guild}", f"GM{guild}")

    async def reader(rate: float, live: int) -> asyncio.subprocess.Process:
        return await asyncio.create_subprocess_exec(
            sys.executable,
            str(Path(__file__).resolve()),
            *("--link", links.url(link), "--rate", str(rate), "--live", str(live)),
            *("--seconds", "86400"),
            stdout=asyncio.subprocess.PIPE,
        )

    processes = {"page views": await reader(rate, 0), "live boards": await reader(0, live)}
    try:
        for name, process in processes.items():
            assert process.stdout is not None
            ready = await asyncio.wait_for(process.stdout.readline(), 60)
            if ready.strip() != b"ready":
                raise RuntimeError(f"the {name} did not start: {ready!r}")
        yield Reader(processes["page views"], processes["live boards"], on_loop)
    finally:
        for name, process in processes.items():
            process.send_signal(signal.SIGCONT)  # a paused reader hears SIGTERM once resumed
            process.send_signal(signal.SIGTERM)
            out, _ = await process.communicate()
            print(f"  {name}: {out.decode().strip()}", flush=True)
        await server.close()
        async with bot.db.transaction(guild_id) as uow:
            await uow.end_board(channel_id)


def bench(argv: list[str], rate: float, live: int) -> int:
    """bench/run.py with `argv`, each bot of it serving the page under this load."""
    from bench import run
    from bench.load import BotLoad

    class Served(BotLoad):
        async def start(self) -> None:
            await super().start()
            self._views = beside(self, rate=rate, live=live)
            await self._views.__aenter__()

        async def close(self) -> None:
            await self._views.__aexit__(None, None, None)
            await super().close()

    run.BotLoad = Served  # type: ignore[attr-defined]  # bench/run.py's, for this run only
    print(f"the campaign page served by each bot, {rate:g} views/s and {live} live boards")
    return run.main(argv)


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--link", help="a link made by /web")
    parser.add_argument("--rate", type=float, default=20.0, help="pages a second (+ pictures)")
    parser.add_argument("--live", type=int, default=5, help="live boards kept open")
    parser.add_argument("--seconds", type=float, default=60.0)
    if argv[:1] == ["bench"]:
        rest = argv[1:]
        cut = rest.index("--") if "--" in rest else len(rest)
        args = parser.parse_args(rest[:cut])
        return bench(rest[cut + 1 :], args.rate, args.live)
    args = parser.parse_args(argv)
    if not args.link:
        parser.error("--link is needed (or `bench` to run beside bench/run.py)")
    from bot import loop

    figures = loop.run(views(args.link, args.rate, args.live, args.seconds))
    print(json.dumps(figures), flush=True)
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(main())
