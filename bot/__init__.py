"""Last Gasp, the Discord application around the pure rules engine in `rules/`."""

from __future__ import annotations

from typing import Any

__all__ = ["create_bot"]


def __getattr__(name: str) -> Any:
    # Lazy, so `python -m bot migrate` and the persistence layer do not import discord.py.
    if name == "create_bot":
        from bot.app import create_bot

        return create_bot
    raise AttributeError(name)
