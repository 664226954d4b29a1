"""/turn, /early, /react, /push, /spend: Stamina and the start of turn (C-3)."""

from __future__ import annotations

from discord import app_commands
from discord.ext import commands

from bot.cogs.common import (
    CHARACTER_OR_ACTIVE,
    CharacterName,
    Interaction,
    character_autocomplete,
    send_acted,
)
from bot.people import caller_of
from bot.services import play

MAX_SPEND = 20  # S-6, S-7
MAX_TEXT = 200


class Stamina(commands.Cog):
    @app_commands.command(name="turn", description="Start of turn: reset the reaction cost (C-3)")
    @app_commands.describe(character=CHARACTER_OR_ACTIVE)
    @app_commands.autocomplete(character=character_autocomplete)
    async def turn(self, interaction: Interaction, character: CharacterName | None = None) -> None:
        bot = interaction.client
        acted = await play.turn(bot.db, caller_of(interaction), bot.rng, character=character)
        await send_acted(interaction, acted)

    @app_commands.command(
        name="early", description="Spend 1 Stamina to act before the enemy this round (S-4)"
    )
    @app_commands.describe(character=CHARACTER_OR_ACTIVE)
    @app_commands.autocomplete(character=character_autocomplete)
    async def early(self, interaction: Interaction, character: CharacterName | None = None) -> None:
        bot = interaction.client
        acted = await play.early(bot.db, caller_of(interaction), bot.rng, character=character)
        await send_acted(interaction, acted)

    @app_commands.command(name="react", description="Take a reaction at its rising cost (S-5)")
    @app_commands.describe(character=CHARACTER_OR_ACTIVE, what="What the reaction is, e.g. dodge")
    @app_commands.autocomplete(character=character_autocomplete)
    async def react(
        self,
        interaction: Interaction,
        character: CharacterName | None = None,
        what: app_commands.Range[str, 1, MAX_TEXT] | None = None,
    ) -> None:
        bot = interaction.client
        acted = await play.react(
            bot.db, caller_of(interaction), bot.rng, character=character, what=what
        )
        await send_acted(interaction, acted)

    @app_commands.command(
        name="push", description="Spend Stamina for +1 per point on a Check (S-6)"
    )
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
        interaction: Interaction,
        amount: app_commands.Range[int, 1, MAX_SPEND],
        character: CharacterName | None = None,
        roll: app_commands.Range[str, 1, 100] | None = None,
        target: app_commands.Range[int, -1000, 1000] | None = None,
        what: app_commands.Range[str, 1, MAX_TEXT] | None = None,
    ) -> None:
        bot = interaction.client
        acted = await play.push(
            bot.db,
            caller_of(interaction),
            bot.rng,
            amount=amount,
            character=character,
            roll=roll,
            target=target,
            what=what,
        )
        await send_acted(interaction, acted)

    @app_commands.command(
        name="spend", description="Spend Stamina on anything else: abilities, casting… (S-7)"
    )
    @app_commands.describe(
        amount="Stamina to spend, 1 to 20",
        reason="What it is spent on, e.g. Channel Casting",
        character=CHARACTER_OR_ACTIVE,
    )
    @app_commands.autocomplete(character=character_autocomplete)
    async def spend(
        self,
        interaction: Interaction,
        amount: app_commands.Range[int, 1, MAX_SPEND],
        reason: app_commands.Range[str, 1, MAX_TEXT],
        character: CharacterName | None = None,
    ) -> None:
        bot = interaction.client
        acted = await play.spend(
            bot.db,
            caller_of(interaction),
            bot.rng,
            amount=amount,
            reason=reason,
            character=character,
        )
        await send_acted(interaction, acted)


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(Stamina())
