"""The bot object: intents, the command tree, the database and the cogs."""

from __future__ import annotations

import gc
import random
from collections.abc import Sequence
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.config import DEFAULT_DATABASE_URL
from bot.db import Database
from bot.errors import LastGaspTree
from bot.lifecycle import InFlight  # lifecycle
from bot.prompts import Prompts

EXTENSIONS = (
    "bot.cogs.vitality",
    "bot.cogs.stamina",
    "bot.cogs.emotions",
    "bot.cogs.sheet",
    "bot.cogs.table",
    "bot.cogs.settings",
)


class _LastGasp:
    """What both kinds of bot add to discord.py's: the database, the dice, the cogs, and the
    one door every button click comes through (bot/prompts.py)."""

    rng: random.Random

    def __init__(self, *, database_url: str, rng: random.Random, **sharding: Any) -> None:
        super().__init__(  # type: ignore[call-arg]
            command_prefix=commands.when_mentioned,  # no prefix commands: slash only
            intents=discord.Intents(guilds=True),  # no message content, no members
            help_command=None,
            tree_cls=LastGaspTree,
            allowed_contexts=app_commands.AppCommandContext(guild=True),
            allowed_installs=app_commands.AppInstallationType(guild=True),
            allowed_mentions=discord.AllowedMentions.none(),
            **sharding,
        )
        self.database_url = database_url
        self.rng = rng
        self.prompts = Prompts()  # the questions with buttons still open in this process
        self.inflight = InFlight()  # lifecycle: the interactions a shutdown waits for
        self._db: Database | None = None

    @property
    def db(self) -> Database:
        if self._db is None:
            raise RuntimeError("the database is connected in setup_hook")
        return self._db

    async def setup_hook(self) -> None:
        self._db = await Database.connect(self.database_url)
        # Shards starting together are safe: the upgrade holds a lock in PostgreSQL.
        await self._db.upgrade()
        for extension in EXTENSIONS:
            await self.load_extension(extension)  # type: ignore[attr-defined]
        # What is loaded by now lives as long as the process: out of the cycle collector's sight,
        # its full collections (~70 ms with the ~130,000 objects of the libraries) stop stalling
        # commands in flight (the p99 of the benchmark).
        gc.collect()
        gc.freeze()

    async def on_interaction(self, interaction: discord.Interaction, /) -> None:
        # Commands go through the tree; discord.py gives clicks no such door: this is theirs.
        if interaction.type is discord.InteractionType.component:
            await self.prompts.on_click(interaction)

    async def close(self) -> None:
        self.prompts.close_all()
        try:
            await super().close()  # type: ignore[misc]
        finally:
            if self._db is not None:
                await self._db.close()
                self._db = None


class LastGaspBot(_LastGasp, commands.Bot):
    """An unstarted bot serving every guild; setup_hook connects and migrates the database,
    then loads the cogs."""


class ShardedLastGaspBot(_LastGasp, commands.AutoShardedBot):
    """An unstarted bot serving only its shards' guilds, one of several processes."""


def create_bot(
    database_url: str = DEFAULT_DATABASE_URL,
    rng: random.Random | None = None,
    *,
    shard_count: int | None = None,
    shard_ids: Sequence[int] | None = None,
) -> LastGaspBot | ShardedLastGaspBot:
    """The bot, unstarted. `rng` is the one random source of every roll (D-5). With a
    shard_count it runs the shards `shard_ids` (default: all of them) of that many."""
    rng = rng or random.SystemRandom()
    if shard_count is None:
        if shard_ids is not None:
            raise ValueError("shard_ids need a shard_count")
        return LastGaspBot(database_url=database_url, rng=rng)
    ids = list(range(shard_count) if shard_ids is None else shard_ids)
    if not ids or any(not 0 <= i < shard_count for i in ids):
        raise ValueError(f"shard ids {ids} must lie within 0..{shard_count - 1}")
    return ShardedLastGaspBot(
        database_url=database_url, rng=rng, shard_count=shard_count, shard_ids=ids
    )
