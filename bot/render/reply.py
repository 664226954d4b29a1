"""What a renderer hands to the bot to send: one message, whole."""

from __future__ import annotations

from dataclasses import dataclass, field

from bot.render.card import Card
from bot.render.common import FAILURE_COLOUR, INFO_COLOUR


@dataclass
class Reply:
    """One message: its card (bot/render/layout.py builds it), the files the card shows (name
    and bytes: the pictures, an export), and whether only its asker sees it."""

    card: Card
    files: list[tuple[str, bytes]] = field(default_factory=list)
    ephemeral: bool = False

    @classmethod
    def private(cls, text: str) -> Reply:
        """A short private message only its asker needs (a confirmation, a link)."""
        return cls(Card(colour=INFO_COLOUR, lines=(text,)), ephemeral=True)

    @classmethod
    def refusal(cls, text: str) -> Reply:
        """A refusal or a mistake: private, never green (docs/commands.md, "Colours")."""
        return cls(Card(colour=FAILURE_COLOUR, lines=(text,)), ephemeral=True)
