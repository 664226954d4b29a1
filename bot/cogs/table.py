"""The GM's table: `/combat …`, `/round`, `/day`, `/rest`, `/wound`, `/quest complete`,
`/history`, `/undo`. Thin: parse, call a service, render.

GM-only commands carry default_permissions(manage_guild) so that Discord hides them from
players; `/combat`, `/rest` and `/history` are used by players too and carry none. The
services check every permission again (rules.permissions), GM role included (P-1).

Visibility: results are public; `/history` is private (its readers are the owner and the GM).
"""

from __future__ import annotations

from typing import Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot.cogs.common import (
    CHARACTER,
    CHARACTER_OR_ACTIVE,
    CharacterName,
    caller_of,
    character_autocomplete,
    reply,
    send_outcome,
)
from bot.render import table as render
from bot.services import table as service
from rules.models import RestKind

GM_ONLY = discord.Permissions(manage_guild=True)
HISTORY_DEFAULT = 10


class TableCog(commands.Cog, name="Table"):
    combat = app_commands.Group(name="combat", description="Combat in this channel (C-1)")
    quest = app_commands.Group(
        name="quest", description="GM: quests (E-5)", default_permissions=GM_ONLY
    )

    def __init__(self, bot: commands.Bot) -> None:
        self.bot = bot

    @property
    def db(self):
        return self.bot.db  # type: ignore[attr-defined]

    @property
    def rng(self):
        return self.bot.rng  # type: ignore[attr-defined]

    # --- /combat -----------------------------------------------------------------------------

    @combat.command(name="start", description="GM: start combat in this channel")
    async def combat_start(self, interaction: discord.Interaction) -> None:
        started = await service.start_combat(self.db, caller_of(interaction))
        await reply(interaction, embeds=[render.combat_started(started)])

    @combat.command(name="end", description="GM: end the combat in this channel")
    async def combat_end(self, interaction: discord.Interaction) -> None:
        view = await service.end_combat(self.db, caller_of(interaction))
        await reply(interaction, embeds=[render.combat_ended(view.combat, view.members)])

    @combat.command(name="status", description="The combat in this channel: round and members")
    async def combat_status(self, interaction: discord.Interaction) -> None:
        view = await service.combat_status(self.db, caller_of(interaction))
        await reply(interaction, embeds=[render.combat_status(view.combat, view.members)])

    @combat.command(name="add", description="Owner or GM: a character joins this channel's combat")
    @app_commands.describe(character=CHARACTER)
    @app_commands.autocomplete(character=character_autocomplete)
    async def combat_add(self, interaction: discord.Interaction, character: CharacterName) -> None:
        fight, row = await service.join_combat(self.db, caller_of(interaction), character)
        await reply(interaction, embeds=[render.combat_joined(fight, row.sheet, joined=True)])

    @combat.command(name="remove", description="Owner or GM: a character leaves this combat")
    @app_commands.describe(character=CHARACTER)
    @app_commands.autocomplete(character=character_autocomplete)
    async def combat_remove(
        self, interaction: discord.Interaction, character: CharacterName
    ) -> None:
        fight, row = await service.leave_combat(self.db, caller_of(interaction), character)
        await reply(interaction, embeds=[render.combat_joined(fight, row.sheet, joined=False)])

    # --- the clock ---------------------------------------------------------------------------

    @app_commands.command(name="round", description="GM: the next combat round in this channel")
    @app_commands.default_permissions(manage_guild=True)
    async def round_(self, interaction: discord.Interaction) -> None:
        result = await service.next_round(self.db, caller_of(interaction))
        await reply(interaction, embeds=[render.round_started(result.combat, result.early)])

    @app_commands.command(name="day", description="GM: the next in-game day")
    @app_commands.default_permissions(manage_guild=True)
    async def day(self, interaction: discord.Interaction) -> None:
        result = await service.next_day(self.db, caller_of(interaction))
        changed = sum(1 for o in result.outcomes if o.after != o.before)
        await reply(interaction, embeds=[render.day_started(result.day, changed)])

    # --- Stamina, wounds, quests -------------------------------------------------------------

    @app_commands.command(name="rest", description="Stamina back from a rest (S-9)")
    @app_commands.describe(
        kind="short: 1 · unsafe_long: a third · safe_long: two thirds · respite: all",
        character=CHARACTER_OR_ACTIVE,
        everyone="GM: rest every living character of this server",
    )
    @app_commands.autocomplete(character=character_autocomplete)
    async def rest(
        self,
        interaction: discord.Interaction,
        kind: Literal["short", "unsafe_long", "safe_long", "respite"],
        character: CharacterName | None = None,
        everyone: bool = False,
    ) -> None:
        outcomes = await service.rest(
            self.db, caller_of(interaction), self.rng, RestKind(kind), character, everyone=everyone
        )
        if everyone:
            title = f"Everyone rests · {kind}"
            await reply(interaction, embeds=[render.outcomes_list(title, outcomes, "Rules: S-9")])
        else:
            await send_outcome(interaction, outcomes[0])

    @app_commands.command(name="wound", description="GM: a CON wound, or its recovery (S-2, S-3)")
    @app_commands.default_permissions(manage_guild=True)
    @app_commands.describe(character=CHARACTER, recover="Recover a wound instead of taking one")
    @app_commands.autocomplete(character=character_autocomplete)
    async def wound(
        self, interaction: discord.Interaction, character: CharacterName, recover: bool = False
    ) -> None:
        outcome = await service.wound(
            self.db, caller_of(interaction), self.rng, character, recover=recover
        )
        await send_outcome(interaction, outcome)

    @quest.command(name="complete", description="GM: clears stacks and Stress, ends a Breakdown")
    @app_commands.describe(character=CHARACTER)
    @app_commands.autocomplete(character=character_autocomplete)
    async def quest_complete(
        self, interaction: discord.Interaction, character: CharacterName
    ) -> None:
        outcome = await service.complete_quest(self.db, caller_of(interaction), self.rng, character)
        await send_outcome(interaction, outcome)

    # --- the event log -----------------------------------------------------------------------

    @app_commands.command(name="history", description="Owner or GM: a character's latest changes")
    @app_commands.describe(
        character=CHARACTER_OR_ACTIVE,
        limit="How many changes, 1–25 (default 10)",
    )
    @app_commands.autocomplete(character=character_autocomplete)
    async def history(
        self,
        interaction: discord.Interaction,
        character: CharacterName | None = None,
        limit: app_commands.Range[int, 1, 25] = HISTORY_DEFAULT,
    ) -> None:
        row, events = await service.history(self.db, caller_of(interaction), character, limit)
        await reply(interaction, embeds=[render.history(row.sheet, events)], ephemeral=True)

    @app_commands.command(name="undo", description="GM: revert the latest change to a character")
    @app_commands.default_permissions(manage_guild=True)
    @app_commands.describe(character=CHARACTER)
    @app_commands.autocomplete(character=character_autocomplete)
    async def undo(self, interaction: discord.Interaction, character: CharacterName) -> None:
        outcome = await service.undo(self.db, caller_of(interaction), character)
        await send_outcome(interaction, outcome)


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(TableCog(bot))
