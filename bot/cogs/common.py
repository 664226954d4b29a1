"""What every cog needs: who is calling, how to reply (never pinging),
character autocomplete."""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import Any

import discord
from discord import app_commands

from bot.errors import NOT_IN_A_SERVER
from bot.render.common import CHOICE_NAME_LIMIT, CHOICES_LIMIT, truncate
from bot.render.outcome import outcome_embed
from bot.services.context import Caller
from rules.models import MAX_NAME, State
from rules.outcome import Outcome, RuleError

NO_PINGS = discord.AllowedMentions.none()

# `character` holds a name: declared with a name's length, so that no refusal can quote more.
CharacterName = app_commands.Range[str, 1, MAX_NAME]
# How the options naming a character are described.
CHARACTER = "A character of this server (type to search)"
CHARACTER_OR_ACTIVE = f"{CHARACTER} (default: your active character)"


def caller_of(interaction: discord.Interaction) -> Caller:
    """The Caller of a guild interaction (P-1 needs Manage Server and the member's roles)."""
    if interaction.guild_id is None or not isinstance(interaction.user, discord.Member):
        raise RuleError(NOT_IN_A_SERVER)
    member = interaction.user
    return Caller(
        guild_id=interaction.guild_id,
        channel_id=interaction.channel_id or 0,
        user_id=member.id,
        manage_guild=interaction.permissions.manage_guild or interaction.permissions.administrator,
        role_ids=frozenset(role.id for role in member.roles if not role.is_default()),
    )


async def reply(
    interaction: discord.Interaction,
    *,
    content: str | None = None,
    embeds: Sequence[discord.Embed] = (),
    ephemeral: bool = False,
) -> None:
    """Answer (or follow up, if already answered): mentions never ping."""
    kwargs = {"ephemeral": ephemeral, "allowed_mentions": NO_PINGS, "embeds": list(embeds)}
    if content is not None:
        kwargs["content"] = content
    if interaction.response.is_done():
        await interaction.followup.send(**kwargs)
    else:
        await interaction.response.send_message(**kwargs)


async def send_outcome(interaction: discord.Interaction, outcome: Outcome) -> None:
    """A result is public; the Last Gasp always is (R-5)."""
    last_gasp = outcome.before.state is State.DYING and outcome.action == "recover"
    await reply(
        interaction, embeds=[outcome_embed(outcome)], ephemeral=not (outcome.public or last_gasp)
    )


async def run_play(
    interaction: discord.Interaction,
    use_case: Callable[..., Awaitable[Outcome]],
    **options: Any,
) -> None:
    """A play command once its options are checked: the use case as the caller, its outcome
    shown."""
    db, rng = services(interaction)
    await send_outcome(interaction, await use_case(db, caller_of(interaction), rng, **options))


async def character_autocomplete(
    interaction: discord.Interaction, current: str
) -> list[app_commands.Choice[str]]:
    """The caller's guild's characters matching what was typed, the caller's own first."""
    if interaction.guild_id is None:
        return []
    db, _ = services(interaction)
    async with db.transaction(interaction.guild_id, read_only=True) as uow:
        rows = await uow.search_characters(
            current.strip(), interaction.user.id, limit=CHOICES_LIMIT
        )
    choices = []
    for row in rows[:CHOICES_LIMIT]:
        sheet = row.sheet
        label = f"{sheet.name} · {sheet.state.value}, VIT {sheet.vit}/{sheet.max_vit}"
        choices.append(
            app_commands.Choice(name=truncate(label, CHOICE_NAME_LIMIT), value=sheet.name)
        )
    return choices


def choices_of(values: Iterable[str]) -> list[app_commands.Choice[str]]:
    return [app_commands.Choice(name=v, value=v) for v in values]


def services(interaction: discord.Interaction) -> tuple[Any, random.Random]:
    """The database and the random source the bot was built with."""
    client = interaction.client
    return client.db, client.rng  # type: ignore[attr-defined]
