"""What went wrong, in one line for the person at the command line: a `Failure` says what is
wrong and what to do, with its exit code (2: fix the settings or the command line; 1: something
failed at run time). `explain` turns the exceptions of Discord, the network and the database into
one; anything else is a bug, and keeps its traceback."""

from __future__ import annotations

import logging
import sys
from typing import TextIO

import aiohttp
import discord
from sqlalchemy.exc import DBAPIError

from bot.logs import JsonFormatter

CONFIGURATION = 2  # exit code: the settings or the command line need fixing
RUNTIME = 1  # exit code: Discord, the network or the database failed

NETWORK_FIX = "check this machine's network, DNS and firewall (or proxy), then try again"
DATABASE_FIX = "check DATABASE_URL and that the database server is running, then try again"


class Failure(Exception):
    """One line saying what is wrong and what to do, and the exit code."""

    def __init__(self, message: str, code: int) -> None:
        super().__init__(message)
        self.message = " ".join(message.split())  # one line, whatever the causes said
        self.code = code


def print_failure(failure: Failure, *, json_lines: bool, stream: TextIO | None = None) -> None:
    """`error: …` on stderr, or with json_lines the same JSON object as every log line."""
    out = stream or sys.stderr
    if json_lines:
        record = logging.LogRecord(
            "lastgasp.cli", logging.ERROR, __file__, 0, failure.message, None, None
        )
        print(JsonFormatter().format(record), file=out, flush=True)
    else:
        print(f"error: {failure.message}", file=out, flush=True)


def explain(error: BaseException, *, guild_id: int | None = None) -> Failure | None:
    """The Failure an exception of Discord, the network or the database means; None for
    anything else (a bug). `guild_id`: the server commands were being registered to."""
    cause = error.__context__
    if isinstance(error, AttributeError) and cause is not None and explain(cause) is not None:
        # discord.py masks a failure of the first gateway connection with an AttributeError
        # of its retry loop (Rapptz/discord.py#10520): the failure is what it was handling.
        return explain(cause, guild_id=guild_id)
    if isinstance(error, discord.LoginFailure):
        return Failure(
            "DISCORD_TOKEN: Discord refused it; copy the bot's token again "
            "(Developer Portal → your application → Bot → Reset Token)",
            CONFIGURATION,
        )
    if isinstance(error, discord.Forbidden) and guild_id is not None and error.code == 50001:
        return Failure(
            f"Discord refused to register the commands to server {guild_id}: the bot is not in "
            "it (Missing Access); invite the bot there with the applications.commands scope, "
            "or check the server id",
            CONFIGURATION,
        )
    if isinstance(error, discord.DiscordServerError):
        return Failure(
            f"Discord is failing ({error.status} {error.text or 'server error'}); "
            "try again in a few minutes (https://discordstatus.com)",
            RUNTIME,
        )
    if isinstance(error, discord.HTTPException):
        return Failure(
            f"Discord answered {error.status} ({error.text or 'no reason given'}); "
            "check the token, the server id and the bot's permissions",
            RUNTIME,
        )
    if isinstance(error, discord.ConnectionClosed):
        return Failure(
            f"Discord closed the gateway connection (code {error.code}"
            f"{': ' + error.reason if error.reason else ''}); try again, and check the token "
            "and the bot's intents in the Developer Portal if it keeps happening",
            RUNTIME,
        )
    if isinstance(error, aiohttp.ClientError | discord.GatewayNotFound):
        return Failure(f"cannot reach Discord ({_reason(error)}); {NETWORK_FIX}", RUNTIME)
    if isinstance(error, DBAPIError):
        return Failure(
            f"the database failed ({_reason(error.orig or error)}); {DATABASE_FIX}", RUNTIME
        )
    if _is_database_error(error) or isinstance(error, OSError):
        return Failure(f"cannot reach the database ({_reason(error)}); {DATABASE_FIX}", RUNTIME)
    if isinstance(error, TimeoutError):
        return Failure(f"timed out ({_reason(error)}); {NETWORK_FIX}", RUNTIME)
    return None


def _is_database_error(error: BaseException) -> bool:
    import asyncpg  # the PostgreSQL driver's own errors (the hot path uses it directly)

    return isinstance(error, asyncpg.PostgresError | asyncpg.InterfaceError)


def _reason(error: BaseException) -> str:
    return str(error).strip() or type(error).__name__
