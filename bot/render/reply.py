"""What a renderer hands to the bot to send: one message, whole."""

from __future__ import annotations

from dataclasses import dataclass, field

import discord


@dataclass
class Reply:
    """One message: its embeds (and content), files (name and bytes: the pictures), buttons,
    and whether only its asker sees it."""

    embeds: list[discord.Embed] = field(default_factory=list)
    content: str | None = None
    files: list[tuple[str, bytes]] = field(default_factory=list)
    view: discord.ui.View | None = None
    ephemeral: bool = False

    @classmethod
    def private(cls, text: str) -> Reply:
        """A short private message: a refusal, a confirmation only its asker needs."""
        return cls(content=text, ephemeral=True)
