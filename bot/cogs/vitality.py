"""/damage, /heal, /recover, /aid, /odds (seed 000: Vitality, recovery, first aid)."""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from bot.cogs.common import (
    CHARACTER_OR_ACTIVE,
    CharacterName,
    caller_of,
    character_autocomplete,
    reply,
    run_play,
    services,
)
from bot.render.odds import odds_embed
from bot.services import play

MAX_AMOUNT = 10_000  # H-1, H-2


class Vitality(commands.Cog):
    @app_commands.command(name="damage", description="Subtract VIT from a character (H-1)")
    @app_commands.guild_only()
    @app_commands.describe(amount="Damage taken, 1 to 10000", character=CHARACTER_OR_ACTIVE)
    @app_commands.autocomplete(character=character_autocomplete)
    async def damage(
        self,
        interaction: discord.Interaction,
        amount: app_commands.Range[int, 1, MAX_AMOUNT],
        character: CharacterName | None = None,
    ) -> None:
        await run_play(interaction, play.damage, amount=amount, character=character)

    @app_commands.command(name="heal", description="Magic healing (H-2)")
    @app_commands.guild_only()
    @app_commands.describe(amount="Points of healing, 1 to 10000", character=CHARACTER_OR_ACTIVE)
    @app_commands.autocomplete(character=character_autocomplete)
    async def heal(
        self,
        interaction: discord.Interaction,
        amount: app_commands.Range[int, 1, MAX_AMOUNT],
        character: CharacterName | None = None,
    ) -> None:
        await run_play(interaction, play.heal, amount=amount, character=character)

    @app_commands.command(
        name="recover", description="The recovery roll due now: Unconscious, Critical or Last Gasp"
    )
    @app_commands.guild_only()
    @app_commands.describe(
        character=CHARACTER_OR_ACTIVE,
        faces="Faces rolled on physical dice, one letter per die: M, H or C (e.g. C H M)",
    )
    @app_commands.autocomplete(character=character_autocomplete)
    async def recover(
        self,
        interaction: discord.Interaction,
        character: CharacterName | None = None,
        faces: app_commands.Range[str, 1, 100] | None = None,
    ) -> None:
        await run_play(interaction, play.recover, character=character, faces=faces)

    @app_commands.command(
        name="aid", description="First aid: advantage on the next recovery roll (F-1)"
    )
    @app_commands.guild_only()
    @app_commands.describe(
        character="The character receiving aid",
        success="The Medicine check you rolled succeeded",
        roll="Or let the bot roll the Medicine check: a dice expression, e.g. 1d20+3",
        target="The number the Medicine check must reach",
    )
    @app_commands.autocomplete(character=character_autocomplete)
    async def aid(
        self,
        interaction: discord.Interaction,
        character: CharacterName,
        success: bool | None = None,
        roll: app_commands.Range[str, 1, 100] | None = None,
        target: int | None = None,
    ) -> None:
        await run_play(
            interaction, play.aid, character=character, success=success, roll=roll, target=target
        )

    @app_commands.command(
        name="odds", description="Exact chances of the next recovery roll and the rounds after"
    )
    @app_commands.guild_only()
    @app_commands.describe(character=CHARACTER_OR_ACTIVE)
    @app_commands.autocomplete(character=character_autocomplete)
    async def odds(
        self, interaction: discord.Interaction, character: CharacterName | None = None
    ) -> None:
        db, _ = services(interaction)
        odds = await play.recovery_odds(db, caller_of(interaction), character=character)
        await reply(interaction, embeds=[odds_embed(odds)])


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(Vitality())
