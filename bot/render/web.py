"""`/web`'s answers: the member's link to the campaign page, and the end of their links. Both
private: the link opens what its member may see, to whoever has it."""

from __future__ import annotations

import discord

from bot.render.card import Card
from bot.render.common import INFO_COLOUR
from bot.render.reply import Reply


def _hours(hours: float) -> str:
    return f"{hours:g} hour" + ("" if hours == 1 else "s")


def web_link_reply(url: str, hours: float) -> Reply:
    """The link as a link button beside the words: Discord makes no preview of it (its crawler
    never opens it), and it is never text to copy by mistake."""
    text = (
        "**Your link to this server's campaign page, made for you.** It shows what you may see "
        f"here, works for {_hours(hours)}, and opens for anyone who has it: keep it to "
        "yourself. `/web revoke:true` ends every link made for you so far."
    )
    button: discord.ui.Button[discord.ui.LayoutView] = discord.ui.Button(
        label="Open the campaign page", url=url, style=discord.ButtonStyle.link
    )
    return Reply(Card(colour=INFO_COLOUR, lines=(text,), accessory=button), ephemeral=True)


def web_revoked_reply() -> Reply:
    return Reply.private(
        "Every link to this server's campaign page made for you so far is ended: they open "
        "nothing now. `/web` makes a new one."
    )
