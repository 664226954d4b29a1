"""The status boards of this process's guilds, kept current off the commands' path.

A change to a guild (any committed write: bot/db tells `changed`) marks its boards dirty; a
worker task edits each dirty board's message at most once every `interval` seconds, with the
state as it is when the edit is made (bursts coalesce; the last state always wins). The command
that caused the change never waits for it. The board is a message of the bot's own in the
channel (`PATCH /channels/{id}/messages/{id}`), never an interaction reply, whose token expires.

Each board is paced on its own, and boards are edited side by side (at most IN_FLIGHT at once,
READS of them reading the database at once), not in one queue: Discord limits each channel's
route apart, so a board whose edit is slow (discord.py waiting out a 429 on its channel) holds
up that board only, and 200 busy boards are each edited every `interval`. A 429 discord.py gave
up on puts that board off for Discord's Retry-After; Discord's global limit is discord.py's (it
holds every request through a global 429). Any other failed edit is tried again later; a
deleted message or channel, or lost permissions, end the board quietly with one log line.
Changes made by another process (a second shard process, a restart) are seen by a slow poll of
each board guild's newest event.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import discord

from bot.db.errors import DATABASE_DOWN
from bot.db.records import Board
from bot.outage import Outage
from bot.render.board import board_reply
from bot.render.reply import Reply
from bot.replies import message
from bot.services import board as service
from bot.shards import serves

if TYPE_CHECKING:
    from bot.app import LastGaspBot

log = logging.getLogger("lastgasp.boards")

INTERVAL_S = 2.0  # at most one edit per board per this many seconds
POLL_S = 15.0  # how often to look for changes made by another process
IN_FLIGHT = 50  # edits under way at once, all boards together
# Of those, reading their board's state at once: the commands, not the boards, come first for
# the database's connections.
READS = 4
# Discord's answers that mean the board is gone for good: unknown message or channel, missing
# access or permissions.
GONE = {10003, 10008, 50001, 50013}


@dataclass(eq=False)  # by identity: a board replaced in its channel is another _Live
class _Live:
    board: Board
    dirty: bool = True
    last_edit: float = float("-inf")  # when the last edit ended
    not_before: float = float("-inf")  # Discord's Retry-After, after a 429
    latest_event: int = 0
    editing: asyncio.Task[None] | None = None

    def due(self, interval: float) -> float:
        return max(self.last_edit + interval, self.not_before)


@dataclass
class Boards:
    bot: LastGaspBot
    interval: float = INTERVAL_S
    poll: float = POLL_S
    in_flight: int = IN_FLIGHT
    _live: dict[int, _Live] = field(default_factory=dict)  # by channel id
    _by_guild: dict[int, list[_Live]] = field(default_factory=dict)  # the same, by guild
    _dirty: set[_Live] = field(default_factory=set)  # the worker looks at these only
    _editing: set[asyncio.Task[None]] = field(default_factory=set)
    _reads: asyncio.Semaphore = field(default_factory=lambda: asyncio.Semaphore(READS))
    _wake: asyncio.Event = field(default_factory=asyncio.Event)
    _worker: asyncio.Task[None] | None = None
    _outage: Outage = field(default_factory=lambda: Outage(log, "boards"))

    # --- lifecycle -------------------------------------------------------------------------

    async def start(self) -> None:
        """Resume every board of this process's guilds (they survive a restart)."""
        for board in await self.bot.db.all_boards():
            if serves(self.bot, board.guild_id):
                self._live[board.channel_id] = live = _Live(board)
                self._dirty.add(live)
        self._reindex()
        self.bot.db.listen(self.changed)
        self._worker = asyncio.create_task(self._run(), name="lastgasp-boards")
        self._wake.set()

    async def close(self) -> None:
        tasks = [*self._editing, *([self._worker] if self._worker else [])]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task

    # --- what changes ----------------------------------------------------------------------

    def changed(self, guild_id: int) -> None:
        """A write to `guild_id` was committed: its boards will show it. Cheap: called after
        every command."""
        for live in self._by_guild.get(guild_id, ()):
            self._mark(live)

    def _mark(self, live: _Live) -> None:
        live.dirty = True
        self._dirty.add(live)
        self._wake.set()

    def started(self, board: Board) -> None:
        self._live[board.channel_id] = _Live(board, dirty=False, last_edit=self._now())
        self._reindex()

    def stopped(self, channel_id: int) -> None:
        self._live.pop(channel_id, None)
        self._reindex()

    def _reindex(self) -> None:
        """After a board starts or ends (rare); `changed` reads the index after every command."""
        self._by_guild = {}
        for live in self._live.values():
            self._by_guild.setdefault(live.board.guild_id, []).append(live)

    @property
    def active(self) -> int:
        """How many boards this process keeps (bot/metrics.py reads it when scraped)."""
        return len(self._live)

    def board_of(self, channel_id: int) -> Board | None:
        live = self._live.get(channel_id)
        return None if live is None else live.board

    async def flush(self) -> None:
        """Edit every dirty board now, whatever the interval (the console, after a command)."""
        for live in list(self._live.values()):
            if live.editing is not None:  # the worker's edit first: never two of one board
                await asyncio.wait([live.editing])
            if live.dirty:
                await self._edit(live)

    async def settle(self) -> None:
        """The console, after a command: the edits in flight done (one may have begun with the
        change), then every board still dirty edited now, so the board read is current."""
        if self._editing:
            await asyncio.wait(set(self._editing))
        await self.flush()

    # --- the worker ------------------------------------------------------------------------

    def _now(self) -> float:
        return asyncio.get_running_loop().time()

    async def _run(self) -> None:
        """Starts the edit of each dirty board that is due, the longest waiting first, up to
        `in_flight` at once; sleeps until the next is due, a change, or an edit's end."""
        next_poll = self._now() + self.poll
        while True:
            now = self._now()
            if now >= next_poll:
                next_poll = now + self.poll
                await self._look_for_changes()
            waits = [next_poll - now]
            due = []
            for live in list(self._dirty):
                if self._live.get(live.board.channel_id) is not live:  # ended or replaced
                    self._dirty.discard(live)
                elif live.editing is None:
                    when = live.due(self.interval)
                    if when <= now:
                        due.append(live)
                    else:
                        waits.append(when - now)
            due.sort(key=lambda live: live.last_edit)
            for live in due[: max(self.in_flight - len(self._editing), 0)]:
                self._start_edit(live)
            self._wake.clear()
            # asyncio.timeout, not wait_for: on 3.11 wait_for can swallow the cancellation
            # that closes the bot when it arrives just as the event is set.
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(max(min(waits), 0.01)):
                    await self._wake.wait()

    def _start_edit(self, live: _Live) -> asyncio.Task[None]:
        self._dirty.discard(live)
        task = asyncio.create_task(self._edit_now(live), name="lastgasp-board-edit")
        live.editing = task
        self._editing.add(task)

        def ended(task: asyncio.Task[None]) -> None:
            self._editing.discard(task)
            live.editing = None
            self._wake.set()  # a slot is free, and the board may be dirty again

        task.add_done_callback(ended)
        return task

    async def _edit(self, live: _Live) -> None:
        """Now, as a task of its own like the worker's: the worker starts no second edit of
        this board meanwhile."""
        await asyncio.wait([self._start_edit(live)])

    async def _edit_now(self, live: _Live) -> None:
        board = live.board
        live.dirty = False  # a change during the edit marks it again: the last state wins
        try:
            async with self._reads:
                view = await service.board_view(self.bot.db, board.guild_id, board.channel_id)
            self._outage.answered()
            if self._live.get(board.channel_id) is not live:
                return  # stopped or moved while it waited: the message says so, left as it is
            live.latest_event = view.latest_event
            reply = board_reply(view, self.bot.clock())
            if not board.layout:
                await self._replace(live, reply)
                return
            channel = self.bot.get_partial_messageable(board.channel_id, guild_id=board.guild_id)
            self.bot.metrics.board_edit()  # counted where the edit is requested
            await channel.get_partial_message(board.message_id).edit(**message(reply))
        except discord.RateLimited as error:  # discord.py would not wait that long
            self.bot.metrics.board_rate_limited()
            self._rate_limited(live, error.retry_after)
        except discord.HTTPException as error:
            if error.status == 429:  # counted where a 429 is caught
                self.bot.metrics.board_rate_limited()
            if error.code in GONE or error.status == 404:
                await self._gone(live, error)
            elif error.status == 429:  # discord.py gave up waiting: this board waits
                self._rate_limited(live, _retry_after(error))
            else:  # tried again after the interval
                log.warning("board in channel %s: edit failed (%r)", board.channel_id, error)
                self._mark(live)
        except DATABASE_DOWN as error:  # tried again after the interval, logged once an outage
            self._outage.failed(error)
            self._mark(live)
        except Exception:
            log.exception("board in channel %s: refresh failed", board.channel_id)
            self._mark(live)
        finally:
            live.last_edit = self._now()

    async def _replace(self, live: _Live, reply: Reply) -> None:
        """A board posted before the bot built its messages from layout components: a message's
        layout flag can only be set by an edit that also clears its embeds, so the board is
        posted anew and the old message deleted, once."""
        old = live.board
        posted = await post(self.bot, old.guild_id, old.channel_id, reply)
        channel = self.bot.get_partial_messageable(old.channel_id, guild_id=old.guild_id)
        if not await service.replace_board(self.bot.db, old, posted):
            await _delete(channel, posted)  # a /board start came first: it is the board
            return
        live.board = Board(old.guild_id, old.channel_id, posted)
        log.info("board in channel %s posted anew with layout components", old.channel_id)
        await _delete(channel, old.message_id)

    def _rate_limited(self, live: _Live, retry_after: float) -> None:
        channel = live.board.channel_id
        log.warning("board in channel %s: Discord said wait %.1f s (429)", channel, retry_after)
        live.not_before = self._now() + retry_after
        self._mark(live)

    async def _gone(self, live: _Live, error: discord.HTTPException) -> None:
        board = live.board
        log.info(
            "board in channel %s ended: its message is gone or the bot lost access (%s %s)",
            board.channel_id,
            error.status,
            error.code,
        )
        current = self._live.get(board.channel_id)
        if current is not None and current.board == board:  # not a board that replaced it
            self.stopped(board.channel_id)
        await service.end_board(self.bot.db, board)

    async def _look_for_changes(self) -> None:
        """Another process may have changed a board's guild: compare its newest event."""
        if not self._live:
            return
        guilds = {live.board.guild_id for live in self._live.values()}
        try:
            latest = await self.bot.db.latest_events(guilds)
        except DATABASE_DOWN as error:
            self._outage.failed(error)
            return
        except Exception:
            log.exception("boards: looking for changes failed")
            return
        self._outage.answered()
        for live in self._live.values():
            if latest.get(live.board.guild_id, 0) > live.latest_event:
                self._mark(live)


async def post(bot: LastGaspBot, guild_id: int, channel_id: int, reply: Reply) -> int:
    """Post a board's message in its channel (a message of the bot's own, never an interaction
    reply, whose token expires); its id."""
    channel = bot.get_partial_messageable(channel_id, guild_id=guild_id)
    return (await channel.send(**message(reply))).id


async def _delete(channel: discord.PartialMessageable, message_id: int) -> None:
    """The bot's own message, gone; one already deleted needs nothing."""
    with contextlib.suppress(discord.HTTPException):
        await channel.get_partial_message(message_id).delete()


def _retry_after(error: discord.HTTPException) -> float:
    """Discord's Retry-After of a 429, in seconds (0 if it gave none)."""
    headers = getattr(error.response, "headers", None) or {}
    try:
        return max(float(headers.get("Retry-After", 0)), 0.0)
    except (TypeError, ValueError):
        return 0.0
