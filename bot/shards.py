"""Which process serves which guild when several processes share the bot (sharding)."""

from __future__ import annotations

import logging
from collections.abc import Collection

import discord

log = logging.getLogger("lastgasp.shards")


def shard_of(guild_id: int | None, shard_count: int) -> int:
    """Discord's rule: a guild's events go to shard (guild_id >> 22) % shard_count; direct
    messages (no guild) to shard 0."""
    return 0 if guild_id is None else (guild_id >> 22) % shard_count


def serves(client: discord.Client, guild_id: int | None) -> bool:
    """Whether this process owns the guild's shard (an unsharded bot serves every guild)."""
    count: int | None = client.shard_count
    shard_ids: Collection[int] | None = getattr(client, "shard_ids", None)
    if not count or shard_ids is None:
        return True
    return shard_of(guild_id, count) in shard_ids


def served(interaction: discord.Interaction) -> bool:
    """The guard every command and click passes first: False (and no answer) for another
    process's guild. Discord sends a guild only to its shard's process; this guards the offline
    driver and a misconfigured deployment from answering twice."""
    client = interaction.client
    if serves(client, interaction.guild_id):
        return True
    log.debug(
        "guild %s is shard %s's, not this process's %s: interaction ignored",
        interaction.guild_id,
        shard_of(interaction.guild_id, client.shard_count or 1),
        getattr(client, "shard_ids", None),
    )
    return False
