"""/emotion, /relief, /breakdown (seed 002: emotions, Stress, Breakdown)."""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from bot.cogs.common import (
    CHARACTER_OR_ACTIVE,
    CharacterName,
    character_autocomplete,
    choices_of,
    run_play,
)
from bot.services import play
from rules.models import Emotion, ReliefMethod

MAX_STAGES = 20  # E-1 (COMMANDS.md)
MAX_PRESSURE = 20  # E-8
EMOTIONS = [e.value for e in Emotion]
METHODS = [m.value for m in ReliefMethod]


class Emotions(commands.Cog):
    @app_commands.command(name="emotion", description="Raise an emotion by some stages (E-1, E-2)")
    @app_commands.guild_only()
    @app_commands.describe(
        emotion="The emotion that rises",
        stages="How many stages, 1 to 20",
        character=CHARACTER_OR_ACTIVE,
    )
    @app_commands.choices(emotion=choices_of(EMOTIONS))
    @app_commands.autocomplete(character=character_autocomplete)
    async def emotion(
        self,
        interaction: discord.Interaction,
        emotion: str,
        stages: app_commands.Range[int, 1, MAX_STAGES] = 1,
        character: CharacterName | None = None,
    ) -> None:
        await run_play(
            interaction, play.emotion, emotion=Emotion(emotion), stages=stages, character=character
        )

    @app_commands.command(
        name="relief", description="Daily relief, or address the emotion of a Breakdown (E-3..E-5)"
    )
    @app_commands.guild_only()
    @app_commands.describe(
        method="drive: a Drive Action success · reward: a restorative event · address: act on it",
        emotion="With address: which emotion, when several are tied",
        character=CHARACTER_OR_ACTIVE,
    )
    @app_commands.choices(method=choices_of(METHODS), emotion=choices_of(EMOTIONS))
    @app_commands.autocomplete(character=character_autocomplete)
    async def relief(
        self,
        interaction: discord.Interaction,
        method: str,
        emotion: str | None = None,
        character: CharacterName | None = None,
    ) -> None:
        await run_play(
            interaction,
            play.relief,
            method=ReliefMethod(method),
            emotion=Emotion(emotion) if emotion else None,
            character=character,
        )

    @app_commands.command(
        name="breakdown", description="GM: a situational breakdown, a Reaction Roll (E-8, E-9)"
    )
    @app_commands.guild_only()
    @app_commands.default_permissions(manage_guild=True)  # hidden from players; checked again
    @app_commands.describe(
        character="The character under pressure",
        emotion="The emotion the situation challenges",
        pressure="The Pressure to reach, 1 to 20 (e.g. 4, 6, 8)",
        roll="The die result rolled physically, instead of letting the bot roll",
    )
    @app_commands.choices(emotion=choices_of(EMOTIONS))
    @app_commands.autocomplete(character=character_autocomplete)
    async def breakdown(
        self,
        interaction: discord.Interaction,
        character: CharacterName,
        emotion: str,
        pressure: app_commands.Range[int, 1, MAX_PRESSURE],
        roll: int | None = None,
    ) -> None:
        await run_play(
            interaction,
            play.breakdown,
            character=character,
            emotion=Emotion(emotion),
            pressure=pressure,
            roll=roll,
        )


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(Emotions())
