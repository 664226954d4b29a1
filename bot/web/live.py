"""The live boards of the page: each open board (server-sent events) kept current, without
reloading, within a few seconds of any change.

A change is learnt two ways, as the status board worker learns it (bot/boards.py): in this
process, from the database's notice after every committed write (`db.listen`); from another
process (the bot beside `python -m bot web`, another shard), from a poll every POLL_S seconds
of each watched guild's newest event id (`db.latest_events`, one query for all of them) and of
which watched boards still are (`db.boarded`: a board whose message is gone ends without an
event). Each watched channel is a Feed, read once per change however many pages watch it (at
most one read every PACE_S seconds, bursts coalesced, the last state always read), and at most
READS feeds read the database at once: the commands, not the pages, come first.

Open connections are bounded: LIMIT in all and PER_ADDRESS per client address.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
from collections.abc import AsyncIterator, Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any

from bot.db.database import Database
from bot.db.errors import DATABASE_DOWN
from bot.db.turns import Turn, taking_turns
from bot.outage import Outage
from bot.services.board import BoardView, live_board_view

log = logging.getLogger("lastgasp.web")

POLL_S = 1.0  # another process's change shows within this (and a read)
PACE_S = 0.5  # at most one read of a board per this many seconds
READS = 2  # feeds reading the database at once
LIMIT = 200  # live connections open at once, all together
PER_ADDRESS = 8  # …and from one client address


class Full(Exception):
    """No room for another live connection (LIMIT or PER_ADDRESS)."""


@dataclass(eq=False)
class Feed:
    """One channel's board as its watchers see it: the newest view and its version."""

    guild_id: int
    channel_id: int
    view: BoardView | None = None  # the last view read (kept once the board has ended)
    ended: bool = False  # the channel has no board any more
    version: int = 0
    watchers: int = 0
    dirty: bool = True
    task: asyncio.Task[None] | None = None
    _drawn: tuple[int, str] | None = None  # the version last drawn for the watchers, its HTML
    _drawing: tuple[int, asyncio.Task[str]] | None = None  # …and the one being drawn
    _changed: asyncio.Condition = field(default_factory=asyncio.Condition)
    _wake: asyncio.Event = field(default_factory=asyncio.Event)

    async def wait(self, seen: int, timeout: float) -> int:
        """The version after `seen`, once there is one (or the current one at the timeout, or
        when the server closes)."""
        async with self._changed:
            if self.version != seen:
                return self.version
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), timeout)
            return self.version

    async def drawing(self, draw: Callable[[BoardView], Coroutine[Any, Any, str]]) -> str:
        """The current view as `draw` draws it (in pieces between the commands), drawn once a
        version for all the watchers (the lines name no viewer). Only once there is a view."""
        version = self.version
        if self._drawn is not None and self._drawn[0] == version:
            return self._drawn[1]
        if self._drawing is None or self._drawing[0] != version:
            assert self.view is not None
            # In a context of its own: not the budget of the request that happened to ask.
            task = asyncio.create_task(
                draw(self.view), name="lastgasp-web-draw", context=contextvars.Context()
            )
            task.add_done_callback(_retrieved)  # a drawing whose watchers all left
            self._drawing = (version, task)
        # Shielded: a watcher who leaves does not end the drawing the others wait for.
        html = await asyncio.shield(self._drawing[1])
        if self._drawn is None or self._drawn[0] < version:
            self._drawn = (version, html)
        return html

    def being_drawn(self) -> asyncio.Task[str] | None:
        """The drawing under way, if any (the server stops: it ends too)."""
        if self._drawing is None or self._drawing[1].done():
            return None
        return self._drawing[1]

    def mark(self) -> None:
        self.dirty = True
        self._wake.set()

    async def marked(self) -> None:
        """Until the feed is marked (changed, or due to be read again)."""
        await self._wake.wait()
        self._wake.clear()

    async def publish(self, view: BoardView | None) -> None:
        """A new view, or None: the board has ended. Its watchers are told (only when it
        differs from what they were told last)."""
        ended = view is None
        if ended == self.ended and (ended or view == self.view):
            return
        async with self._changed:
            self.ended = ended
            if view is not None:
                self.view = view
            self.version += 1
            self._changed.notify_all()

    async def release(self) -> None:
        """Every watcher wakes now (the server stops)."""
        async with self._changed:
            self._changed.notify_all()


def _retrieved(task: asyncio.Task[str]) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.warning("live board: drawing failed", exc_info=task.exception())


class LiveBoards:
    """The feeds of this process's open live boards."""

    def __init__(
        self,
        db_of: Callable[[], Database],
        *,
        poll: float = POLL_S,
        pace: float = PACE_S,
        limit: int = LIMIT,
        per_address: int = PER_ADDRESS,
        turn: Turn | None = None,
    ) -> None:
        self._db_of = db_of
        self._turn = turn  # where the page is served beside the bot: its reads give way
        self.poll = poll
        self.pace = pace
        self.limit = limit
        self.per_address = per_address
        self._feeds: dict[tuple[int, int], Feed] = {}  # by guild and channel
        self._by_address: dict[str, int] = {}
        self._reads = asyncio.Semaphore(READS)
        self._outage = Outage(log, "live boards")
        self._listening: set[int] = set()  # id() of the databases told to tell us
        self._poller: asyncio.Task[None] | None = None
        self._open = 0
        self.closing = False  # the server stops: every open stream ends now

    @property
    def open(self) -> int:
        return self._open

    def changed(self, guild_id: int) -> None:
        """A write to `guild_id` was committed in this process (cheap: after every command)."""
        for feed in self._feeds.values():
            if feed.guild_id == guild_id:
                feed.mark()

    @contextlib.asynccontextmanager
    async def watch(self, guild_id: int, channel_id: int, address: str) -> AsyncIterator[Feed]:
        """The feed of a channel's board while the connection is open; Full when there is no
        room for it."""
        if self._open >= self.limit or self._by_address.get(address, 0) >= self.per_address:
            raise Full()
        db = self._db_of()
        if id(db) not in self._listening:
            self._listening.add(id(db))
            db.listen(self.changed)
        key = (guild_id, channel_id)
        feed = self._feeds.get(key)
        if feed is None:
            feed = self._feeds[key] = Feed(guild_id, channel_id)
            feed.task = asyncio.create_task(self._keep(feed), name="lastgasp-web-feed")
            feed.mark()  # its first reading
        self._open += 1
        self._by_address[address] = self._by_address.get(address, 0) + 1
        feed.watchers += 1
        if self._poller is None or self._poller.done():
            self._poller = asyncio.create_task(self._poll(), name="lastgasp-web-poll")
        try:
            yield feed
        finally:
            self._open -= 1
            left = self._by_address[address] - 1
            if left:
                self._by_address[address] = left
            else:
                del self._by_address[address]
            feed.watchers -= 1
            if not feed.watchers and self._feeds.get(key) is feed:
                del self._feeds[key]
                if feed.task is not None:
                    feed.task.cancel()

    async def _keep(self, feed: Feed) -> None:
        """Reads the board whenever it is marked, at most once per `pace`; tells the watchers
        when what it shows changed."""
        loop = asyncio.get_running_loop()
        while True:
            await feed.marked()
            if not feed.dirty:
                continue
            feed.dirty = False
            started = loop.time()
            try:
                async with self._reads:
                    view = await self._read(feed)
            except DATABASE_DOWN as error:  # tried again after the pace, logged once an outage
                self._outage.failed(error)
                feed.dirty = True
            except Exception:
                log.warning("live board of channel %s: read failed", feed.channel_id, exc_info=True)
                feed.dirty = True  # tried again after the pace
            else:
                self._outage.answered()
                await feed.publish(view)
            await asyncio.sleep(max(self.pace - (loop.time() - started), 0))
            if feed.dirty:
                feed.mark()

    async def _read(self, feed: Feed) -> BoardView | None:
        turns = contextlib.nullcontext() if self._turn is None else taking_turns(self._turn)
        with turns:
            return await live_board_view(self._db_of(), feed.guild_id, feed.channel_id)

    async def _poll(self) -> None:
        """Another process's changes, every `poll`: each watched guild's newest event, and
        which watched boards still are (the bot ends a board whose message is gone without an
        event)."""
        while self._feeds:
            await asyncio.sleep(self.poll)
            feeds = list(self._feeds.values())
            if not feeds:
                return
            db = self._db_of()
            try:
                latest = await db.latest_events({f.guild_id for f in feeds})
                live = {(f.guild_id, f.channel_id) for f in feeds if not f.ended}
                boarded = await db.boarded(live) if live else set()
            except DATABASE_DOWN as error:
                self._outage.failed(error)
                continue
            except Exception:
                log.warning("live boards: looking for changes failed", exc_info=True)
                continue
            self._outage.answered()
            for feed in feeds:
                seen = feed.view.latest_event if feed.view is not None else -1
                gone = not feed.ended and (feed.guild_id, feed.channel_id) not in boarded
                if latest.get(feed.guild_id, 0) > seen or gone:
                    feed.mark()

    async def close(self) -> None:
        self.closing = True
        for feed in list(self._feeds.values()):  # the streams waiting on them end
            await feed.release()
        tasks: list[asyncio.Task[Any]] = [f.task for f in self._feeds.values() if f.task]
        tasks += [d for f in self._feeds.values() if (d := f.being_drawn()) is not None]
        if self._poller is not None:
            tasks.append(self._poller)
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._feeds.clear()
