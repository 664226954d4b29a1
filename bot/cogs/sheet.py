"""`/character …`: the sheet (COMMANDS.md, "Sheet"). Thin: parse, call a service, render.

Who may do what is checked by the services (rules.permissions). The group carries no
default_permissions: players use most of it, so Discord shows it to everyone.

Visibility: results are public; `show` is private unless `public:true` (a look-up that
changes nothing need not fill the channel), and `export` is private (only the owner or the GM
may take the sheet away). The delete question is private and only its asker can answer it; its
buttons are a prompt (bot/prompts.py): once it is answered or timed out they say "expired".
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import re
from collections.abc import Awaitable, Callable
from typing import Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot.cogs.common import (
    CHARACTER,
    CHARACTER_OR_ACTIVE,
    NO_PINGS,
    CharacterName,
    caller_of,
    character_autocomplete,
    reply,
    send_outcome,
)
from bot.prompts import Prompt
from bot.render.common import escape
from bot.render.sheet import sheet_embed
from bot.render.table import character_list, sheet_notice
from bot.services import sheet as service
from rules.models import MAX_NAME, Sheet
from rules.outcome import RuleError

Con = Literal["d6", "d8", "d10", "d12"]
Ability = app_commands.Range[int, -10, 20]
Name = app_commands.Range[str, 1, MAX_NAME]
CONFIRM_SECONDS = 60.0
DOWNLOAD_SECONDS = 2.0  # inside Discord's 3-second window

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


def filename(sheet: Sheet) -> str:
    """A safe attachment name: `Roryn.json`."""
    stem = re.sub(r"[^A-Za-z0-9_-]+", "_", sheet.name).strip("_") or "character"
    return f"{stem[:32]}.json"


async def read_attachment(attachment: discord.Attachment) -> bytes:
    """The default download: Discord's CDN through discord.py (the tests' driver serves it)."""
    return await attachment.read()


class ConfirmDelete(Prompt):
    """Delete or Cancel; only the member who asked can press; unanswered, it keeps the
    character."""

    kind = "delete"
    actions = ("confirm", "cancel")

    def __init__(
        self,
        asked: discord.Interaction,
        name: str,
        on_confirm: Callable[[discord.Interaction], Awaitable[None]],
        *,
        timeout: float,
    ) -> None:
        super().__init__(timeout=timeout)
        self.asked = asked
        self.name = name
        self.on_confirm = on_confirm

    def buttons(self) -> list[discord.ui.Button]:
        danger, secondary = discord.ButtonStyle.danger, discord.ButtonStyle.secondary
        return [
            discord.ui.Button(label="Delete", style=danger, custom_id=self.custom_id("confirm")),
            discord.ui.Button(label="Cancel", style=secondary, custom_id=self.custom_id("cancel")),
        ]

    def check(self, interaction: discord.Interaction) -> None:
        if interaction.user.id != self.asked.user.id:
            raise RuleError(
                "Only the member who asked to delete can answer. Use /character delete yourself."
            )

    async def answer(self, interaction: discord.Interaction, action: str) -> None:
        if action == "confirm":
            await self.on_confirm(interaction)
            return
        await interaction.response.edit_message(
            content=f"Kept **{escape(self.name)}**: nothing was deleted.",
            view=None,
            allowed_mentions=NO_PINGS,
        )

    async def on_timeout(self) -> None:
        # A dismissed private prompt cannot be edited: then there is nothing to tidy.
        with contextlib.suppress(discord.HTTPException):
            await self.asked.edit_original_response(
                content=f"No answer: **{escape(self.name)}** was kept.",
                view=None,
                allowed_mentions=NO_PINGS,
            )


class SheetCog(commands.GroupCog, group_name="character", group_description="Character sheets"):
    def __init__(self, bot: commands.Bot) -> None:
        self.bot = bot
        self.download: Callable[[discord.Attachment], Awaitable[bytes]] = read_attachment
        self.confirm_seconds = CONFIRM_SECONDS
        super().__init__()

    @property
    def db(self):
        return self.bot.db  # type: ignore[attr-defined]

    @property
    def rng(self):
        return self.bot.rng  # type: ignore[attr-defined]

    @app_commands.command(name="create", description="Create a character (defaults: RULES.md §1)")
    @app_commands.describe(
        name="The character's name, 1–32 characters, unique in this server",
        owner="GM only: the player who owns it (default: you)",
        **DESCRIBE_SHEET,
    )
    async def create(
        self,
        interaction: discord.Interaction,
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
            self.db,
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
        await reply(interaction, embeds=[sheet_embed(row.sheet, headline="created")])

    @app_commands.command(name="show", description="Show a whole character sheet")
    @app_commands.describe(
        character=CHARACTER_OR_ACTIVE,
        public="Show it to the channel (default: only to you)",
    )
    @app_commands.autocomplete(character=character_autocomplete)
    async def show(
        self,
        interaction: discord.Interaction,
        character: CharacterName | None = None,
        public: bool = False,
    ) -> None:
        row = await service.show_character(self.db, caller_of(interaction), character)
        await reply(interaction, embeds=[sheet_embed(row.sheet)], ephemeral=not public)

    @app_commands.command(name="list", description="This server's characters, owners and states")
    async def list_(self, interaction: discord.Interaction) -> None:
        rows = await service.list_characters(self.db, caller_of(interaction))
        await reply(interaction, embeds=[character_list(rows)])

    @app_commands.command(name="select", description="Make a character your active one")
    @app_commands.describe(character=f"{CHARACTER}: one of yours (the GM may pick any)")
    @app_commands.autocomplete(character=character_autocomplete)
    async def select(self, interaction: discord.Interaction, character: CharacterName) -> None:
        row = await service.select_character(self.db, caller_of(interaction), character)
        text = (
            f"{escape(row.sheet.name)} is now your active character: commands without "
            "`character` act on it."
        )
        await reply(interaction, embeds=[sheet_notice("Selected", row.sheet, text)])

    @app_commands.command(name="edit", description="Owner or GM: change fields that are not state")
    @app_commands.describe(
        character=CHARACTER, name="A new name, 1–32 characters", **DESCRIBE_SHEET
    )
    @app_commands.autocomplete(character=character_autocomplete)
    async def edit(
        self,
        interaction: discord.Interaction,
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
        outcome = await service.edit_character(
            self.db,
            caller_of(interaction),
            self.rng,
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
        await send_outcome(interaction, outcome)

    @app_commands.command(name="set", description="GM: set state fields directly")
    @app_commands.describe(
        character=CHARACTER,
        vit="Vitality (may be negative, at most max VIT)",
        stamina="Stamina, 0 to the CON die",
        stress="Stress, 0 or more",
        anger="Anger stack, 0 to the threshold",
        fear="Fear stack, 0 to the threshold",
        sadness="Sadness stack, 0 to the threshold",
        guilt="Guilt stack, 0 to the threshold",
        con_wounds="CON wounds, 0–3",
    )
    @app_commands.autocomplete(character=character_autocomplete)
    async def set_(
        self,
        interaction: discord.Interaction,
        character: CharacterName,
        vit: app_commands.Range[int, -10_000, 999] | None = None,
        stamina: app_commands.Range[int, 0, 12] | None = None,
        stress: app_commands.Range[int, 0, 999] | None = None,
        anger: app_commands.Range[int, 0, 20] | None = None,
        fear: app_commands.Range[int, 0, 20] | None = None,
        sadness: app_commands.Range[int, 0, 20] | None = None,
        guilt: app_commands.Range[int, 0, 20] | None = None,
        con_wounds: app_commands.Range[int, 0, 3] | None = None,
    ) -> None:
        outcome = await service.set_character(
            self.db,
            caller_of(interaction),
            self.rng,
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
        await send_outcome(interaction, outcome)

    @app_commands.command(name="delete", description="Owner or GM: delete a character (asks first)")
    @app_commands.describe(character=CHARACTER)
    @app_commands.autocomplete(character=character_autocomplete)
    async def delete(self, interaction: discord.Interaction, character: CharacterName) -> None:
        caller = caller_of(interaction)
        row = await service.check_delete(self.db, caller, character)

        async def confirmed(pressed: discord.Interaction) -> None:
            sheet = await service.delete_character(self.db, caller_of(pressed), row.id)
            await pressed.response.edit_message(
                content=f"Deleted **{escape(sheet.name)}**.", view=None, allowed_mentions=NO_PINGS
            )
            text = f"{escape(sheet.name)} was deleted. Its history stays in the log."
            await reply(pressed, embeds=[sheet_notice("Deleted", sheet, text)])

        prompt = ConfirmDelete(interaction, row.sheet.name, confirmed, timeout=self.confirm_seconds)
        await interaction.response.send_message(
            f"Delete **{escape(row.sheet.name)}** for good? Its history stays in the log.",
            view=self.bot.prompts.ask(prompt),  # type: ignore[attr-defined]
            ephemeral=True,
            allowed_mentions=NO_PINGS,
        )

    @app_commands.command(name="revive", description="GM: bring a Dead or Retired character back")
    @app_commands.describe(character=CHARACTER)
    @app_commands.autocomplete(character=character_autocomplete)
    async def revive(self, interaction: discord.Interaction, character: CharacterName) -> None:
        outcome = await service.revive_character(
            self.db, caller_of(interaction), self.rng, character
        )
        await send_outcome(interaction, outcome)

    @app_commands.command(name="export", description="Owner or GM: the sheet as a JSON file")
    @app_commands.describe(character=CHARACTER)
    @app_commands.autocomplete(character=character_autocomplete)
    async def export(self, interaction: discord.Interaction, character: CharacterName) -> None:
        sheet, data = await service.export_character(self.db, caller_of(interaction), character)
        await interaction.response.send_message(
            f"**{escape(sheet.name)}**'s sheet. Bring it back with /character import.",
            file=discord.File(io.BytesIO(data), filename=filename(sheet)),
            ephemeral=True,
            allowed_mentions=NO_PINGS,
        )

    @app_commands.command(name="import", description="A new character from an exported JSON file")
    @app_commands.describe(file="A .json file made by /character export")
    async def import_(self, interaction: discord.Interaction, file: discord.Attachment) -> None:
        caller = caller_of(interaction)
        if not _is_json(file):
            raise RuleError("Attach a .json file made by /character export: that file is not JSON.")
        if file.size > service.MAX_IMPORT_BYTES:
            raise RuleError(
                f"That file is over {service.MAX_IMPORT_BYTES // 1024} KB: attach a sheet "
                "made by /character export."
            )
        try:  # no defer: a refusal after a public defer would be public too
            data = await asyncio.wait_for(self.download(file), DOWNLOAD_SECONDS)
        except (TimeoutError, discord.HTTPException):
            raise RuleError("Discord did not hand over the file: attach it again.") from None
        row = await service.import_character(self.db, caller, data)
        await reply(interaction, embeds=[sheet_embed(row.sheet, headline="imported")])


def _is_json(file: discord.Attachment) -> bool:
    kind = (file.content_type or "").split(";")[0].strip().lower()
    return file.filename.lower().endswith(".json") or kind == "application/json"


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(SheetCog(bot))
