"""The bot object: intents, the command tree, the database, the dice, the buttons, the boards."""

from __future__ import annotations

import asyncio
import gc
import random
from collections.abc import Sequence
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot import (
    clicks,  # noqa: F401  (registers what each button does)
    emoji,
)
from bot.boards import Boards
from bot.config import DEFAULT_DATABASE_URL
from bot.db.codec import Clock, utc_now
from bot.db.database import Database
from bot.lifecycle import InFlight
from bot.limits import Limits, RateLimit
from bot.metrics import Metrics
from bot.render.buttons import BUTTONS
from bot.render.dice import Faces
from bot.render.outcome import warm_pictures
from bot.tree import LastGaspTree, command_completed
from bot.web.links import Links

EXTENSIONS = (
    "bot.cogs.vitality",
    "bot.cogs.stamina",
    "bot.cogs.emotions",
    "bot.cogs.checks",
    "bot.cogs.sheet",
    "bot.cogs.table",
    "bot.cogs.settings",
    "bot.cogs.board",
    "bot.cogs.recap",
    "bot.cogs.web",
)


class LastGaspBot(commands.Bot):
    """An unstarted bot; setup_hook connects and migrates the database, loads the cogs, the
    buttons and the dice emoji, and resumes the status boards."""

    def __init__(
        self,
        *,
        database_url: str,
        rng: random.Random,
        clock: Clock = utc_now,
        board_interval: float | None = None,
        rate_limit: RateLimit | None = None,
        **sharding: Any,
    ) -> None:
        super().__init__(
            command_prefix=commands.when_mentioned,  # no prefix commands: slash only
            intents=discord.Intents(guilds=True),  # no message content, no members
            help_command=None,
            tree_cls=LastGaspTree,
            # Guild only, said once: what Discord registers, and the tree refuses the rest.
            allowed_contexts=app_commands.AppCommandContext(guild=True),
            allowed_installs=app_commands.AppInstallationType(guild=True),
            allowed_mentions=discord.AllowedMentions.none(),
            **sharding,
        )
        self.database_url = database_url
        self.rng = rng  # the one random source of every roll (D-5)
        self.clock = clock
        self.inflight = InFlight()
        # The bot's clock, read at each interaction: a test that sets `clock` moves it too.
        self.limits = Limits(rate_limit, clock=lambda: self.clock().timestamp())
        self.metrics = Metrics()  # this bot's own registry, served at /metrics
        self.metrics.watch(self)
        self.faces = Faces.text()
        self.look_up_faces = True  # `python -m bot sync` registers them instead
        self.boards = Boards(self)
        # The campaign page's links (`/web`): None until WEB_SECRET is set (bot/cli.py).
        self.web_links: Links | None = None
        if board_interval is not None:
            self.boards.interval = board_interval
        self._db: Database | None = None
        # Set once the database is connected and its schema upgraded (a page process waits).
        self.database_ready = asyncio.Event()

    @property
    def db(self) -> Database:
        if self._db is None:
            raise RuntimeError("the database is connected in setup_hook")
        return self._db

    async def setup_hook(self) -> None:
        self._db = await Database.connect(self.database_url, clock=self.clock)
        # Shards starting together are safe: the upgrade holds a lock in PostgreSQL.
        await self._db.upgrade()
        self.database_ready.set()
        for extension in EXTENSIONS:
            await self.load_extension(extension)
        self.metrics.know_commands(self.tree)
        self.add_dynamic_items(*BUTTONS)
        if self.look_up_faces:
            self.faces = await emoji.faces(self)
        await asyncio.to_thread(warm_pictures)
        await self.boards.start()
        # What is loaded by now lives as long as the process: out of the cycle collector's sight,
        # its full collections (~70 ms with the ~130,000 objects of the libraries) stop stalling
        # commands in flight (the p99 of the benchmark).
        gc.collect()
        gc.freeze()

    def dispatch(self, event_name: str, /, *args: Any, **kwargs: Any) -> None:
        if event_name == "app_command_completion":  # (interaction, command): see tree.py
            command_completed(args[0])
        super().dispatch(event_name, *args, **kwargs)

    async def close(self) -> None:
        try:
            await self.boards.close()
            await super().close()
        finally:
            if self._db is not None:
                await self._db.close()
                self._db = None


class ShardedLastGaspBot(LastGaspBot, discord.AutoShardedClient):
    """The same bot serving only its shards' guilds, one of several processes."""


def create_bot(
    database_url: str = DEFAULT_DATABASE_URL,
    rng: random.Random | None = None,
    *,
    clock: Clock = utc_now,
    board_interval: float | None = None,
    rate_limit: RateLimit | None = None,
    shard_count: int | None = None,
    shard_ids: Sequence[int] | None = None,
) -> LastGaspBot:
    """The bot, unstarted. `rng` is the one random source of every roll (D-5). With a
    shard_count it runs the shards `shard_ids` (default: all of them) of that many. With a
    `rate_limit` each member of a server is held to it (bot/limits.py; RATE_LIMIT sets it for
    `python -m bot run`); without, nobody is (the tests, the console, the benchmark)."""
    rng = rng or random.SystemRandom()
    options: dict[str, Any] = {
        "clock": clock,
        "board_interval": board_interval,
        "rate_limit": rate_limit,
    }
    if shard_count is None:
        if shard_ids is not None:
            raise ValueError("shard_ids need a shard_count")
        return LastGaspBot(database_url=database_url, rng=rng, **options)
    ids = list(range(shard_count) if shard_ids is None else shard_ids)
    if not ids or any(not 0 <= i < shard_count for i in ids):
        raise ValueError(f"shard ids {ids} must lie within 0..{shard_count - 1}")
    return ShardedLastGaspBot(
        database_url=database_url, rng=rng, shard_count=shard_count, shard_ids=ids, **options
    )
