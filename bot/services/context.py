"""What every service call carries in, and what the transaction runner hands a rule.

Shared contract between the persistence layer (which runs the transaction) and the
use-case services (which choose the rule to apply).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from rules.models import GuildSettings, Sheet
from rules.permissions import Permission

__all__ = ["ActionContext", "Caller", "CharacterRow", "Permission"]


@dataclass(frozen=True)
class Caller:
    """Who typed the command, where. Built by the cog from the interaction."""

    guild_id: int
    channel_id: int
    user_id: int
    manage_guild: bool = False
    role_ids: frozenset[int] = frozenset()


@dataclass(frozen=True)
class CharacterRow:
    id: int
    guild_id: int
    sheet: Sheet


@dataclass
class ActionContext:
    """Handed to a rule application inside the transaction of one command."""

    sheet: Sheet
    settings: GuildSettings
    rng: random.Random
    is_gm: bool
    caller_id: int
    in_combat: bool = False
    combat_round: int | None = None
    extra: dict = field(default_factory=dict)
