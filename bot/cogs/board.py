"""`/board start|stop`: the status board of this channel, a message the bot keeps current
(bot/boards.py keeps it so)."""

from __future__ import annotations

import contextlib

import discord
from discord import app_commands
from discord.ext import commands

from bot import replies
from bot.boards import post
from bot.cogs.common import GM_ONLY, Interaction
from bot.db.records import Board
from bot.people import caller_of
from bot.render.board import board_reply, moved_reply, stopped_reply
from bot.render.reply import Reply
from bot.services import board as service


@app_commands.default_permissions(GM_ONLY)
class BoardCog(
    commands.GroupCog, group_name="board", group_description="GM: the status board of this channel"
):
    @app_commands.command(
        name="start", description="GM: post the status board here (or move it down)"
    )
    async def start(self, interaction: Interaction) -> None:
        bot, caller = interaction.client, caller_of(interaction)
        await service.check_gm(bot.db, caller)
        view = await service.board_view(bot.db, caller.guild_id, caller.channel_id)
        message_id = await post(
            bot, caller.guild_id, caller.channel_id, board_reply(view, bot.clock())
        )
        old = await service.start_board(bot.db, caller, message_id)
        bot.boards.started(Board(caller.guild_id, caller.channel_id, message_id))
        if old is not None and old.message_id != message_id:
            await _leave(bot, old, moved_reply())
        text = (
            "The status board moved to the bottom of this channel."
            if old
            else "The status board is posted: the bot keeps it current."
        )
        await replies.deliver(interaction, Reply.private(text))

    @app_commands.command(name="stop", description="GM: stop this channel's status board")
    async def stop(self, interaction: Interaction) -> None:
        bot, caller = interaction.client, caller_of(interaction)
        board = await service.stop_board(bot.db, caller)
        bot.boards.stopped(caller.channel_id)
        await _leave(bot, board, stopped_reply())
        await replies.deliver(interaction, Reply.private("The status board is stopped."))


async def _leave(bot: discord.Client, board: Board, reply: Reply) -> None:
    """Leave a line on a board's old message; one deleted meanwhile needs none. A board posted
    before the bot built its messages from layout components is deleted instead: it cannot be
    edited into one without clearing it first."""
    channel = bot.get_partial_messageable(board.channel_id, guild_id=board.guild_id)
    message = channel.get_partial_message(board.message_id)
    with contextlib.suppress(discord.HTTPException):
        if board.layout:
            await message.edit(**replies.message(reply))
        else:
            await message.delete()


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(BoardCog())
