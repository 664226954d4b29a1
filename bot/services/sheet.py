"""Use cases of `/character`: create, read, select, edit, set, delete, revive, export, import,
give.

Each is one transaction: load, check permission (rules.permissions, P-5, P-6), apply a rule
(rules.sheet_ops), save, log the event with the sheet before and after.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from typing import Any

from bot.db.database import Database
from bot.db.records import CharacterRow
from bot.services.base import (
    change_character,
    check_permission,
    given,
    is_gm,
    lookup,
    read_character,
)
from bot.services.context import Acted, ActionContext, Caller, Permission, Target
from rules import sheet_ops
from rules.errors import RuleError
from rules.models import Sheet
from rules.outcome import Outcome

EXPORT_FORMAT = "last-gasp/sheet"
EXPORT_VERSION = 1
# An export of the largest sheet is well under 2 KB; anything much bigger is not a sheet.
MAX_IMPORT_BYTES = 64 * 1024


# --- create, read, select --------------------------------------------------------------------


async def create_character(
    db: Database, caller: Caller, name: str, *, owner_id: int | None = None, **fields: Any
) -> CharacterRow:
    """Anyone may create their own; `owner` (another player's character) is the GM's.
    The new character becomes its owner's active one when the owner has none yet."""
    async with db.transaction(caller.guild_id) as uow:
        settings = await uow.settings()
        owner = caller.user_id if owner_id is None else owner_id
        if owner != caller.user_id and not is_gm(settings, caller):
            raise RuleError(
                "Only the GM can create a character for another player (P-3): leave out "
                "`owner` to create your own."
            )
        sheet = sheet_ops.create_sheet(name, owner, settings, **fields)
        row = await uow.add_character(sheet)
        if await uow.active_character(owner, lock=False) is None:
            await uow.set_active(owner, row.id)
        inputs = {"name": name, "owner_id": owner, **given(fields)}
        await uow.log(row.id, caller.user_id, "character create", inputs, after=sheet)
    return row


async def show_character(db: Database, caller: Caller, target: Target) -> CharacterRow:
    """Anyone in the guild may read any of its sheets (P-2: never another guild's)."""
    row, _ = await read_character(db, caller, target)
    return row


async def list_characters(db: Database, caller: Caller) -> list[CharacterRow]:
    async with db.transaction(caller.guild_id, read_only=True) as uow:
        return await uow.characters()


async def characters_of(db: Database, caller: Caller, owner_id: int) -> list[CharacterRow]:
    """A member's characters in the caller's server, by name (what /character list shows of
    them: any member may look, P-2 keeps it to this server)."""
    async with db.transaction(caller.guild_id, read_only=True) as uow:
        return [row for row in await uow.characters() if row.sheet.owner_id == owner_id]


async def select_character(db: Database, caller: Caller, name: str) -> CharacterRow:
    """A player selects its own characters; the GM may select any (P-2, P-4)."""
    async with db.transaction(caller.guild_id) as uow:
        row = await lookup(uow, caller, name, Permission.OWNER_OR_GM)
        await uow.set_active(caller.user_id, row.id)
        await uow.log(row.id, caller.user_id, "character select", {"character": row.sheet.name})
    return row


# --- changes through the shared runner -------------------------------------------------------


async def edit_character(
    db: Database, caller: Caller, rng: random.Random, character: str, **fields: Any
) -> Acted:
    """P-4: owner or GM, the fields that are not state; P-5 for the rule fields."""
    changes = given(fields)

    def rule(ctx: ActionContext) -> Outcome:
        return sheet_ops.edit_sheet(ctx.sheet, by_gm=ctx.is_gm, in_combat=ctx.in_combat, **changes)

    return await change_character(
        db, caller, rng, "character edit", character, Permission.OWNER_OR_GM, rule, changes
    )


async def set_character(
    db: Database, caller: Caller, rng: random.Random, character: str, **fields: Any
) -> Acted:
    """P-3: the GM sets state fields directly; V-6 under instant death."""
    changes = given(fields)

    def rule(ctx: ActionContext) -> Outcome:
        return sheet_ops.set_fields(ctx.sheet, ctx.settings, **changes)

    return await change_character(
        db, caller, rng, "character set", character, Permission.GM, rule, changes
    )


async def revive_character(
    db: Database, caller: Caller, rng: random.Random, name: str, *, stress: int | None = None
) -> Acted:
    """P-3: V-5, E-7 (refused while Stress ≥ VIT unless `stress` lowers it)."""

    def rule(ctx: ActionContext) -> Outcome:
        return sheet_ops.revive(ctx.sheet, stress=stress)

    return await change_character(
        db, caller, rng, "character revive", name, Permission.GM, rule, {"stress": stress}
    )


async def give_character(
    db: Database, caller: Caller, rng: random.Random, name: str, *, to: int
) -> Acted:
    """GM: hand a character to another member of the guild (a change of owner, U-2)."""

    def rule(ctx: ActionContext) -> Outcome:
        return sheet_ops.give(ctx.sheet, to)

    return await change_character(
        db, caller, rng, "character give", name, Permission.GM, rule, {"to": to}
    )


# --- delete: asked first, done after the confirmation button ---------------------------------


async def check_delete(db: Database, caller: Caller, name: str) -> CharacterRow:
    """Owner or GM (P-4). Changes nothing: the button asks before delete_character."""
    async with db.transaction(caller.guild_id, read_only=True) as uow:
        return await lookup(uow, caller, name, Permission.OWNER_OR_GM)


async def delete_character(db: Database, caller: Caller, character_id: int) -> Sheet:
    """After the confirmation: checked again, since the sheet may have changed meanwhile.
    The log keeps the sheet as it was (the event outlives the character)."""
    async with db.transaction(caller.guild_id) as uow:
        row = await uow.character_by_id(character_id)
        if row is None:
            raise RuleError("That character was already deleted. Nothing was changed.")
        gm = is_gm(await uow.settings(), caller)
        check_permission(Permission.OWNER_OR_GM, gm, row.sheet.owner_id, caller)
        await uow.log(
            row.id,
            caller.user_id,
            "character delete",
            {"character": row.sheet.name},
            before=row.sheet,
        )
        await uow.delete_character(row.id)
    return row.sheet


async def character_exists(db: Database, caller: Caller, character_id: int) -> bool:
    """Whether the character a delete question is about is still there (a Cancel after the
    Delete must not say that nothing was deleted)."""
    async with db.transaction(caller.guild_id, read_only=True) as uow:
        return await uow.character_by_id(character_id, lock=False) is not None


# --- export and import -----------------------------------------------------------------------


async def export_character(db: Database, caller: Caller, name: str) -> tuple[Sheet, bytes]:
    """Owner or GM: the sheet as JSON, readable by import_character."""
    async with db.transaction(caller.guild_id, read_only=True) as uow:
        sheet = (await lookup(uow, caller, name, Permission.OWNER_OR_GM)).sheet
    document = {
        "format": EXPORT_FORMAT,
        "version": EXPORT_VERSION,
        "sheet": sheet.model_dump(mode="json"),
    }
    return sheet, json.dumps(document, indent=2, ensure_ascii=False).encode()


def read_export(data: bytes) -> dict[str, Any]:
    """The sheet object of an exported file (or a bare sheet object), as written: P-6 decides
    what of it is taken."""
    if len(data) > MAX_IMPORT_BYTES:
        raise RuleError(
            f"That file is over {MAX_IMPORT_BYTES // 1024} KB: attach a sheet exported with "
            "/character export."
        )
    try:
        document = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        # ValueError: not JSON, or a number too long to read (Python's 4,300-digit limit).
        raise RuleError(
            "That file is not a sheet this bot can read (not JSON, or a number far too long): "
            "attach a sheet exported with /character export."
        ) from None
    if isinstance(document, dict) and document.get("format") == EXPORT_FORMAT:
        if document.get("version") != EXPORT_VERSION:
            raise RuleError(
                f"That export is not version {EXPORT_VERSION}, the one this bot reads: "
                "export the sheet again."
            )
        document = document.get("sheet")
    if not isinstance(document, dict):
        raise RuleError("That file holds no sheet: attach a sheet exported with /character export.")
    return document


@dataclass(frozen=True)
class Imported:
    row: CharacterRow
    left_out: list[str]  # the state a player's import started fresh (P-6)


async def import_character(
    db: Database,
    caller: Caller,
    data: bytes,
    *,
    name: str | None = None,
    owner_id: int | None = None,
) -> Imported:
    """P-6: a new character, the importer's; a player's import brings the build only. `name`
    imports it under another name (a clash is fixed without editing the file); `owner_id`
    imports it for another player, which is the GM's (as in create_character)."""
    document = read_export(data)
    async with db.transaction(caller.guild_id) as uow:
        settings = await uow.settings()
        gm = is_gm(settings, caller)
        owner = caller.user_id if owner_id is None else owner_id
        if owner != caller.user_id and not gm:
            raise RuleError(
                "Only the GM can import a character for another player (P-6): leave out "
                "owner to import it as your own."
            )
        sheet, left_out = sheet_ops.import_sheet(document, owner, settings, by_gm=gm, name=name)
        if await uow.character(sheet.name, lock=False) is not None:
            raise RuleError(
                "This server already has a character named {name}. Import the sheet under "
                "another name with the import's name option.",
                name=sheet.name,
            )
        row = await uow.add_character(sheet)
        if await uow.active_character(owner, lock=False) is None:
            await uow.set_active(owner, row.id)
        inputs = {"name": sheet.name, **({"owner_id": owner} if owner != caller.user_id else {})}
        await uow.log(row.id, caller.user_id, "character import", inputs, after=sheet)
    return Imported(row, left_out)
