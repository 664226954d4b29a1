"""/emotion, /relief, /breakdown: emotions, Stress, Breakdown."""

from __future__ import annotations

from typing import Literal

from discord import app_commands
from discord.ext import commands

from bot.cogs import scene_menu
from bot.cogs.common import (
    CHARACTER_OR_ACTIVE,
    GM_ONLY,
    CharacterName,
    EmotionChoice,
    Interaction,
    character_autocomplete,
    send_acted,
)
from bot.cogs.scene_menu import only_one_way
from bot.people import caller_of
from bot.render.scene import scene_arg
from bot.services import play, scene
from rules.errors import RuleError
from rules.models import Emotion, EmotionCause, ReliefMethod

MAX_STAGES = 20  # E-1
MAX_PRESSURE = 20  # E-8


class Emotions(commands.Cog):
    @app_commands.command(name="emotion", description="Raise an emotion by some stages (E-1, E-2)")
    @app_commands.describe(
        emotion="The emotion that rises",
        stages="How many stages, 1 to 20",
        cause="What raised it in the game (E-10)",
        character=CHARACTER_OR_ACTIVE,
    )
    @app_commands.autocomplete(character=character_autocomplete)
    async def emotion(
        self,
        interaction: Interaction,
        emotion: EmotionChoice,
        stages: app_commands.Range[int, 1, MAX_STAGES] = 1,
        cause: Literal["daring_throw", "reaction_roll", "other"] = "other",
        character: CharacterName | None = None,
    ) -> None:
        bot = interaction.client
        acted = await play.emotion(
            bot.db,
            caller_of(interaction),
            bot.rng,
            emotion=Emotion(emotion),
            stages=stages,
            cause=EmotionCause(cause),
            character=character,
        )
        await send_acted(interaction, acted)

    @app_commands.command(
        name="relief", description="Daily relief, or address the emotion of a Breakdown (E-3..E-5)"
    )
    @app_commands.describe(
        method="drive: a Drive Action success · reward: a restorative event · address: act on it",
        emotion="With address: which emotion, when several are tied",
        character=CHARACTER_OR_ACTIVE,
    )
    @app_commands.autocomplete(character=character_autocomplete)
    async def relief(
        self,
        interaction: Interaction,
        method: Literal["drive", "reward", "address"],
        emotion: EmotionChoice | None = None,
        character: CharacterName | None = None,
    ) -> None:
        bot = interaction.client
        acted = await play.relief(
            bot.db,
            caller_of(interaction),
            bot.rng,
            method=ReliefMethod(method),
            emotion=Emotion(emotion) if emotion else None,
            character=character,
        )
        await send_acted(interaction, acted)

    @app_commands.command(
        name="breakdown", description="GM: a situational breakdown, a Reaction Roll (E-8, E-9)"
    )
    @app_commands.default_permissions(GM_ONLY)
    @app_commands.describe(
        emotion="The emotion the situation challenges",
        pressure="The Pressure to reach, 1 to 20 (e.g. 4, 6, 8)",
        character="The character under pressure (leave out: pick several from a menu)",
        roll="The die result rolled physically, for one character, instead of the bot's roll",
        everyone="Every living, conscious character of this channel's combat (G-1)",
    )
    @app_commands.autocomplete(character=character_autocomplete)
    async def breakdown(
        self,
        interaction: Interaction,
        emotion: EmotionChoice,
        pressure: app_commands.Range[int, 1, MAX_PRESSURE],
        character: CharacterName | None = None,
        roll: app_commands.Range[int, -1000, 1000] | None = None,
        everyone: bool | None = None,
    ) -> None:
        bot = interaction.client
        if everyone or character is None:
            if roll is not None:
                raise RuleError(
                    "A die rolled by hand is for one character: name it with character, or "
                    "leave out roll and let the bot roll for each. Nothing was rolled."
                )
            arg = scene_arg("breakdown", emotion=Emotion(emotion), pressure=pressure)
            if not everyone:
                await scene_menu.ask(interaction, "breakdown", arg, conscious_only=True)
                return
            only_one_way(character)
            result = await scene.breakdown(
                bot.db,
                caller_of(interaction),
                bot.rng,
                emotion=Emotion(emotion),
                pressure=pressure,
                ids=None,
            )
            await scene_menu.show(interaction, "breakdown", arg, result)
            return
        acted = await play.breakdown(
            bot.db,
            caller_of(interaction),
            bot.rng,
            character=character,
            emotion=Emotion(emotion),
            pressure=pressure,
            roll=roll,
        )
        await send_acted(interaction, acted)


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(Emotions())
