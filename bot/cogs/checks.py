"""/check: an Action or Reaction Roll with every modifier of the sheet (K-1..K-5)."""

from __future__ import annotations

from typing import Literal

from discord import app_commands
from discord.ext import commands

from bot.cogs.common import (
    CHARACTER_OR_ACTIVE,
    CharacterName,
    Interaction,
    character_autocomplete,
    send_acted,
)
from bot.cogs.stamina import MAX_TEXT
from bot.people import caller_of
from bot.services import checks
from rules.checks import CheckKind
from rules.stamina import MAX_SPEND


class Checks(commands.Cog):
    @app_commands.command(
        name="check", description="An Action or Reaction Roll with the sheet's modifiers (K-1)"
    )
    @app_commands.describe(
        roll="The dice, e.g. 1d20+2 (default: the server's check_die)",
        kind="action (default) or reaction: which column of the injury applies (H-3)",
        target="The number the roll must reach",
        push="Stamina spent first for +1 each, 1 to 20, on an Action Roll (S-6)",
        related="The action is related to the character's Breakdown: Disadvantage (K-3)",
        daring="A Daring Throw: then offers to raise an emotion (K-4)",
        nearby_breakdown="Outside combat: an ally nearby is in a Breakdown, -3 (E-6, K-2)",
        what="What the roll is for",
        character=CHARACTER_OR_ACTIVE,
    )
    @app_commands.autocomplete(character=character_autocomplete)
    async def check(
        self,
        interaction: Interaction,
        roll: app_commands.Range[str, 1, 100] | None = None,
        kind: Literal["action", "reaction"] = "action",
        target: app_commands.Range[int, -1000, 1000] | None = None,
        push: app_commands.Range[int, 1, MAX_SPEND] | None = None,
        related: bool = False,
        daring: bool = False,
        nearby_breakdown: bool = False,
        what: app_commands.Range[str, 1, MAX_TEXT] | None = None,
        character: CharacterName | None = None,
    ) -> None:
        bot = interaction.client
        acted = await checks.check(
            bot.db,
            caller_of(interaction),
            bot.rng,
            character=character,
            kind=CheckKind(kind),
            roll=roll,
            target=target,
            push=push,
            related=related,
            daring=daring,
            nearby_breakdown=nearby_breakdown,
            what=what,
        )
        await send_acted(interaction, acted)


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(Checks())
