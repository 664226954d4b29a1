"""/turn, /early, /react, /push, /spend (seed 001: Stamina; C-3 start of turn)."""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from bot.cogs.common import CHARACTER_OR_ACTIVE, CharacterName, character_autocomplete, run_play
from bot.services import play

MAX_SPEND = 20  # S-6, S-7 (COMMANDS.md)
MAX_TEXT = 200


class Stamina(commands.Cog):
    @app_commands.command(name="turn", description="Start of turn: reset the reaction cost (C-3)")
    @app_commands.guild_only()
    @app_commands.describe(character=CHARACTER_OR_ACTIVE)
    @app_commands.autocomplete(character=character_autocomplete)
    async def turn(
        self, interaction: discord.Interaction, character: CharacterName | None = None
    ) -> None:
        await run_play(interaction, play.turn, character=character)

    @app_commands.command(
        name="early", description="Spend 1 Stamina to act before the enemy this round (S-4)"
    )
    @app_commands.guild_only()
    @app_commands.describe(character=CHARACTER_OR_ACTIVE)
    @app_commands.autocomplete(character=character_autocomplete)
    async def early(
        self, interaction: discord.Interaction, character: CharacterName | None = None
    ) -> None:
        await run_play(interaction, play.early, character=character)

    @app_commands.command(name="react", description="Take a reaction at its rising cost (S-5)")
    @app_commands.guild_only()
    @app_commands.describe(character=CHARACTER_OR_ACTIVE, what="What the reaction is, e.g. dodge")
    @app_commands.autocomplete(character=character_autocomplete)
    async def react(
        self,
        interaction: discord.Interaction,
        character: CharacterName | None = None,
        what: app_commands.Range[str, 1, MAX_TEXT] | None = None,
    ) -> None:
        await run_play(interaction, play.react, character=character, what=what)

    @app_commands.command(
        name="push", description="Spend Stamina for +1 per point on a Check (S-6)"
    )
    @app_commands.guild_only()
    @app_commands.describe(
        amount="Stamina to spend, 1 to 20: +1 on the Check per point",
        character=CHARACTER_OR_ACTIVE,
        roll="Let the bot roll the Check: a dice expression, e.g. 1d8",
        target="The number the Check must reach",
        what="What the Check is for",
    )
    @app_commands.autocomplete(character=character_autocomplete)
    async def push(
        self,
        interaction: discord.Interaction,
        amount: app_commands.Range[int, 1, MAX_SPEND],
        character: CharacterName | None = None,
        roll: app_commands.Range[str, 1, 100] | None = None,
        target: int | None = None,
        what: app_commands.Range[str, 1, MAX_TEXT] | None = None,
    ) -> None:
        await run_play(
            interaction,
            play.push,
            amount=amount,
            character=character,
            roll=roll,
            target=target,
            what=what,
        )

    @app_commands.command(
        name="spend", description="Spend Stamina on anything else: abilities, casting… (S-7)"
    )
    @app_commands.guild_only()
    @app_commands.describe(
        amount="Stamina to spend, 1 to 20",
        reason="What it is spent on, e.g. Channel Casting",
        character=CHARACTER_OR_ACTIVE,
    )
    @app_commands.autocomplete(character=character_autocomplete)
    async def spend(
        self,
        interaction: discord.Interaction,
        amount: app_commands.Range[int, 1, MAX_SPEND],
        reason: app_commands.Range[str, 1, MAX_TEXT],
        character: CharacterName | None = None,
    ) -> None:
        await run_play(interaction, play.spend, amount=amount, reason=reason, character=character)


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(Stamina())
