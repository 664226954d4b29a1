"""The bot object: intents, the command tree, the database and the cogs."""

from __future__ import annotations

import random

import discord
from discord import app_commands
from discord.ext import commands

from bot.config import DEFAULT_DATABASE_URL
from bot.db import Database
from bot.errors import LastGaspTree

EXTENSIONS = (
    "bot.cogs.vitality",
    "bot.cogs.stamina",
    "bot.cogs.emotions",
    "bot.cogs.sheet",
    "bot.cogs.table",
    "bot.cogs.settings",
)


class LastGaspBot(commands.Bot):
    """An unstarted bot; setup_hook connects and migrates the database, then loads the cogs."""

    rng: random.Random

    def __init__(self, *, database_url: str, rng: random.Random) -> None:
        super().__init__(
            command_prefix=commands.when_mentioned,  # no prefix commands: slash only
            intents=discord.Intents(guilds=True),  # no message content, no members
            help_command=None,
            tree_cls=LastGaspTree,
            allowed_contexts=app_commands.AppCommandContext(guild=True),
            allowed_installs=app_commands.AppInstallationType(guild=True),
            allowed_mentions=discord.AllowedMentions.none(),
        )
        self.database_url = database_url
        self.rng = rng
        self._db: Database | None = None

    @property
    def db(self) -> Database:
        if self._db is None:
            raise RuntimeError("the database is connected in setup_hook")
        return self._db

    async def setup_hook(self) -> None:
        self._db = await Database.connect(self.database_url)
        await self._db.upgrade()
        for extension in EXTENSIONS:
            await self.load_extension(extension)

    async def close(self) -> None:
        try:
            await super().close()
        finally:
            if self._db is not None:
                await self._db.close()
                self._db = None


def create_bot(
    database_url: str = DEFAULT_DATABASE_URL, rng: random.Random | None = None
) -> LastGaspBot:
    """The bot, unstarted. `rng` is the one random source of every roll (D-5)."""
    return LastGaspBot(database_url=database_url, rng=rng or random.SystemRandom())
