"""The command tree: this process's shards only, one error handler (refusals are short and
private, bugs are logged; clicks share it), and one log line per command."""

from __future__ import annotations

import asyncio
import logging
import time

import aiohttp
import discord
from discord import app_commands

from bot.lifecycle import admitted  # lifecycle
from bot.logs import component_name, log_command
from bot.options import bad_option, leaf_options
from bot.shards import served
from rules.outcome import RuleError

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
# Raised by sending the reply: Discord refused it, or did not answer in time.
_REPLY_ERRORS = (discord.HTTPException, asyncio.TimeoutError, aiohttp.ClientError)
NOT_IN_A_SERVER = "Last Gasp's commands work in a server channel, not in direct messages."
OUT_OF_DATE = "This command is out of date. Ask the server admin to run `python -m bot sync`."

# How an interaction ended, kept in interaction.extras for the command log line.
OUTCOME = "lastgasp_outcome"
OK, REFUSED, ERROR = "ok", "refused", "error"
EXPIRED = "expired"  # a click on a button no live prompt owns (bot/prompts.py)
NOT_SERVED = "not served"  # another process's shard: no answer, no command line


class LastGaspTree(app_commands.CommandTree):
    """Guild-only at the door, only this process's shards, every failure answered, and one
    log line per command."""

    async def _call(self, interaction: discord.Interaction, /) -> None:
        # discord.py runs every command and autocomplete through here: the one place that sees
        # each command end, however it ends.
        started = time.perf_counter()
        outcome = ERROR
        try:
            await super()._call(interaction)
            failed = ERROR if interaction.command_failed else OK
            outcome = interaction.extras.get(OUTCOME, failed)
        except app_commands.AppCommandError as error:
            # Raised before any command ran (one the bot does not know): on_error answers next.
            outcome = REFUSED if refusal_text(error) is not None else ERROR
            raise
        finally:
            command = interaction.type is discord.InteractionType.application_command
            if command and outcome != NOT_SERVED:
                latency_ms = (time.perf_counter() - started) * 1000
                log_command(interaction, outcome=outcome, latency_ms=latency_ms)

    async def interaction_check(self, interaction: discord.Interaction, /) -> bool:
        if not served(interaction):
            interaction.extras[OUTCOME] = NOT_SERVED
            return False
        if not await admitted(interaction):  # lifecycle: tracked; refused while draining
            interaction.extras[OUTCOME] = REFUSED  # lifecycle
            return False  # lifecycle
        problem = NOT_IN_A_SERVER if interaction.guild_id is None else bad_option(interaction)
        if problem is None:
            return True
        interaction.extras[OUTCOME] = REFUSED
        if interaction.type is discord.InteractionType.autocomplete:
            await interaction.response.autocomplete([])
        else:
            await send_ephemeral(interaction, problem)
        return False

    async def on_error(
        self, interaction: discord.Interaction, error: app_commands.AppCommandError, /
    ) -> None:
        original = error.original if isinstance(error, app_commands.CommandInvokeError) else error
        if interaction.type is discord.InteractionType.autocomplete:
            # A malformed autocomplete request: no message can answer it, only choices.
            log.warning("autocomplete failed (guild %s): %s", interaction.guild_id, original)
            if not interaction.response.is_done():
                await interaction.response.autocomplete([])
            return
        interaction.extras[OUTCOME] = await answer_failure(interaction, original)


async def answer_failure(interaction: discord.Interaction, error: BaseException) -> str:
    """Answer a failed command or click privately: a refusal's own text, a bug logged. Returns
    the outcome for the log line (refused or error)."""
    kind, name = _subject(interaction)
    message = refusal_text(error)
    outcome = ERROR if message is None else REFUSED
    if message is None and isinstance(error, _REPLY_ERRORS):
        log.warning(
            "the reply to %s failed (guild %s, user %s): %r",
            name,
            interaction.guild_id,
            interaction.user.id if interaction.user else "?",
            error,
        )
        message = REPLY_FAILED
    elif message is None:
        log.error(
            "%s %s failed (guild %s, channel %s, user %s, options %s)",
            kind,
            name,
            interaction.guild_id,
            interaction.channel_id,
            interaction.user.id if interaction.user else "?",
            _options(interaction),
            exc_info=error,
        )
        message = SOMETHING_WENT_WRONG
    try:
        await send_ephemeral(interaction, message)
    except _REPLY_ERRORS as failure:
        log.warning("could not tell the user about the error either: %r", failure)
    return outcome


def refusal_text(error: BaseException) -> str | None:
    """What to tell the user for an expected failure; None for a bug."""
    if isinstance(error, RuleError):
        return str(error)
    if isinstance(error, app_commands.TransformerError):
        return f"`{error.value}` is not a valid {error.type.name} here. Check the option and retry."
    if isinstance(error, app_commands.NoPrivateMessage):
        return NOT_IN_A_SERVER
    if isinstance(error, app_commands.MissingPermissions):
        return "Only the GM can do that (P-3). Ask a member with Manage Server or the GM role."
    if isinstance(error, app_commands.CommandOnCooldown):
        return f"Slow down: try again in {error.retry_after:.0f} s."
    if isinstance(error, app_commands.CheckFailure):
        return "You can't use this command here."
    if isinstance(error, app_commands.CommandNotFound | app_commands.CommandSignatureMismatch):
        return OUT_OF_DATE
    return None


async def send_ephemeral(interaction: discord.Interaction, text: str) -> None:
    """A private answer, as a followup if the interaction was already answered or deferred."""
    none = discord.AllowedMentions.none()
    if interaction.response.is_done():
        await interaction.followup.send(text, ephemeral=True, allowed_mentions=none)
    else:
        await interaction.response.send_message(text, ephemeral=True, allowed_mentions=none)


def _subject(interaction: discord.Interaction) -> tuple[str, str]:
    """("command", "/damage") or ("button", "delete:confirm"), for the error log."""
    if interaction.type is discord.InteractionType.component:
        return "button", component_name(interaction)
    return "command", "/" + (interaction.command.qualified_name if interaction.command else "?")


def _options(interaction: discord.Interaction) -> dict:
    return {o.get("name"): o.get("value") for o in leaf_options(interaction)}
