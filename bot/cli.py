"""`python -m bot run | sync [--guild ID] | migrate | console [--seed N] | health | web`.

A failure the user can do something about prints one line saying what is wrong and what to do
(a JSON line with LOG_FORMAT=json), never a traceback: exit 2 when the settings or the command
line need fixing, 1 when something failed at run time (bot/cli_failures.py)."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Awaitable
from typing import TYPE_CHECKING

import discord
from pydantic import ValidationError

from bot import loop
from bot.cli_failures import CONFIGURATION, Failure, explain, print_failure
from bot.config import Settings, describe_settings_error, sqlite_path
from bot.logs import configure_logging

if TYPE_CHECKING:
    from bot.lifecycle import StopSignals

NO_TOKEN = "DISCORD_TOKEN is not set: set it in the environment or in a .env file"
INTERRUPTED = 130  # the shell's code for a process ended by Ctrl-C


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
    revision = commands.add_parser(
        "revision", help="developers: write a new migration from the models' differences"
    )
    revision.add_argument("-m", "--message", required=True, help="what the migration does")
    console = commands.add_parser("console", help="an offline session in the terminal")
    console.add_argument("--seed", type=int, help="seed the dice, to replay a session")
    commands.add_parser(
        "health",
        help="exit 0 if the database answers (and, with HEALTH_PORT, the running bot is ready)",
    )
    web = commands.add_parser(
        "web",
        help="serve the campaign page on its own (WEB_PORT, default 8081; needs WEB_SECRET)",
    )
    # The bot's own, starting its page process (bot/web/process.py): not for people.
    web.add_argument("--listen-fd", type=int, help=argparse.SUPPRESS)
    web.add_argument("--names-fd", type=int, help=argparse.SUPPRESS)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        settings = Settings()
    except ValidationError as error:
        # No settings to read LOG_FORMAT from: the environment's own, if it is json.
        json_lines = os.environ.get("LOG_FORMAT", "").strip().lower() == "json"
        print_failure(Failure(describe_settings_error(error), CONFIGURATION), json_lines=json_lines)
        return CONFIGURATION
    try:
        return _command(args, settings)
    except Failure as failure:
        print_failure(failure, json_lines=settings.log_format == "json")
        return failure.code
    except KeyboardInterrupt:  # Ctrl-C outside `run`'s own handling (e.g. while starting)
        return INTERRUPTED


def _command(args: argparse.Namespace, settings: Settings) -> int:
    command = args.command or "run"
    quiet = command in ("console", "health") or (command == "run" and not settings.discord_token)
    configure_logging(settings.log_level, log_format=settings.log_format, quiet=quiet)
    if command == "health":
        return loop.run(health(settings))
    if command == "sync" and not settings.discord_token:
        raise Failure(f"{NO_TOKEN} to register the commands.", CONFIGURATION)
    check_database_folder(settings.database_url)
    if command == "migrate":
        return loop.run(_failing_in_one_line(migrate(settings)))
    if command == "revision":
        return loop.run(new_revision(args.message))
    if command == "console":
        seed = args.seed if args.seed is not None else settings.seed
        return _console(settings, seed)
    if command == "web":
        return loop.run(_failing_in_one_line(web(settings, args.listen_fd, args.names_fd)))
    if not settings.discord_token:
        print(
            f"{NO_TOKEN}; starting the offline console on {settings.database_url} instead.",
            file=sys.stderr,
        )
        return _console(settings, settings.seed)
    if command == "sync":
        guild = args.guild if args.guild is not None else settings.dev_guild_id
        return loop.run(sync(settings, guild))
    return loop.run(run(settings))


def check_database_folder(database_url: str) -> None:
    """An SQLite file in a folder that does not exist cannot be created: say so up front."""
    path = sqlite_path(database_url)
    if path is not None and not path.parent.is_dir():
        path = path.resolve()
        raise Failure(
            f"DATABASE_URL: the folder of the SQLite database {path} does not exist; create "
            f"{path.parent}, or set DATABASE_URL to a file in a folder that exists",
            CONFIGURATION,
        )


async def _failing_in_one_line(work: Awaitable[int]) -> int:
    """`await work`, its Discord, network and database errors turned into a Failure."""
    try:
        return await work
    except Exception as error:
        failure = explain(error)
        if failure is None:
            raise
        raise failure from None


def _console(settings: Settings, seed: int | None) -> int:
    from bot.console import run_console

    return loop.run(_failing_in_one_line(run_console(settings.database_url, seed=seed)))


async def run(settings: Settings) -> int:
    """Connect and serve until SIGTERM or SIGINT, then stop gracefully (bot/lifecycle.py)."""
    from bot.lifecycle import StopSignals

    with StopSignals() as signals:  # from the start: a signal while starting stops cleanly
        return await _run(settings, signals)


async def _run(settings: Settings, signals: StopSignals) -> int:
    from bot.app import create_bot
    from bot.health import HealthServer
    from bot.lifecycle import serve
    from bot.web.serve import beside

    bot = create_bot(
        settings.database_url,
        rate_limit=settings.rate_limit,
        shard_count=settings.shard_count,
        shard_ids=settings.shard_ids,
    )
    server = None
    if settings.health_port is not None:
        server = HealthServer(bot, settings.health_host, settings.health_port)
        try:
            await server.start()
        except OSError as error:  # most often: the port is taken
            await server.close()
            return _fail(
                settings,
                Failure(
                    f"cannot serve the health check on port {settings.health_port} "
                    f"({error.strerror or error}): set HEALTH_PORT to a free port, or unset it.",
                    CONFIGURATION,
                ),
            )
    page = None
    try:
        page = await beside(bot, settings)  # the campaign page (bot/web/serve.py)
        if page is not None:
            signals.on_stop.append(page.stop)  # its stop beside the bot's drain, not after
        async with bot:
            if not signals.stop.is_set():  # stopped while starting: nothing to serve
                await serve(bot, settings.discord_token or "", signals)
    except Failure as refused:
        return _fail(settings, refused)
    except Exception as error:
        failure = explain(error)
        if failure is None:
            raise
        return _fail(settings, failure)
    finally:
        if page is not None:
            await page.close()
        if server is not None:
            await server.close()
    return 0


async def web(settings: Settings, listen_fd: int | None, names_fd: int | None) -> int:
    """The campaign page on its own, on the database of the settings, until a signal (or,
    started by the bot, until the bot is gone)."""
    from bot.lifecycle import StopSignals
    from bot.web.serve import alone

    with StopSignals() as signals:
        return await alone(settings, signals, listen_fd=listen_fd, names_fd=names_fd)


async def sync(settings: Settings, guild_id: int | None) -> int:
    from bot import emoji
    from bot.app import create_bot

    bot = create_bot(settings.database_url)  # registering commands needs no shards
    bot.look_up_faces = False  # this run registers them
    try:
        async with bot:
            await bot.login(settings.discord_token or "")  # runs setup_hook: the cogs load
            if guild_id is not None:
                guild = discord.Object(id=guild_id)
                bot.tree.copy_global_to(guild=guild)
                registered = await bot.tree.sync(guild=guild)
                print(f"Registered {len(registered)} commands to server {guild_id} (instant).")
            else:
                registered = await bot.tree.sync()
                print(f"Registered {len(registered)} commands globally (may take up to an hour).")
            added = await emoji.register(bot)
            print(
                f"Registered the dice emoji: {', '.join(added)}."
                if added
                else "The dice emoji were registered already."
            )
    except Exception as error:
        failure = explain(error, guild_id=guild_id)
        if failure is None:
            raise
        return _fail(settings, failure)
    return 0


async def migrate(settings: Settings) -> int:
    from bot.db.database import Database

    db = await Database.connect(settings.database_url)
    try:
        await db.upgrade()
    finally:
        await db.close()
    print(f"The database at {settings.database_url} is up to date.")
    return 0


async def new_revision(message: str) -> int:
    from bot.db.migrate import write_revision

    path = await write_revision(message)
    print(f"Wrote {path}: read it, then run the migration tests (docs/development.md).")
    return 0


async def health(settings: Settings) -> int:
    from bot.health import probe

    problems = await probe(settings.database_url, settings.health_host, settings.health_port)
    for problem in problems:
        print(f"unhealthy: {problem}", file=sys.stderr)
    if not problems:
        print("healthy")
    return 1 if problems else 0


def _fail(settings: Settings, failure: Failure) -> int:
    print_failure(failure, json_lines=settings.log_format == "json")
    return failure.code
