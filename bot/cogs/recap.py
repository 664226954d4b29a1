"""`/recap`: the story of the session from the event log, public. Thin: parse, call the
service, render. Anyone in the server may ask (it reads the table's public events, P-2)."""

from __future__ import annotations

from typing import Literal

from discord import app_commands
from discord.ext import commands

from bot import replies
from bot.cogs.common import Interaction
from bot.people import caller_of, faces_for
from bot.render.recap import recap_reply
from bot.services import recap as service
from rules.recap import HOURS_DEFAULT, HOURS_MAX


class RecapCog(commands.Cog, name="Recap"):
    @app_commands.command(
        name="recap", description="The story of the session from the event log, for the table"
    )
    @app_commands.describe(
        since="session (default): since the last recap · day: the in-game day · "
        "hours: the last N hours",
        hours=f"How many hours back, 1–{HOURS_MAX} (default {HOURS_DEFAULT}); alone, it means "
        "since:hours",
    )
    async def recap(
        self,
        interaction: Interaction,
        since: Literal["day", "session", "hours"] | None = None,
        hours: app_commands.Range[int, 1, HOURS_MAX] | None = None,
    ) -> None:
        told = await service.recap(interaction.client.db, caller_of(interaction), since, hours)
        await replies.deliver(interaction, recap_reply(told, faces_for(interaction)))


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(RecapCog())
