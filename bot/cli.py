"""`python -m bot run | sync [--guild ID] | migrate | console [--seed N]`."""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys

import discord

from bot.config import Settings

NO_TOKEN = "DISCORD_TOKEN is not set: set it in the environment or in a .env file"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m bot", description="Last Gasp, a Discord bot for character state."
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands.add_parser(
        "run", help="connect to Discord (without DISCORD_TOKEN: the offline console)"
    )
    sync = commands.add_parser("sync", help="register the slash commands with Discord")
    sync.add_argument(
        "--guild", type=int, help="register to this one server (instant) instead of globally"
    )
    commands.add_parser("migrate", help="bring the database schema up to date")
    console = commands.add_parser("console", help="an offline session in the terminal")
    console.add_argument("--seed", type=int, help="seed the dice, to replay a session")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    settings = Settings()
    command = args.command or "run"
    quiet = command == "console" or (command == "run" and not settings.discord_token)
    _configure_logging(settings.log_level, quiet=quiet)
    if command == "migrate":
        return asyncio.run(migrate(settings))
    if command == "console":
        seed = args.seed if args.seed is not None else settings.seed
        return _console(settings, seed)
    if not settings.discord_token:
        if command == "sync":
            print(f"error: {NO_TOKEN} to register the commands.", file=sys.stderr)
            return 2
        print(
            f"{NO_TOKEN}; starting the offline console on {settings.database_url} instead.",
            file=sys.stderr,
        )
        return _console(settings, settings.seed)
    if command == "sync":
        guild = args.guild if args.guild is not None else settings.dev_guild_id
        return asyncio.run(sync(settings, guild))
    return asyncio.run(run(settings))


def _console(settings: Settings, seed: int | None) -> int:
    from bot.console import run_console

    return asyncio.run(run_console(settings.database_url, seed=seed))


def _configure_logging(level: str, *, quiet: bool) -> None:
    # The console's terminal is for replies: only warnings and errors go to stderr there.
    if quiet and level != "DEBUG":
        level = "WARNING"
    logging.basicConfig(
        level=level, format="%(asctime)s %(levelname)s %(name)s: %(message)s", stream=sys.stderr
    )
    # Last Gasp has no voice: the client's warning about voice libraries is noise.
    logging.getLogger("discord.client").setLevel(logging.ERROR)


async def run(settings: Settings) -> int:
    from bot.app import create_bot

    bot = create_bot(settings.database_url)
    async with bot:
        try:
            await bot.start(settings.discord_token or "")
        except discord.LoginFailure:
            print(
                "error: Discord refused DISCORD_TOKEN: copy the bot's token again.", file=sys.stderr
            )
            return 2
    return 0


async def sync(settings: Settings, guild_id: int | None) -> int:
    from bot.app import create_bot

    bot = create_bot(settings.database_url)
    async with bot:
        try:
            await bot.login(settings.discord_token or "")  # runs setup_hook: the cogs load
        except discord.LoginFailure:
            print(
                "error: Discord refused DISCORD_TOKEN: copy the bot's token again.", file=sys.stderr
            )
            return 2
        if guild_id is not None:
            guild = discord.Object(id=guild_id)
            bot.tree.copy_global_to(guild=guild)
            registered = await bot.tree.sync(guild=guild)
            print(f"Registered {len(registered)} commands to server {guild_id} (instant).")
        else:
            registered = await bot.tree.sync()
            print(f"Registered {len(registered)} commands globally (may take up to an hour).")
    return 0


async def migrate(settings: Settings) -> int:
    from bot.db import Database

    db = await Database.connect(settings.database_url)
    try:
        await db.upgrade()
    finally:
        await db.close()
    print(f"The database at {settings.database_url} is up to date.")
    return 0
