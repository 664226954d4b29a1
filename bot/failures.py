"""What a user is told when a command or a click does not go through: a refusal's own text
(private, escaped), or a bug logged and an apology that does not claim nothing changed."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import aiohttp
import discord
from discord import app_commands

from bot.db.errors import DATABASE_DOWN
from bot.logs import component_name
from bot.options import leaf_options
from bot.render.common import escape
from bot.replies import refuse
from rules.errors import RuleError

log = logging.getLogger("lastgasp.errors")

# Neither text claims that nothing changed: a failure after the commit (a reply Discord did not
# take) would make the player run the command twice.
SOMETHING_WENT_WRONG = (
    "Something went wrong on our side. Before you try again, check /history: it shows whether "
    "the change was made. If it keeps happening, tell the bot's admin the time and the command."
)
REPLY_FAILED = (
    "Discord did not take the bot's reply. Check /history before running the command again: "
    "it shows whether the change was made."
)
NOT_IN_A_SERVER = "Last Gasp's commands work in a server channel, not in direct messages."
OUT_OF_DATE = "This command is out of date. Ask the server admin to run `python -m bot sync`."
EXPIRED = "This button has expired: run the command again."
EXPIRED_MENU = "This menu has expired: nothing was done. Run the command again."
ONLY_GM = "Only the GM can do that (P-3). Ask a member with Manage Server or the GM role."
# Raised by sending the reply: Discord refused it, or did not answer in time.
REPLY_ERRORS = (discord.HTTPException, asyncio.TimeoutError, aiohttp.ClientError)

# How an interaction ended, for its log line.
OK, REFUSED, ERROR, EXPIRED_OUTCOME = "ok", "refused", "error", "expired"


def refusal_text(error: BaseException) -> str | None:
    """What to tell the user for an expected failure; None for a bug."""
    if isinstance(error, RuleError):
        return error.render(escape)
    if isinstance(error, app_commands.TransformerError):
        return (
            f"`{str(error.value)[:40].replace('`', '')}` is not a valid {error.type.name} here. "
            "Check the option and retry."
        )
    if isinstance(error, app_commands.NoPrivateMessage):
        return NOT_IN_A_SERVER
    if isinstance(error, app_commands.MissingPermissions):
        return ONLY_GM
    if isinstance(error, app_commands.CheckFailure):
        return "You can't use this command here."
    if isinstance(error, app_commands.CommandNotFound | app_commands.CommandSignatureMismatch):
        return OUT_OF_DATE
    return None


async def answer_failure(interaction: discord.Interaction[Any], error: BaseException) -> str:
    """Answer a failed command or click privately: a refusal's own text, a bug logged, a
    database out of reach told and logged. Returns the outcome for the log line (refused or
    error)."""
    message = refusal_text(error)
    outcome = ERROR if message is None else REFUSED
    if isinstance(error, DATABASE_DOWN):  # told to the member, and to the operator
        outcome = ERROR
        log.warning("%s %s: %r", _subject(interaction), error.logged, error.__cause__)
    if message is None and isinstance(error, REPLY_ERRORS):
        log.warning(
            "the reply to %s failed (guild %s, user %s): %r",
            _subject(interaction),
            interaction.guild_id,
            interaction.user.id if interaction.user else "?",
            error,
        )
        message = REPLY_FAILED
    elif message is None:
        log.error(
            "%s failed (guild %s, channel %s, user %s, options %s)",
            _subject(interaction),
            interaction.guild_id,
            interaction.channel_id,
            interaction.user.id if interaction.user else "?",
            {o.get("name"): o.get("value") for o in leaf_options(interaction)},
            exc_info=error,
        )
        message = SOMETHING_WENT_WRONG
    try:
        await refuse(interaction, message)
    except REPLY_ERRORS as failure:
        log.warning("could not tell the user about the error either: %r", failure)
    return outcome


def _subject(interaction: discord.Interaction[Any]) -> str:
    """`command /damage` or `button recover`, for the error log."""
    if interaction.type is discord.InteractionType.component:
        return f"button {component_name(interaction)}"
    command = interaction.command
    return "command /" + (command.qualified_name if command else "?")
