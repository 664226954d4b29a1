"""The pure rules engine of Last Gasp: no Discord, no database, no clock, no global random.

Every action takes the current sheet (and the guild settings and a random source where the rule
needs them) and returns an `Outcome` with the new sheet, or raises `RuleError` and changes nothing.
"""

from rules import notation, odds
from rules.condition import Injury, action_modifier, injury
from rules.dice import ScriptedRandom, manual_narateer, roll_narateer
from rules.emotions import (
    ABILITIES,
    ADDRESS_ACTIONS,
    BREAKDOWN_EFFECTS,
    complete_quest,
    raise_emotion,
    relief,
    situational_breakdown,
)
from rules.models import (
    CriticalBleed,
    DeathRule,
    Emotion,
    GuildSettings,
    ReactionReset,
    ReliefMethod,
    RestKind,
    Sheet,
    State,
)
from rules.outcome import Change, NarateerRoll, NumericRoll, Outcome, RuleError, diff
from rules.permissions import Permission, check, is_gm
from rules.sheet_ops import create_sheet, edit_sheet, revive, set_fields
from rules.stamina import act_early, push, react, recover_wound, rest, rest_all, spend, wound
from rules.table import early_actors, new_day, new_round, start_turn
from rules.vitality import damage, first_aid, heal, recover

__all__ = [
    "ABILITIES",
    "ADDRESS_ACTIONS",
    "BREAKDOWN_EFFECTS",
    "Change",
    "CriticalBleed",
    "DeathRule",
    "Emotion",
    "GuildSettings",
    "Injury",
    "NarateerRoll",
    "NumericRoll",
    "Outcome",
    "Permission",
    "ReactionReset",
    "ReliefMethod",
    "RestKind",
    "RuleError",
    "ScriptedRandom",
    "Sheet",
    "State",
    "act_early",
    "action_modifier",
    "check",
    "complete_quest",
    "create_sheet",
    "damage",
    "diff",
    "early_actors",
    "edit_sheet",
    "first_aid",
    "heal",
    "injury",
    "is_gm",
    "manual_narateer",
    "new_day",
    "new_round",
    "notation",
    "odds",
    "push",
    "raise_emotion",
    "react",
    "recover",
    "recover_wound",
    "relief",
    "rest",
    "rest_all",
    "revive",
    "roll_narateer",
    "set_fields",
    "situational_breakdown",
    "spend",
    "start_turn",
    "wound",
]
