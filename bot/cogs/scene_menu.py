"""The GM's scene from a command (G-1, G-2): either every member of this channel's combat at
once, or a private menu of characters the GM picks from. Not a cog: the helpers of the
commands that offer it (/breakdown, /damage, /heal); the menu's answer is bot/clicks.py's."""

from __future__ import annotations

import contextlib

import discord

from bot import replies
from bot.cogs.common import Interaction
from bot.people import caller_of, faces_for
from bot.questions import after_deadline, answered
from bot.render.scene import menu_question, menu_unanswered, scene_reply
from bot.services import scene
from bot.services.scene import SceneResult
from rules.errors import RuleError

MENU_SECONDS = 60  # as the delete question


def only_one_way(character: str | None) -> None:
    """A scene picks its characters from the menu: a `character` beside it is a mistake."""
    if character is not None:
        raise RuleError(
            "Name one character, or ask for several (the menu picks them): not both. Nothing "
            "was done."
        )


async def ask(interaction: Interaction, what: str, arg: str, *, conscious_only: bool) -> None:
    """Post the private menu of characters (GM, P-3); left unanswered, it says so."""
    bot, caller = interaction.client, caller_of(interaction)
    menu = await scene.menu(bot.db, caller, conscious_only=conscious_only)
    seconds = MENU_SECONDS
    until = int(bot.clock().timestamp() + seconds)
    await replies.deliver(interaction, menu_question(menu, what, arg, caller.user_id, until))
    key = ("scene", what, arg, caller.user_id, until)

    async def time_out() -> None:
        if answered(bot, key):
            return  # the answer stays as it is (bot/questions.py)
        with contextlib.suppress(discord.HTTPException):  # dismissed already
            await interaction.edit_original_response(**replies.message(menu_unanswered()))

    after_deadline(seconds, time_out)


async def show(interaction: Interaction, what: str, arg: str, result: SceneResult) -> None:
    """The scene's one public message."""
    await replies.deliver(interaction, scene_reply(what, arg, result, faces_for(interaction)))
