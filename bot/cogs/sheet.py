"""`/character …`: the sheet. Thin: parse, call a service, render.

Who may do what is checked by the services (rules.permissions, P-5, P-6). The group carries
no default_permissions: players use most of it, so Discord shows it to everyone.

Visibility: results are public; `show` is private unless `public:true` (a look-up that
changes nothing need not fill the channel), and `export` is private (only the owner or the GM
may take the sheet away). The delete question is private and only its asker can answer it.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import Literal

import discord
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
    send_acted,
)
from bot.people import caller_of
from bot.questions import after_deadline, answered
from bot.render.sheet import (
    created_reply,
    delete_question,
    delete_unanswered,
    export_reply,
    imported_reply,
    selected_notice,
    sheet_reply,
)
from bot.render.table import character_list, member_characters
from bot.services import sheet as service
from rules.errors import RuleError
from rules.names import MAX_NAME_LENGTH

Con = Literal["d6", "d8", "d10", "d12"]
Ability = app_commands.Range[int, -10, 20]
# Discord counts max_length in UTF-16 units; a name's 32 characters are counted by the rules
# (rules.names, as the user sees them), so the option lets the longest name through.
Name = app_commands.Range[str, 1, MAX_NAME_LENGTH]
NAME = "1–32 characters (an emoji counts as one), unique in this server"
CONFIRM_SECONDS = 60
DOWNLOAD_SECONDS = 1.5  # inside Discord's 3-second window

DESCRIBE_SHEET = {
    "max_vit": "Maximum Vitality, 1–999 (default 10)",
    "res": "Resilience, 0–20 (default 2)",
    "con": "CON Ability Die, before wounds (default d8)",
    "humility": "Humility, −10–20 (default 0)",
    "composure": "Composure, −10–20 (default 0)",
    "insight": "Insight, −10–20 (default 0)",
    "threshold": "Emotion threshold, 1–20 (default: the server's)",
}


def _con_size(con: str | None) -> int | None:
    return None if con is None else int(con.removeprefix("d"))


async def read_attachment(attachment: discord.Attachment) -> bytes:
    """The default download: Discord's CDN through discord.py (the tests' driver serves it)."""
    return await attachment.read()


class SheetCog(commands.GroupCog, group_name="character", group_description="Character sheets"):
    def __init__(self) -> None:
        self.download: Callable[[discord.Attachment], Awaitable[bytes]] = read_attachment
        self.confirm_seconds = CONFIRM_SECONDS
        super().__init__()

    @app_commands.command(name="create", description="Create a character (docs/rules.md: defaults)")
    @app_commands.describe(
        name=f"The character's name, {NAME}",
        owner="GM only: the player who owns it (default: you)",
        **DESCRIBE_SHEET,
    )
    async def create(
        self,
        interaction: Interaction,
        name: Name,
        max_vit: app_commands.Range[int, 1, 999] | None = None,
        res: app_commands.Range[int, 0, 20] | None = None,
        con: Con | None = None,
        humility: Ability | None = None,
        composure: Ability | None = None,
        insight: Ability | None = None,
        threshold: app_commands.Range[int, 1, 20] | None = None,
        owner: discord.Member | None = None,
    ) -> None:
        row = await service.create_character(
            interaction.client.db,
            caller_of(interaction),
            name,
            owner_id=owner.id if owner else None,
            max_vit=max_vit,
            res=res,
            con_base=_con_size(con),
            humility=humility,
            composure=composure,
            insight=insight,
            threshold=threshold,
        )
        await replies.deliver(interaction, created_reply(row.sheet))

    @app_commands.command(name="show", description="Show a character sheet")
    @app_commands.describe(
        character=CHARACTER_OR_ACTIVE, public="Show it to the channel (default: only to you)"
    )
    @app_commands.autocomplete(character=character_autocomplete)
    async def show(
        self, interaction: Interaction, character: CharacterName | None = None, public: bool = False
    ) -> None:
        row = await service.show_character(interaction.client.db, caller_of(interaction), character)
        await replies.deliver(interaction, sheet_reply(row.sheet, private=not public))

    @app_commands.command(name="list", description="This server's characters, owners and states")
    async def list_(self, interaction: Interaction) -> None:
        rows = await service.list_characters(interaction.client.db, caller_of(interaction))
        await replies.deliver(interaction, character_list(rows))

    @app_commands.command(name="select", description="Make a character your active one")
    @app_commands.describe(character=f"{CHARACTER}: one of yours (the GM may pick any)")
    @app_commands.autocomplete(character=character_autocomplete)
    async def select(self, interaction: Interaction, character: CharacterName) -> None:
        row = await service.select_character(
            interaction.client.db, caller_of(interaction), character
        )
        await replies.deliver(interaction, selected_notice(row.sheet))

    @app_commands.command(name="edit", description="Owner or GM: change fields that are not state")
    @app_commands.describe(character=CHARACTER, name=f"A new name, {NAME}", **DESCRIBE_SHEET)
    @app_commands.autocomplete(character=character_autocomplete)
    async def edit(
        self,
        interaction: Interaction,
        character: CharacterName,
        name: Name | None = None,
        max_vit: app_commands.Range[int, 1, 999] | None = None,
        res: app_commands.Range[int, 0, 20] | None = None,
        con: Con | None = None,
        humility: Ability | None = None,
        composure: Ability | None = None,
        insight: Ability | None = None,
        threshold: app_commands.Range[int, 1, 20] | None = None,
    ) -> None:
        bot = interaction.client
        acted = await service.edit_character(
            bot.db,
            caller_of(interaction),
            bot.rng,
            character,
            name=name,
            max_vit=max_vit,
            res=res,
            con_base=_con_size(con),
            humility=humility,
            composure=composure,
            insight=insight,
            threshold=threshold,
        )
        await send_acted(interaction, acted)

    @app_commands.command(name="set", description="GM: set state fields directly")
    @app_commands.default_permissions(GM_ONLY)
    @app_commands.describe(
        character=CHARACTER,
        vit="Vitality (-10000 up to max VIT)",
        stamina="Stamina, 0 to the CON die",
        stress="Stress, 0–10000",
        anger="Anger stack, 0 to the threshold",
        fear="Fear stack, 0 to the threshold",
        sadness="Sadness stack, 0 to the threshold",
        guilt="Guilt stack, 0 to the threshold",
        con_wounds="CON wounds, 0–3",
    )
    @app_commands.autocomplete(character=character_autocomplete)
    async def set_(
        self,
        interaction: Interaction,
        character: CharacterName,
        vit: app_commands.Range[int, -10_000, 999] | None = None,
        stamina: app_commands.Range[int, 0, 12] | None = None,
        stress: app_commands.Range[int, 0, 10_000] | None = None,
        anger: app_commands.Range[int, 0, 20] | None = None,
        fear: app_commands.Range[int, 0, 20] | None = None,
        sadness: app_commands.Range[int, 0, 20] | None = None,
        guilt: app_commands.Range[int, 0, 20] | None = None,
        con_wounds: app_commands.Range[int, 0, 3] | None = None,
    ) -> None:
        bot = interaction.client
        acted = await service.set_character(
            bot.db,
            caller_of(interaction),
            bot.rng,
            character,
            vit=vit,
            stamina=stamina,
            stress=stress,
            anger=anger,
            fear=fear,
            sadness=sadness,
            guilt=guilt,
            con_wounds=con_wounds,
        )
        await send_acted(interaction, acted)

    @app_commands.command(name="delete", description="Owner or GM: delete a character (asks first)")
    @app_commands.describe(character=CHARACTER)
    @app_commands.autocomplete(character=character_autocomplete)
    async def delete(self, interaction: Interaction, character: CharacterName) -> None:
        caller = caller_of(interaction)
        row = await service.check_delete(interaction.client.db, caller, character)
        until = int(interaction.client.clock().timestamp() + self.confirm_seconds)
        await replies.deliver(
            interaction, delete_question(row.sheet, row.id, caller.user_id, until)
        )

        async def time_out() -> None:
            if answered(interaction.client, (row.id, caller.user_id, until)):
                return  # the answer stays as it is (bot/questions.py)
            with contextlib.suppress(discord.HTTPException):  # dismissed already
                await interaction.edit_original_response(
                    **replies.message(delete_unanswered(row.sheet))
                )

        after_deadline(self.confirm_seconds, time_out)

    @app_commands.command(name="revive", description="GM: bring a Dead or Retired character back")
    @app_commands.default_permissions(GM_ONLY)
    @app_commands.describe(
        character=CHARACTER, stress="Its Stress after the revival, 0–10000 (E-7: below its VIT)"
    )
    @app_commands.autocomplete(character=character_autocomplete)
    async def revive(
        self,
        interaction: Interaction,
        character: CharacterName,
        stress: app_commands.Range[int, 0, 10_000] | None = None,
    ) -> None:
        bot = interaction.client
        acted = await service.revive_character(
            bot.db, caller_of(interaction), bot.rng, character, stress=stress
        )
        await send_acted(interaction, acted)

    @app_commands.command(name="give", description="GM: hand a character to another member")
    @app_commands.default_permissions(GM_ONLY)
    @app_commands.describe(character=CHARACTER, to="The member who owns it from now on")
    @app_commands.autocomplete(character=character_autocomplete)
    async def give(
        self, interaction: Interaction, character: CharacterName, to: discord.Member
    ) -> None:
        bot = interaction.client
        acted = await service.give_character(
            bot.db, caller_of(interaction), bot.rng, character, to=to.id
        )
        await send_acted(interaction, acted)

    @app_commands.command(name="export", description="Owner or GM: the sheet as a JSON file")
    @app_commands.describe(character=CHARACTER)
    @app_commands.autocomplete(character=character_autocomplete)
    async def export(self, interaction: Interaction, character: CharacterName) -> None:
        sheet, data = await service.export_character(
            interaction.client.db, caller_of(interaction), character
        )
        await replies.deliver(interaction, export_reply(sheet, data))

    @app_commands.command(name="import", description="A new character from an exported JSON file")
    @app_commands.describe(
        file="A .json file made by /character export",
        name="Import it under this name, not the file's (1–32 characters, an emoji is one)",
        owner="GM only: the player who owns it (default: you)",
    )
    async def import_(
        self,
        interaction: Interaction,
        file: discord.Attachment,
        name: Name | None = None,
        owner: discord.Member | None = None,
    ) -> None:
        caller = caller_of(interaction)
        if not _is_json(file):
            raise RuleError("Attach a .json file made by /character export: that file is not JSON.")
        if file.size > service.MAX_IMPORT_BYTES:
            raise RuleError(
                f"That file is over {service.MAX_IMPORT_BYTES // 1024} KB: attach a sheet "
                "made by /character export."
            )
        try:
            data = await asyncio.wait_for(self.download(file), DOWNLOAD_SECONDS)
        except (TimeoutError, discord.HTTPException):
            raise RuleError("Discord did not hand over the file: attach it again.") from None
        imported = await service.import_character(
            interaction.client.db,
            caller,
            data,
            name=name,
            owner_id=owner.id if owner else None,
        )
        await replies.deliver(interaction, imported_reply(imported.row.sheet, imported.left_out))


def _is_json(file: discord.Attachment) -> bool:
    kind = (file.content_type or "").split(";")[0].strip().lower()
    return file.filename.lower().endswith(".json") or kind == "application/json"


async def characters_of(interaction: Interaction, member: discord.Member) -> None:
    """The user menu "Characters" (right-click a member → Apps): that member's characters in
    this server, privately, with /character list's lines."""
    rows = await service.characters_of(interaction.client.db, caller_of(interaction), member.id)
    await replies.deliver(interaction, member_characters(member.display_name, rows))


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(SheetCog())
    bot.tree.add_command(app_commands.ContextMenu(name="Characters", callback=characters_of))
