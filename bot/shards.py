"""Which process serves which guild when several processes share the bot (sharding)."""

from __future__ import annotations

from collections.abc import Collection

import discord


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
