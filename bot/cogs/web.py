"""`/web [revoke]`: a private link to this server's campaign page, made for the member who
asks (bot/web); `revoke:true` ends every link made for them so far. Discord cannot make one
command both a command and a group, so `/web revoke` is typed `/web revoke:true`."""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from bot import replies
from bot.cogs.common import Interaction
from bot.people import caller_of
from bot.render.web import web_link_reply, web_revoked_reply
from bot.services import web as service
from bot.web.links import Link
from rules.errors import RuleError

NOT_ON = (
    "The campaign page is not turned on for this bot: its admin sets WEB_SECRET, and WEB_PORT "
    "or WEB_BASE_URL (README, 'The campaign page'). Nothing was changed."
)


class WebCog(commands.Cog, name="Web"):
    @app_commands.command(name="web", description="A private link to this server's campaign page")
    @app_commands.describe(revoke="true: end every link made for you so far instead")
    async def web(self, interaction: Interaction, revoke: bool = False) -> None:
        bot, caller = interaction.client, caller_of(interaction)
        links = bot.web_links
        if revoke:
            await service.revoke_links(bot.db, caller)
            await replies.deliver(interaction, web_revoked_reply())
            return
        if links is None:
            raise RuleError(NOT_ON)
        made = await service.new_link(bot.db, caller)
        guild = interaction.guild
        user = interaction.user
        link = Link(
            guild_id=caller.guild_id,
            user_id=caller.user_id,
            generation=made.generation,
            manage_guild=caller.manage_guild,
            gm_role_id=made.gm_role_id,
            guild_name=guild.name if isinstance(guild, discord.Guild) else "",
            member_name=user.display_name,
        )
        await replies.deliver(interaction, web_link_reply(links.url(link), links.hours))


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(WebCog())
