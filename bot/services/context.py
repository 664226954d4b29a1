"""What every service call carries in, and what the transaction runner hands a rule.

The seam between the bot (which builds a Caller from an interaction) and the use cases (which
choose the rule to apply); nothing here knows Discord.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from rules.models import GuildSettings, Sheet
from rules.outcome import Outcome
from rules.permissions import Permission

__all__ = ["Acted", "ActionContext", "Caller", "Permission", "Target"]

# A character named by its name, by its row id (a button's), or None: the caller's active one.
Target = str | int | None


@dataclass(frozen=True)
class Caller:
    """Who typed the command or pressed the button, where. Built by the bot from the
    interaction."""

    guild_id: int
    channel_id: int
    user_id: int
    manage_guild: bool = False
    role_ids: frozenset[int] = frozenset()


@dataclass(frozen=True)
class ActionContext:
    """Handed to a rule application inside the transaction of one command."""

    sheet: Sheet
    settings: GuildSettings
    rng: random.Random
    is_gm: bool
    caller_id: int
    in_combat: bool = False
    combat_round: int | None = None


@dataclass(frozen=True)
class Acted:
    """A rule applied to one character and saved: what happened, to which row, under which
    settings (the reply needs all three)."""

    outcome: Outcome
    character_id: int
    settings: GuildSettings
    in_combat: bool = False  # whether the reply may offer this round's recovery roll
