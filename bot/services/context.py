"""What every service call carries in, and what the transaction runner hands a rule.

Shared contract between the persistence layer (which runs the transaction) and the
use-case services (which choose the rule to apply).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from enum import Enum

from rules.models import GuildSettings, Sheet


@dataclass(frozen=True)
class Caller:
    """Who typed the command, where. Built by the cog from the interaction."""

    guild_id: int
    channel_id: int
    user_id: int
    manage_guild: bool = False
    role_ids: frozenset[int] = frozenset()


class Permission(Enum):
    """RULES.md section 11."""

    ANYONE = "anyone"  # any member of the guild (first aid, listing)
    OWNER_OR_GM = "owner_or_gm"  # P-4
    GM = "gm"  # P-3


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
