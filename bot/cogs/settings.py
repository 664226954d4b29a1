"""`/settings show|set`: the guild settings (docs/rules.md, "Guild settings").

The group carries no default_permissions (anyone may read the settings); `set` is the GM's,
checked by the service (P-3). Choosing @everyone as `gm_role` clears the GM role, since
"everyone is GM" is never meant: then members with Manage Server are the GMs again (P-1).
"""

from __future__ import annotations

from typing import Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot import replies
from bot.cogs.common import Interaction
from bot.people import caller_of
from bot.render.table import settings_changed, settings_reply
from bot.services import settings as service

EXPRESSION_LIMIT = 100  # a dice expression; the rules' parser limits the dice themselves


class SettingsCog(commands.GroupCog, group_name="settings", group_description="Server settings"):
    @app_commands.command(name="show", description="This server's rule settings")
    async def show(self, interaction: Interaction) -> None:
        settings = await service.show_settings(interaction.client.db, caller_of(interaction))
        await replies.deliver(interaction, settings_reply(settings))

    @app_commands.command(name="set", description="GM: change rule settings")
    @app_commands.describe(
        gm_role="Members with this role are GMs (@everyone: none, Manage Server only)",
        die_faces="Narateer die faces, 2–20 letters of M, H, C with at least one C (MMMHHC)",
        death_rule="thresholds: Unconscious/Critical/Dying · instant: below 0 is dead (V-6)",
        dying_damage="nothing: a Dying character still rolls its Last Gasp · kills (V-8)",
        critical_bleed="When a Critical roll without a Crit costs 1 VIT (R-4)",
        last_gasp_advantage="yes: first aid's advantage applies to the Last Gasp too (R-6)",
        reaction_reset="When the reaction cost resets (S-5)",
        reaction_die="Dice of situational breakdown Reaction Rolls, e.g. 1d10 (E-8)",
        emotion_threshold="Default emotion threshold of new characters, 1–20 (E-1)",
        rule_ids="footer: up to three rule IDs under each result · off",
        check_die="Dice of /check when it names none, e.g. 1d20 or 2d6 (K-1)",
    )
    async def set_(
        self,
        interaction: Interaction,
        gm_role: discord.Role | None = None,
        die_faces: app_commands.Range[str, 2, 40] | None = None,
        death_rule: Literal["thresholds", "instant"] | None = None,
        dying_damage: Literal["nothing", "kills"] | None = None,
        critical_bleed: Literal["all_miss", "no_crit", "never"] | None = None,
        last_gasp_advantage: Literal["yes", "no"] | None = None,
        reaction_reset: Literal["turn", "round"] | None = None,
        reaction_die: app_commands.Range[str, 1, EXPRESSION_LIMIT] | None = None,
        emotion_threshold: app_commands.Range[int, 1, 20] | None = None,
        rule_ids: Literal["footer", "off"] | None = None,
        check_die: app_commands.Range[str, 1, EXPRESSION_LIMIT] | None = None,
    ) -> None:
        clear_role = gm_role is not None and gm_role.is_default()
        changes = {
            "gm_role_id": None if gm_role is None or clear_role else gm_role.id,
            "die_faces": die_faces,
            "death_rule": death_rule,
            "dying_damage": dying_damage,
            "critical_bleed": critical_bleed,
            "last_gasp_advantage": last_gasp_advantage,
            "reaction_reset": reaction_reset,
            "reaction_die": reaction_die,
            "emotion_threshold": emotion_threshold,
            "rule_ids": rule_ids,
            "check_die": check_die,
        }
        before, after = await service.set_settings(
            interaction.client.db, caller_of(interaction), changes, clear_gm_role=clear_role
        )
        await replies.deliver(interaction, settings_changed(before, after))


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(SettingsCog())
