"""Option values checked against the command's own declaration, before the command runs.

Discord's client enforces each option's type, range, length and choices, but discord.py passes
the values on unchecked, and a broken or hostile client can send anything: the tree refuses
such an interaction here (one place for every command), from the same declaration that is
registered with Discord, so the limits are written once.
"""

from __future__ import annotations

from collections.abc import Sequence

import discord
from discord import app_commands

MAX_SAFE_INTEGER = 2**53  # Discord's integer options lie within ±2^53
MAX_STRING = 6000  # Discord's longest string option

_Type = discord.AppCommandOptionType
_SNOWFLAKE_TYPES = (_Type.user, _Type.channel, _Type.role, _Type.mentionable, _Type.attachment)


def leaf_options(interaction: discord.Interaction) -> list[dict]:
    """The raw options of the command itself (subcommands nest them one or two levels down)."""
    data = interaction.data or {}
    options = data.get("options") or []
    while options and isinstance(options[0], dict) and options[0].get("type") in (1, 2):
        options = options[0].get("options") or []
    return [o for o in options if isinstance(o, dict)]


def bad_option(interaction: discord.Interaction) -> str | None:
    """What is wrong with the first option whose value breaks its declaration, or None."""
    command = interaction.command
    if not isinstance(command, app_commands.Command):
        return None
    declared = {p.display_name: p for p in command.parameters}
    autocomplete = interaction.type is discord.InteractionType.autocomplete
    for option in leaf_options(interaction):
        name, value = option.get("name"), option.get("value")
        param = declared.get(name)  # type: ignore[arg-type]
        if param is None or (autocomplete and option.get("focused")):
            continue  # an option the bot does not know is ignored; a typed partial is free text
        problem = _wrong_type(param.type, value)
        if problem:
            return f"`{name}` {problem} Check the option and retry."
        problem = _out_of_bounds(param, value)
        if problem:
            return problem
    return None


def _wrong_type(kind: _Type, value: object) -> str | None:
    if kind is _Type.string:
        if not isinstance(value, str):
            return "must be text."
        if "\x00" in value:
            return "contains a character that cannot be stored (NUL)."
    elif kind is _Type.integer:
        if isinstance(value, bool) or not isinstance(value, int):
            return "must be a whole number."
        if abs(value) > MAX_SAFE_INTEGER:
            return "is too large."
    elif kind is _Type.number:
        if isinstance(value, bool) or not isinstance(value, int | float):
            return "must be a number."
    elif kind is _Type.boolean:
        if not isinstance(value, bool):
            return "must be true or false."
    elif kind in _SNOWFLAKE_TYPES and not (isinstance(value, str) and value.isdigit()):
        return "must be picked from Discord's list."
    return None


def _out_of_bounds(param: app_commands.Parameter, value: object) -> str | None:
    name = param.display_name
    if param.choices:
        allowed = [choice.value for choice in param.choices]
        if value not in allowed:
            return _choice(allowed, name)
    if param.type is _Type.string:
        return _length(value, param.min_value, param.max_value, name)  # type: ignore[arg-type]
    if param.type is _Type.integer:
        return _range(value, param.min_value, param.max_value, name)  # type: ignore[arg-type]
    return None


def _choice(allowed: Sequence[object], option: str) -> str:
    return f"`{option}` must be one of {', '.join(map(str, allowed))}."


def _length(value: str, low: float | None, high: float | None, option: str) -> str | None:
    high = int(high or MAX_STRING)
    if len(value) > high:
        return f"`{option}` takes at most {high} characters. Shorten it and retry."
    if low and len(value) < low:
        return f"`{option}` takes at least {int(low)} characters."
    return None


def _range(value: int, low: float | None, high: float | None, option: str) -> str | None:
    low = -MAX_SAFE_INTEGER if low is None else int(low)
    high = MAX_SAFE_INTEGER if high is None else int(high)
    if not low <= value <= high:
        return f"`{option}` must be between {low} and {high}. Enter a value in that range."
    return None
