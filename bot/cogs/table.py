"""The GM's table: `/combat …`, `/round`, `/day`, `/rest`, `/wound`, `/quest complete`,
`/history`, `/undo`. Thin: parse, call a service, render.

GM-only commands carry default_permissions(manage_guild) so that Discord hides them from
players; `/combat`, `/rest` and `/history` are used by players too and carry none. The
services check every permission again (rules.permissions), GM role included (P-1).

Visibility: results are public; `/history` is private (its readers are the owner and the GM).
"""

from __future__ import annotations

import logging
from typing import Literal

from discord import app_commands
from discord.ext import commands

from bot import replies
from bot.cogs.common import (
    CHARACTER,
    CHARACTER_OR_ACTIVE,
    GM_ONLY,
    CharacterName,
    Interaction,
    character_autocomplete,
    choice,
    send_acted,
)
from bot.options import focused_text
from bot.people import caller_of, faces_for
from bot.render import table as render
from bot.render.common import CHOICES_LIMIT, choice_label
from bot.render.outcome import outcome_reply
from bot.services import table as service
from rules.errors import RuleError
from rules.models import RestKind

HISTORY_DEFAULT = 10

log = logging.getLogger("lastgasp.autocomplete")


async def history_autocomplete(
    interaction: Interaction, current: str
) -> list[app_commands.Choice[str]]:
    """The characters of the server; for the GM, the deleted ones too (their log stays)."""
    choices = await character_autocomplete(interaction, current)
    typed = focused_text(interaction)
    if len(choices) >= CHOICES_LIMIT or typed is None:
        return choices
    try:
        gone = await service.deleted_characters(interaction.client.db, caller_of(interaction))
    except Exception:
        log.warning("autocomplete failed (guild %s)", interaction.guild_id, exc_info=True)
        return choices
    typed = typed.strip().casefold()
    for character_id, sheet in gone:
        if sheet.name.casefold().startswith(typed) and len(choices) < CHOICES_LIMIT:
            value = f"{service.DELETED}{character_id}"
            choices.append(choice(value, f"{choice_label(sheet)} · deleted"))
    return choices


class TableCog(commands.Cog, name="Table"):
    combat = app_commands.Group(name="combat", description="Combat in this channel (C-1)")
    quest = app_commands.Group(
        name="quest", description="GM: quests (E-5)", default_permissions=GM_ONLY
    )

    # --- /combat -----------------------------------------------------------------------------

    @combat.command(name="start", description="GM: start combat in this channel")
    async def combat_start(self, interaction: Interaction) -> None:
        started = await service.start_combat(interaction.client.db, caller_of(interaction))
        await replies.deliver(interaction, render.combat_started(started))

    @combat.command(name="end", description="GM: end the combat in this channel")
    async def combat_end(self, interaction: Interaction) -> None:
        view = await service.end_combat(interaction.client.db, caller_of(interaction))
        await replies.deliver(interaction, render.combat_ended(view))

    @combat.command(name="status", description="The combat in this channel: round and members")
    async def combat_status(self, interaction: Interaction) -> None:
        view = await service.combat_status(interaction.client.db, caller_of(interaction))
        await replies.deliver(interaction, render.combat_status(view.combat, view.members))

    @combat.command(name="add", description="Owner or GM: a character joins this channel's combat")
    @app_commands.describe(character=CHARACTER)
    @app_commands.autocomplete(character=character_autocomplete)
    async def combat_add(self, interaction: Interaction, character: CharacterName) -> None:
        joined = await service.join_combat(interaction.client.db, caller_of(interaction), character)
        await replies.deliver(interaction, render.combat_joined(joined, joined=True))

    @combat.command(name="remove", description="Owner or GM: a character leaves this combat")
    @app_commands.describe(character=CHARACTER)
    @app_commands.autocomplete(character=character_autocomplete)
    async def combat_remove(self, interaction: Interaction, character: CharacterName) -> None:
        left = await service.leave_combat(interaction.client.db, caller_of(interaction), character)
        await replies.deliver(interaction, render.combat_joined(left, joined=False))

    # --- the clock ---------------------------------------------------------------------------

    @app_commands.command(name="round", description="GM: the next combat round in this channel")
    @app_commands.default_permissions(GM_ONLY)
    async def round_(self, interaction: Interaction) -> None:
        result = await service.next_round(interaction.client.db, caller_of(interaction))
        await replies.deliver(interaction, render.round_started(result))

    @app_commands.command(name="day", description="GM: the next in-game day")
    @app_commands.default_permissions(GM_ONLY)
    async def day(self, interaction: Interaction) -> None:
        result = await service.next_day(interaction.client.db, caller_of(interaction))
        await replies.deliver(interaction, render.day_started(result))

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
        interaction: Interaction,
        kind: Literal["short", "unsafe_long", "safe_long", "respite"],
        character: CharacterName | None = None,
        everyone: bool = False,
    ) -> None:
        bot, caller = interaction.client, caller_of(interaction)
        if not everyone:
            acted = await service.rest(bot.db, caller, bot.rng, RestKind(kind), character)
            await send_acted(interaction, acted)
            return
        if character is not None:
            raise RuleError("Give either a character or everyone:true, not both.")
        rested = await service.rest_everyone(bot.db, caller, RestKind(kind))
        await replies.deliver(interaction, render.everyone_rested(kind, rested))

    @app_commands.command(name="wound", description="GM: a CON wound, or its recovery (S-2, S-3)")
    @app_commands.default_permissions(GM_ONLY)
    @app_commands.describe(character=CHARACTER, recover="Recover a wound instead of taking one")
    @app_commands.autocomplete(character=character_autocomplete)
    async def wound(
        self, interaction: Interaction, character: CharacterName, recover: bool = False
    ) -> None:
        bot = interaction.client
        acted = await service.wound(
            bot.db, caller_of(interaction), bot.rng, character, recover=recover
        )
        await send_acted(interaction, acted)

    @quest.command(name="complete", description="GM: clears stacks and Stress, ends a Breakdown")
    @app_commands.describe(character=CHARACTER)
    @app_commands.autocomplete(character=character_autocomplete)
    async def quest_complete(self, interaction: Interaction, character: CharacterName) -> None:
        bot = interaction.client
        acted = await service.complete_quest(bot.db, caller_of(interaction), bot.rng, character)
        await send_acted(interaction, acted)

    # --- the event log -----------------------------------------------------------------------

    @app_commands.command(name="history", description="Owner or GM: a character's latest changes")
    @app_commands.describe(
        character=f"{CHARACTER_OR_ACTIVE}; the GM also finds deleted ones",
        limit="How many entries, 1–25 (default 10)",
        all="Bookkeeping too: rounds, turns, joining and leaving combat (U-2)",
    )
    @app_commands.autocomplete(character=history_autocomplete)
    async def history(
        self,
        interaction: Interaction,
        character: app_commands.Range[str, 1, 40] | None = None,
        limit: app_commands.Range[int, 1, 25] = HISTORY_DEFAULT,
        all: bool = False,
    ) -> None:
        found = await service.history(
            interaction.client.db, caller_of(interaction), character, limit, everything=all
        )
        reply = render.history(
            found.sheet,
            found.events,
            faces_for(interaction),
            deleted=found.deleted,
            everything=all,
        )
        await replies.deliver(interaction, reply)

    @app_commands.command(name="undo", description="GM: revert the latest change to a character")
    @app_commands.default_permissions(GM_ONLY)
    @app_commands.describe(character=CHARACTER)
    @app_commands.autocomplete(character=character_autocomplete)
    async def undo(self, interaction: Interaction, character: CharacterName) -> None:
        undone = await service.undo(interaction.client.db, caller_of(interaction), character)
        acted = undone.acted
        reply = outcome_reply(
            acted.outcome,
            character_id=acted.character_id,
            settings=acted.settings,
            faces=faces_for(interaction),
            in_combat=acted.in_combat,
        )
        await replies.deliver(interaction, render.undone(reply, undone.reverted))


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(TableCog())
