"""/damage, /heal, /recover, /aid, /odds: Vitality, recovery rolls, first aid."""

from __future__ import annotations

from discord import app_commands
from discord.ext import commands

from bot import replies
from bot.cogs import scene_menu
from bot.cogs.common import (
    CHARACTER_OR_ACTIVE,
    CharacterName,
    Interaction,
    character_autocomplete,
    send_acted,
)
from bot.cogs.scene_menu import only_one_way
from bot.people import caller_of
from bot.render.odds import odds_reply
from bot.services import play

MAX_AMOUNT = 10_000  # H-1, H-2


class Vitality(commands.Cog):
    @app_commands.command(name="damage", description="Subtract VIT from a character (H-1)")
    @app_commands.describe(
        amount="Damage taken, 1 to 10000",
        character=CHARACTER_OR_ACTIVE,
        several="GM: pick the characters an area hits, from a menu (G-2)",
    )
    @app_commands.autocomplete(character=character_autocomplete)
    async def damage(
        self,
        interaction: Interaction,
        amount: app_commands.Range[int, 1, MAX_AMOUNT],
        character: CharacterName | None = None,
        several: bool | None = None,
    ) -> None:
        if several:
            only_one_way(character)
            await scene_menu.ask(interaction, "damage", str(amount), conscious_only=False)
            return
        bot = interaction.client
        acted = await play.damage(
            bot.db, caller_of(interaction), bot.rng, amount=amount, character=character
        )
        await send_acted(interaction, acted)

    @app_commands.command(name="heal", description="Magic healing (H-2)")
    @app_commands.describe(
        amount="Points of healing, 1 to 10000",
        character=CHARACTER_OR_ACTIVE,
        several="GM: pick the characters an area heals, from a menu (G-2)",
    )
    @app_commands.autocomplete(character=character_autocomplete)
    async def heal(
        self,
        interaction: Interaction,
        amount: app_commands.Range[int, 1, MAX_AMOUNT],
        character: CharacterName | None = None,
        several: bool | None = None,
    ) -> None:
        if several:
            only_one_way(character)
            await scene_menu.ask(interaction, "heal", str(amount), conscious_only=False)
            return
        bot = interaction.client
        acted = await play.heal(
            bot.db, caller_of(interaction), bot.rng, amount=amount, character=character
        )
        await send_acted(interaction, acted)

    @app_commands.command(
        name="recover", description="The recovery roll due now: Unconscious, Critical or Last Gasp"
    )
    @app_commands.describe(
        character=CHARACTER_OR_ACTIVE,
        faces="Faces rolled on physical dice, one letter per die: M, H or C (e.g. C H M)",
    )
    @app_commands.autocomplete(character=character_autocomplete)
    async def recover(
        self,
        interaction: Interaction,
        character: CharacterName | None = None,
        faces: app_commands.Range[str, 1, 100] | None = None,
    ) -> None:
        bot = interaction.client
        acted = await play.recover(
            bot.db, caller_of(interaction), bot.rng, character=character, faces=faces
        )
        await send_acted(interaction, acted)

    @app_commands.command(
        name="aid", description="First aid: advantage on the next recovery roll (F-1)"
    )
    @app_commands.describe(
        character="The character receiving aid",
        success="The Medicine check you rolled succeeded",
        roll="Or let the bot roll the Medicine check: a dice expression, e.g. 1d20+3",
        target="The number the Medicine check must reach",
    )
    @app_commands.autocomplete(character=character_autocomplete)
    async def aid(
        self,
        interaction: Interaction,
        character: CharacterName,
        success: bool | None = None,
        roll: app_commands.Range[str, 1, 100] | None = None,
        target: app_commands.Range[int, -1000, 1000] | None = None,
    ) -> None:
        bot = interaction.client
        acted = await play.aid(
            bot.db,
            caller_of(interaction),
            bot.rng,
            character=character,
            success=success,
            roll=roll,
            target=target,
        )
        await send_acted(interaction, acted)

    @app_commands.command(
        name="odds", description="Exact chances of the next recovery roll and the rolls after"
    )
    @app_commands.describe(character=CHARACTER_OR_ACTIVE)
    @app_commands.autocomplete(character=character_autocomplete)
    async def odds(self, interaction: Interaction, character: CharacterName | None = None) -> None:
        found = await play.recovery_odds(
            interaction.client.db, caller_of(interaction), character=character
        )
        await replies.deliver(interaction, odds_reply(found))


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(Vitality())
