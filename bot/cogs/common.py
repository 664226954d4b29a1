"""What every cog shares: the interaction type, how a character option is declared and
completed, and the one way a result is sent."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Literal

import discord
from discord import app_commands

from bot import replies
from bot.options import focused_text
from bot.people import faces_for
from bot.render.common import CHOICE_NAME_LIMIT, CHOICES_LIMIT, choice_label, fit_units, utf16_units
from bot.render.outcome import outcome_reply
from bot.services.context import Acted
from rules.names import MAX_NAME_LENGTH

if TYPE_CHECKING:
    from bot.app import LastGaspBot

    Interaction = discord.Interaction[LastGaspBot]
else:
    Interaction = discord.Interaction

log = logging.getLogger("lastgasp.cogs")

# `character` holds a name: declared with a name's longest text (UTF-16 units, as Discord
# counts; 32 emoji sequences take more than 32), so that no refusal can quote more.
CharacterName = app_commands.Range[str, 1, MAX_NAME_LENGTH]
CHARACTER = "A character of this server (type to search)"
CHARACTER_OR_ACTIVE = f"{CHARACTER} (default: your active character)"
# One way to declare choices: Literal, turned into the rules' enums by the cog.
EmotionChoice = Literal["anger", "fear", "sadness", "guilt"]
CHOICE_VALUE_LIMIT = 100
GM_ONLY = discord.Permissions(manage_guild=True)  # Discord hides it from players; checked again


async def send_acted(interaction: Interaction, acted: Acted) -> None:
    """A result: public (the Last Gasp always, R-5), with its buttons and pictures."""
    reply = outcome_reply(
        acted.outcome,
        character_id=acted.character_id,
        settings=acted.settings,
        faces=faces_for(interaction),
        in_combat=acted.in_combat,
    )
    await replies.deliver(interaction, reply)


async def character_autocomplete(
    interaction: Interaction, current: str
) -> list[app_commands.Choice[str]]:
    """The caller's guild's characters matching what was typed, the caller's own first.
    Never fails: a malformed request or a database that does not answer gets no choices."""
    typed = focused_text(interaction)
    if interaction.guild_id is None or typed is None:
        return []
    try:
        async with interaction.client.db.transaction(interaction.guild_id, read_only=True) as uow:
            rows = await uow.search_characters(
                typed.strip(), interaction.user.id, limit=CHOICES_LIMIT
            )
    except Exception:
        log.warning("autocomplete failed (guild %s)", interaction.guild_id, exc_info=True)
        return []
    return [
        choice(row.sheet.name, choice_label(row.sheet))
        for row in rows[:CHOICES_LIMIT]
        if _offerable(row.sheet.name)
    ]


def _offerable(name: str) -> bool:
    """A choice's value takes at most 100 characters: a longer name (32 emoji sequences can
    be) is typed, not offered, or Discord refuses every choice."""
    return utf16_units(name) <= CHOICE_VALUE_LIMIT


def choice(value: str, name: str) -> app_commands.Choice[str]:
    return app_commands.Choice(name=fit_units(name, CHOICE_NAME_LIMIT), value=value)
