"""Who may do what (P-1..P-4; P-5 and P-6 are in sheet_ops)."""

from __future__ import annotations

from collections.abc import Iterable
from enum import Enum

from rules.errors import RuleError
from rules.models import GuildSettings


class Permission(Enum):
    """Who may act (P-1..P-4). Lives here so that rules/ needs nothing from bot/."""

    ANYONE = "anyone"  # any member of the guild (first aid, listing)
    OWNER_OR_GM = "owner_or_gm"  # P-4
    GM = "gm"  # P-3


def is_gm(settings: GuildSettings, manage_guild: bool, role_ids: Iterable[int]) -> bool:
    """P-1: Manage Server, or the guild's GM role when one is set."""
    if manage_guild:
        return True
    return settings.gm_role_id is not None and settings.gm_role_id in set(role_ids)


def check(permission: Permission, *, is_gm: bool, owner_id: int | None, user_id: int) -> None:
    """P-2..P-4: refuse with a message that says who may do it instead."""
    if permission is Permission.ANYONE or is_gm:
        return
    if permission is Permission.GM:
        raise RuleError(
            "Only the GM can do that (P-3). Ask a member with Manage Server or the GM role."
        )
    if owner_id != user_id:
        raise RuleError(
            "That character belongs to another player: only its owner or the GM can do that "
            "(P-4). Pick one of your own characters with /character select."
        )
