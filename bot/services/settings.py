"""Use cases of `/settings`: read the guild settings, change them (GM, P-3)."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from bot.db.database import Database
from bot.services.base import given, require_gm
from bot.services.context import Caller
from rules.errors import RuleError
from rules.models import GuildSettings

# The option name a GM typed, where it differs from the model's field.
_OPTION = {"gm_role_id": "gm_role"}


async def show_settings(db: Database, caller: Caller) -> GuildSettings:
    """Anyone in the guild may read the settings."""
    async with db.transaction(caller.guild_id, read_only=True) as uow:
        return await uow.settings()


def _validated(current: GuildSettings, changes: dict[str, Any]) -> GuildSettings:
    """The settings' ranges, by the model itself; the first error becomes the refusal."""
    try:
        return GuildSettings.model_validate({**current.model_dump(), **changes})
    except ValidationError as error:
        first = error.errors()[0]
        field = str(first["loc"][0]) if first["loc"] else "settings"
        field = _OPTION.get(field, field)
        message = str(first["msg"]).removeprefix("Value error, ").rstrip(".")
        raise RuleError(
            "{field}: {message}. Nothing was changed.", field=field, message=message
        ) from None


async def set_settings(
    db: Database, caller: Caller, changes: dict[str, Any], *, clear_gm_role: bool = False
) -> tuple[GuildSettings, GuildSettings]:
    """P-3: GM only. `changes` maps GuildSettings fields to the options given (None: not
    given); clear_gm_role unsets the GM role. Returns (before, after)."""
    wanted = given(changes)
    if clear_gm_role:
        wanted["gm_role_id"] = None
    async with db.transaction(caller.guild_id) as uow:
        before = await require_gm(uow, caller, lock=True)
        if not wanted:
            raise RuleError(
                "Nothing to change: give at least one setting, "
                "e.g. /settings set death_rule:instant."
            )
        after = _validated(before, wanted)
        await uow.save_settings(after)
        inputs = {
            "changes": after.model_dump(mode="json", include=set(wanted)),
            "before": before.model_dump(mode="json"),
            "after": after.model_dump(mode="json"),
        }
        await uow.log(None, caller.user_id, "settings set", inputs)
    return before, after
