"""Every write of a character's sheet and of an event, built once on the Core tables.

The unit of work executes these statements through SQLAlchemy; the driver-level path
(hotpath.py) executes the same statements compiled once for its database, with the same
parameters and the same type processors. So each table has one write path, and a sheet, an
event and a timestamp are written the same way whichever path runs the command.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Insert, Select, Update, bindparam, select, update

from bot.db.codec import dump_rolls
from bot.db.tables import active_characters, characters, combat_members, combats, events, guilds
from rules.models import Sheet
from rules.names import name_key
from rules.outcome import is_change
from rules.rolls import Roll

UNDO = "undo"

# --- characters --------------------------------------------------------------------------------


def _save(*, keys: bool) -> Update:
    """Saves a sheet loaded at `version`: no row when another command saved it since
    (optimistic). With `keys`, the name key and the owner too."""
    values: dict[str, Any] = {
        "sheet": bindparam("new_sheet", type_=characters.c.sheet.type),
        "state": bindparam("new_state", type_=characters.c.state.type),
        "version": characters.c.version + 1,
        "updated_at": bindparam("now", type_=characters.c.updated_at.type),
    }
    if keys:
        values["name_key"] = bindparam("new_name_key", type_=characters.c.name_key.type)
        values["owner_id"] = bindparam("new_owner_id", type_=characters.c.owner_id.type)
    return (
        update(characters)
        .where(
            characters.c.id == bindparam("row_id"),
            characters.c.guild_id == bindparam("row_guild_id"),
            characters.c.version == bindparam("row_version"),
        )
        .values(**values)
    )


# The name key and the owner are indexed, and SQLite rewrites an index whenever its column is
# SET, even to the value it has (two more pages in the WAL at every commit; on a big database,
# two index pages it may not hold in memory): they are SET only when they change.
SAVE_CHARACTER: Update = _save(keys=True)
SAVE_SHEET: Update = _save(keys=False)


def row_keys(sheet: Sheet) -> tuple[str, int]:
    """The indexed columns a sheet gives its row: the name key and the owner."""
    return name_key(sheet.name), sheet.owner_id


def keys_change(before: Sheet, after: Sheet) -> bool:
    """Whether `after` gives its row other indexed columns than `before` (which save to run).
    The same name is the same key: folded only when the name changed (most saves keep it)."""
    if before.owner_id != after.owner_id:
        return True
    return before.name != after.name and name_key(before.name) != name_key(after.name)


def save_params(
    row_id: int, guild_id: int, version: int, sheet: Sheet, now: datetime, *, keys: bool = True
) -> dict[str, Any]:
    """The parameters of SAVE_CHARACTER, or (keys=False) of SAVE_SHEET, which has no name key
    to fold."""
    params = {
        "row_id": row_id,
        "row_guild_id": guild_id,
        "row_version": version,
        "new_sheet": sheet,
        "new_state": sheet.state.value,
        "now": now,
    }
    if keys:
        params["new_name_key"] = name_key(sheet.name)
        params["new_owner_id"] = sheet.owner_id
    return params


def new_character_values(guild_id: int, sheet: Sheet, now: datetime) -> dict[str, Any]:
    return {
        "guild_id": guild_id,
        "name_key": name_key(sheet.name),
        "owner_id": sheet.owner_id,
        "sheet": sheet,
        "state": sheet.state.value,
        "version": 1,
        "created_at": now,
        "updated_at": now,
    }


# --- events ------------------------------------------------------------------------------------

EVENT_COLUMNS = (
    "guild_id",
    "character_id",
    "user_id",
    "command",
    "inputs",
    "rolls",
    "rules",
    "sheet_before",
    "sheet_after",
    "is_change",
    "undoable",
    "created_at",
)
LOG_EVENT: Insert = events.insert()


def event_values(
    *,
    guild_id: int,
    character_id: int | None,
    user_id: int,
    command: str,
    inputs: dict[str, Any],
    before: Sheet | None,
    after: Sheet | None,
    rolls: Sequence[Roll] = (),
    rules: Sequence[str] = (),
    now: datetime,
) -> dict[str, Any]:
    """One event (U-1). U-2: a change when a player sees something change or dice were rolled,
    and an undo (it reverts a change, even a roll that changed no field); undoable (U-3) when
    it changed an existing sheet and is not an undo itself."""
    change = command == UNDO or is_change(before, after, rolls)
    return {
        "guild_id": guild_id,
        "character_id": character_id,
        "user_id": user_id,
        "command": command,
        "inputs": inputs,
        "rolls": dump_rolls(rolls),
        "rules": list(rules),
        "sheet_before": before,
        "sheet_after": after,
        "is_change": change,
        "undoable": change and command != UNDO and before is not None and after is not None,
        "created_at": now,
    }


def _typed(name: str) -> Any:
    return bindparam(name, type_=events.c[name].type)


def save_and_log(*, keys: bool) -> Any:
    """PostgreSQL: the save and the event in one statement, one round trip. The event is
    written only when the save found its row at the loaded version (else nothing: stale)."""
    saved = (SAVE_CHARACTER if keys else SAVE_SHEET).returning(characters.c.id).cte("saved")
    values = [
        _typed(column) if column != "character_id" else saved.c.id for column in EVENT_COLUMNS
    ]
    return events.insert().from_select(list(EVENT_COLUMNS), select(*values).select_from(saved))


# --- the load of a command's actor --------------------------------------------------------------

ACTOR_COLUMNS = (
    characters.c.id,
    characters.c.sheet,
    characters.c.version,
    guilds.c.settings,
    combats.c.id,
    combats.c.channel_id,
    combats.c.round,
)


Target = str | int | None  # a name, a row id (a button's), or None: the user's active one


def load_actor(target: Target) -> Select[Any]:
    """Settings, the character (by name key, by id, else the user's active one) and its
    combat, in one statement. Parameters: guild_id, and name_key, row_id or user_id."""
    if isinstance(target, str):
        which = characters.c.name_key == bindparam("name_key")
    elif isinstance(target, int):
        which = characters.c.id == bindparam("row_id")
    else:
        which = characters.c.id == (
            select(active_characters.c.character_id)
            .where(
                active_characters.c.guild_id == bindparam("guild_id"),
                active_characters.c.user_id == bindparam("user_id"),
            )
            .scalar_subquery()
        )
    return (
        select(*ACTOR_COLUMNS)
        .select_from(characters)
        .outerjoin(guilds, guilds.c.guild_id == characters.c.guild_id)
        .outerjoin(combat_members, combat_members.c.character_id == characters.c.id)
        .outerjoin(combats, combats.c.id == combat_members.c.combat_id)
        .where(characters.c.guild_id == bindparam("guild_id"), which)
    )


def actor_params(guild_id: int, target: Target, user_id: int) -> dict[str, Any]:
    if isinstance(target, str):
        return {"guild_id": guild_id, "name_key": name_key(target)}
    if isinstance(target, int):
        return {"guild_id": guild_id, "row_id": target}
    return {"guild_id": guild_id, "user_id": user_id}


SETTINGS = select(guilds.c.settings).where(guilds.c.guild_id == bindparam("guild_id"))
