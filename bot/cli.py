"""`python -m bot run | sync [--guild ID] | migrate | console [--seed N] | health`."""

from __future__ import annotations

import argparse
import asyncio
import sys

import discord
from pydantic import ValidationError

from bot.config import Settings
from bot.logs import configure_logging

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
    commands.add_parser(
        "health",
        help="exit 0 if the database answers (and, with HEALTH_PORT, the running bot is ready)",
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        settings = Settings()
    except ValidationError as error:
        print(f"error: the settings are wrong: {error}", file=sys.stderr)
        return 2
    command = args.command or "run"
    quiet = command in ("console", "health") or (command == "run" and not settings.discord_token)
    configure_logging(settings.log_level, log_format=settings.log_format, quiet=quiet)
    if command == "health":
        return asyncio.run(health(settings))
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


async def run(settings: Settings) -> int:
    from bot.app import create_bot
    from bot.health import HealthServer

    bot = create_bot(
        settings.database_url, shard_count=settings.shard_count, shard_ids=settings.shard_ids
    )
    server = None
    if settings.health_port is not None:
        server = HealthServer(bot, settings.health_host, settings.health_port)
        try:
            await server.start()
        except OSError as error:  # most often: the port is taken
            print(
                f"error: cannot serve the health check on port {settings.health_port} "
                f"({error.strerror or error}): set HEALTH_PORT to a free port, or unset it.",
                file=sys.stderr,
            )
            await server.close()
            return 2
    try:
        async with bot:
            await bot.start(settings.discord_token or "")
    except discord.LoginFailure:
        print("error: Discord refused DISCORD_TOKEN: copy the bot's token again.", file=sys.stderr)
        return 2
    finally:
        if server is not None:
            await server.close()
    return 0


async def sync(settings: Settings, guild_id: int | None) -> int:
    from bot.app import create_bot

    bot = create_bot(settings.database_url)  # registering commands needs no shards
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


async def health(settings: Settings) -> int:
    from bot.health import probe

    problems = await probe(settings.database_url, settings.health_host, settings.health_port)
    for problem in problems:
        print(f"unhealthy: {problem}", file=sys.stderr)
    if not problems:
        print("healthy")
    return 1 if problems else 0
