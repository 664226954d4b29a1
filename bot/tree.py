"""The command tree, on discord.py's public hooks: `interaction_check` (this process's shards,
the member's rate, guild only, well-formed options, the 3-second clock), `on_error` (refusals
private, bugs logged), and the `app_command_completion` that discord.py dispatches (handled in
`command_completed`); one log line per command however it ends."""

from __future__ import annotations

import asyncio
import logging
import time
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands

from bot import replies
from bot.db.busy import Busy
from bot.failures import (
    ERROR,
    NOT_IN_A_SERVER,
    OK,
    REFUSED,
    REPLY_ERRORS,
    SOMETHING_WENT_WRONG,
    answer_failure,
)
from bot.lifecycle import admitted
from bot.limits import SLOWED, slowed
from bot.logs import log_command
from bot.options import problem
from bot.shards import served

if TYPE_CHECKING:
    from bot.app import LastGaspBot

log = logging.getLogger("lastgasp.tree")

STARTED = "lastgasp.started"  # in interaction.extras: when the bot took the interaction
AUTOCOMPLETE_OUTCOME = "lastgasp.autocomplete"  # in interaction.extras: set when it failed


def _logged(interaction: discord.Interaction[Any], outcome: str) -> None:
    started = interaction.extras.get(STARTED)
    seconds = time.perf_counter() - started if started is not None else 0.0
    if interaction.type is discord.InteractionType.application_command:
        log_command(interaction, outcome=outcome, latency_ms=seconds * 1000)
        interaction.client.metrics.command(interaction, outcome, seconds)
    elif interaction.type is discord.InteractionType.autocomplete:  # counted apart, not logged
        interaction.client.metrics.autocomplete(interaction, outcome, seconds)


def _counted_when_done(interaction: discord.Interaction[Any]) -> None:
    """An autocomplete has no completion event: counted when the task running it ends."""
    task = asyncio.current_task()
    if task is not None:
        task.add_done_callback(
            lambda _: _logged(interaction, interaction.extras.get(AUTOCOMPLETE_OUTCOME, OK))
        )


class LastGaspTree(app_commands.CommandTree["LastGaspBot"]):
    async def interaction_check(self, interaction: discord.Interaction[LastGaspBot], /) -> bool:
        if not served(interaction):
            return False  # another process's guild: it answers
        interaction.extras[STARTED] = time.perf_counter()
        if not await admitted(interaction):  # tracked; while draining, told and refused
            _logged(interaction, REFUSED)
            return False
        if await slowed(interaction):  # over the member's rate: told at once, nothing done
            _logged(interaction, SLOWED)
            return False
        autocomplete = interaction.type is discord.InteractionType.autocomplete
        try:
            wrong = self._refusal(interaction)
        except Exception:  # a payload discord.py itself could not read
            log.warning("a malformed interaction arrived (guild %s)", interaction.guild_id)
            wrong = "This command arrived garbled. Try it again."
        if wrong is None:
            if not autocomplete:
                replies.begin(interaction)
            else:
                _counted_when_done(interaction)
            return True
        try:
            if autocomplete:
                await interaction.response.autocomplete([])
            else:
                await replies.refuse(interaction, wrong)
        except REPLY_ERRORS as error:
            log.warning("could not answer a refused interaction: %r", error)
        _logged(interaction, REFUSED)
        return False

    @staticmethod
    def _refusal(interaction: discord.Interaction[LastGaspBot]) -> str | None:
        if interaction.guild_id is None:
            return NOT_IN_A_SERVER
        return problem(interaction)

    async def on_error(
        self, interaction: discord.Interaction[LastGaspBot], error: app_commands.AppCommandError, /
    ) -> None:
        replies.end(interaction)
        original = error.original if isinstance(error, app_commands.CommandInvokeError) else error
        if interaction.type is discord.InteractionType.autocomplete:
            log.warning("autocomplete failed (guild %s): %r", interaction.guild_id, original)
            interaction.extras[AUTOCOMPLETE_OUTCOME] = ERROR
            if not interaction.response.is_done():
                await interaction.response.autocomplete([])
            return
        if isinstance(original, Busy):
            interaction.client.metrics.busy("command")
        _logged(interaction, await answer_failure(interaction, original))
        replies.done(interaction)


def command_completed(interaction: discord.Interaction[LastGaspBot]) -> None:
    """discord.py's `app_command_completion` (a command ran without raising), handled where it
    is dispatched (bot/app.py), not by a listener: discord.py starts a task for each listener,
    one more a command. The log line; an apology, in a task of its own, only if the command
    somehow ended without an answer."""
    try:
        replies.end(interaction)
        if not replies.answered(interaction):
            task = asyncio.get_running_loop().create_task(_apologise(interaction))
            _apologies.add(task)  # held until done: the loop keeps only a weak reference
            task.add_done_callback(_apologies.discard)
            return
        _logged(interaction, OK)
        replies.done(interaction)
    except Exception:  # as a listener's would be: logged, never the command's failure
        log.exception("the end of a command failed")


_apologies: set[asyncio.Task[None]] = set()


async def _apologise(interaction: discord.Interaction[LastGaspBot]) -> None:
    command = interaction.command
    log.error("/%s ended without answering", command.qualified_name if command else "?")
    try:
        await replies.refuse(interaction, SOMETHING_WENT_WRONG)
    except REPLY_ERRORS as error:
        log.warning("could not answer an unanswered command: %r", error)
    _logged(interaction, ERROR)
    replies.done(interaction)
