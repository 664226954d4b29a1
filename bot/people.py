"""Who is acting in an interaction, and how the dice are drawn for them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord

from bot.failures import NOT_IN_A_SERVER
from bot.render.dice import Faces
from bot.services.context import Caller
from rules.errors import RuleError

if TYPE_CHECKING:
    from bot.app import LastGaspBot


def caller_of(interaction: discord.Interaction[Any]) -> Caller:
    """The Caller of a guild interaction (P-1 needs Manage Server and the member's roles)."""
    if interaction.guild_id is None or not isinstance(interaction.user, discord.Member):
        raise RuleError(NOT_IN_A_SERVER)
    member = interaction.user
    permissions = interaction.permissions
    return Caller(
        guild_id=interaction.guild_id,
        channel_id=interaction.channel_id or 0,
        user_id=member.id,
        manage_guild=permissions.manage_guild or permissions.administrator,
        role_ids=frozenset(role.id for role in member.roles if not role.is_default()),
    )


def faces_for(interaction: discord.Interaction[LastGaspBot]) -> Faces:
    """The application's emoji where they can show: registered (`python -m bot sync`) and
    allowed in this channel (Use External Emojis); text faces elsewhere."""
    if not interaction.app_permissions.use_external_emojis:
        return Faces.text()
    return interaction.client.faces
