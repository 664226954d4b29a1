"""The Narateer faces as the application's own emoji: drawn by bot/render/pictures.py,
registered by `python -m bot sync` (idempotent: an emoji already there is kept), looked up when
the bot starts."""

from __future__ import annotations

import logging

import discord

from bot.render.dice import Faces
from bot.render.pictures import emoji_files

log = logging.getLogger("lastgasp.emoji")


async def registered(client: discord.Client) -> dict[str, int]:
    """The application's emoji by name."""
    return {emoji.name: emoji.id for emoji in await client.fetch_application_emojis()}


async def register(client: discord.Client) -> list[str]:
    """Upload the faces missing from the application's emoji; returns the names uploaded."""
    have = await registered(client)
    added = []
    for name, png in emoji_files():
        if name not in have:
            await client.create_application_emoji(name=name, image=png)
            added.append(name)
    return added


async def faces(client: discord.Client) -> Faces:
    """The faces to draw dice with: the emoji, or text if they are not registered (or Discord
    cannot be asked)."""
    try:
        ids = await registered(client)
    except (discord.HTTPException, discord.MissingApplicationID) as error:
        log.warning("the application's emoji could not be listed (%r): dice drawn as text", error)
        return Faces.text()
    found = Faces.emoji(ids)
    if found == Faces.text():
        log.info("the dice emoji are not registered (python -m bot sync): dice drawn as text")
    return found
