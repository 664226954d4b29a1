"""The status boards of this process's guilds, kept current off the commands' path.

A change to a guild (any committed write: bot/db tells `changed`) marks its boards dirty; one
worker task edits each dirty board's message at most once every `interval` seconds, with the
state as it is when the edit is made (bursts coalesce; the last state always wins), one edit at
a time and at most EDITS_PER_S edits a second for all boards together. The command that caused
the change never waits for it. The board is a message of the bot's own in the
channel (`PATCH /channels/{id}/messages/{id}`), never an interaction reply, whose token expires.
A 429 is waited out by discord.py's HTTP client; any other failed edit is tried again later;
a deleted message or channel, or lost permissions, end the board quietly with one log line.
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

from bot.db.records import Board
from bot.render.board import board_reply
from bot.replies import NO_PINGS
from bot.services import board as service
from bot.shards import serves

if TYPE_CHECKING:
    from bot.app import LastGaspBot

log = logging.getLogger("lastgasp.boards")

INTERVAL_S = 2.0  # at most one edit per board per this many seconds
POLL_S = 15.0  # how often to look for changes made by another process
# All boards together: one edit at a time, at most this many a second. Discord allows a bot
# 50 requests a second in all; and the commands, not the boards, come first on this process.
EDITS_PER_S = 20.0
# Discord's answers that mean the board is gone for good: unknown message or channel, missing
# access or permissions.
GONE = {10003, 10008, 50001, 50013}


@dataclass
class _Live:
    board: Board
    dirty: bool = True
    last_edit: float = float("-inf")
    latest_event: int = 0


@dataclass
class Boards:
    bot: LastGaspBot
    interval: float = INTERVAL_S
    poll: float = POLL_S
    pace: float = 1 / EDITS_PER_S  # seconds between two edits of any boards
    _live: dict[int, _Live] = field(default_factory=dict)  # by channel id
    _by_guild: dict[int, list[_Live]] = field(default_factory=dict)  # the same, by guild
    _wake: asyncio.Event = field(default_factory=asyncio.Event)
    # Held by an edit: `settle` waits on it for an edit in flight (never contended in the bot).
    _editing: asyncio.Lock = field(default_factory=asyncio.Lock)
    _worker: asyncio.Task[None] | None = None

    # --- lifecycle -------------------------------------------------------------------------

    async def start(self) -> None:
        """Resume every board of this process's guilds (they survive a restart)."""
        for board in await self.bot.db.all_boards():
            if serves(self.bot, board.guild_id):
                self._live[board.channel_id] = _Live(board)
        self._reindex()
        self.bot.db.listen(self.changed)
        self._worker = asyncio.create_task(self._run(), name="lastgasp-boards")
        self._wake.set()

    async def close(self) -> None:
        if self._worker is not None:
            self._worker.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._worker

    # --- what changes ----------------------------------------------------------------------

    def changed(self, guild_id: int) -> None:
        """A write to `guild_id` was committed: its boards will show it. Cheap: called after
        every command."""
        for live in self._by_guild.get(guild_id, ()):
            live.dirty = True
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

    def board_of(self, channel_id: int) -> Board | None:
        live = self._live.get(channel_id)
        return None if live is None else live.board

    async def flush(self) -> None:
        """Edit every dirty board now, whatever the interval (the console, after a command)."""
        for live in list(self._live.values()):
            if live.dirty:
                await self._edit(live)

    async def settle(self) -> None:
        """The console, after a command: an edit in flight done (it may have begun with the
        change), then every board still dirty edited now, so the board read is current."""
        async with self._editing:
            pass
        await self.flush()

    # --- the worker ------------------------------------------------------------------------

    def _now(self) -> float:
        return asyncio.get_running_loop().time()

    async def _run(self) -> None:
        """One edit at a time, the board waiting longest first, `pace` apart."""
        next_poll = self._now() + self.poll
        while True:
            now = self._now()
            if now >= next_poll:
                next_poll = now + self.poll
                await self._look_for_changes()
            dirty = [live for live in self._live.values() if live.dirty]
            due = [live for live in dirty if live.last_edit + self.interval <= now]
            if due:
                await self._edit(min(due, key=lambda live: live.last_edit))
                await asyncio.sleep(self.pace)
                continue
            waits = [next_poll - now, *(live.last_edit + self.interval - now for live in dirty)]
            self._wake.clear()
            # asyncio.timeout, not wait_for: on 3.11 wait_for can swallow the cancellation
            # that closes the bot when it arrives just as the event is set.
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(max(min(waits), 0.01)):
                    await self._wake.wait()

    async def _edit(self, live: _Live) -> None:
        async with self._editing:
            await self._edit_now(live)

    async def _edit_now(self, live: _Live) -> None:
        board = live.board
        live.dirty = False  # a change during the edit marks it again: the last state wins
        try:
            view = await service.board_view(self.bot.db, board.guild_id, board.channel_id)
            live.latest_event = view.latest_event
            reply = board_reply(view, self.bot.clock())
            channel = self.bot.get_partial_messageable(board.channel_id, guild_id=board.guild_id)
            await channel.get_partial_message(board.message_id).edit(
                embeds=reply.embeds, view=reply.view, allowed_mentions=NO_PINGS
            )
        except discord.HTTPException as error:
            if error.code in GONE or error.status == 404:
                await self._gone(live, error)
            else:  # tried again after the interval
                log.warning("board in channel %s: edit failed (%r)", board.channel_id, error)
                live.dirty = True
        except Exception:
            log.exception("board in channel %s: refresh failed", board.channel_id)
            live.dirty = True
        finally:
            live.last_edit = self._now()

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
        except Exception:
            log.exception("boards: looking for changes failed")
            return
        for live in self._live.values():
            if latest.get(live.board.guild_id, 0) > live.latest_event:
                live.dirty = True
