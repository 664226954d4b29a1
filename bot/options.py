"""The options of a command checked against the command's own declaration, before it runs.

Discord's client enforces each option's type, range, length and choices, but discord.py takes
the payload as it comes, and a broken or hostile client can send anything: an option without a
type, a value of the wrong kind, a user id missing from `resolved`, a required option left out.
The tree refuses such an interaction here, in one place for every command, from the same
declaration that is registered with Discord, so that the limits are written once and every
interaction is answered (discord.py would otherwise fail on it before any handler runs).
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import discord
from discord import app_commands

MAX_SAFE_INTEGER = 2**53  # Discord's integer options lie within ±2^53
MAX_STRING = 6000  # Discord's longest string option
MAX_AUTOCOMPLETE = 100  # what anyone can type into an option worth completing

_Type = discord.AppCommandOptionType
# Where `resolved` holds the object an option's id names.
_RESOLVED = {
    _Type.user: ("users",),
    _Type.role: ("roles",),
    _Type.attachment: ("attachments",),
    _Type.channel: ("channels",),
    _Type.mentionable: ("users", "roles"),
}
_GROUPS = (1, 2)  # subcommand, subcommand group


class Malformed(Exception):
    """The payload is not what Discord sends: say what is wrong, briefly."""


def _leaf_options(data: Any) -> list[Any]:
    """The command's own options (subcommands nest them one or two levels down), checked for
    the shape Discord gives them."""
    if not isinstance(data, dict) or not isinstance(data.get("name"), str):
        raise Malformed("This command arrived incomplete. Try it again.")
    options = data.get("options", [])
    for _ in range(3):
        if not isinstance(options, list) or not all(isinstance(o, dict) for o in options):
            raise Malformed("This command's options arrived garbled. Try it again.")
        groups = [o for o in options if o.get("type") in _GROUPS]
        if not groups:
            return options
        group = groups[0]
        if not isinstance(group.get("name"), str):
            raise Malformed("This command arrived incomplete. Try it again.")
        options = group.get("options", [])
    raise Malformed("This command's options arrived garbled. Try it again.")


def leaf_options(interaction: discord.Interaction[Any]) -> list[dict[str, Any]]:
    """The raw options of the command itself, or [] when the payload is malformed."""
    try:
        return _leaf_options(interaction.data)
    except Malformed:
        return []


@dataclass(frozen=True, slots=True)
class _Declared:
    """One declared option, read once from discord.py's Parameter (whose properties delegate,
    and whose `choices` copies its list, on every access)."""

    name: str
    type: _Type
    type_value: int  # as the payload gives it
    choices: tuple[object, ...] | None  # the allowed values, when the option has choices
    low: float | None  # min_value: a string's shortest length, an integer's least value
    high: float | None

    @classmethod
    def of(cls, param: app_commands.Parameter) -> _Declared:
        choices = tuple(c.value for c in param.choices) if param.choices else None
        kind = param.type
        return cls(param.display_name, kind, kind.value, choices, param.min_value, param.max_value)


# A command's declared options (by name) and its required ones, read once: every interaction
# is checked here.
_DECLARATIONS: weakref.WeakKeyDictionary[
    app_commands.Command[Any, ..., Any], tuple[dict[str, _Declared], tuple[str, ...]]
] = weakref.WeakKeyDictionary()


def _declared(
    command: app_commands.Command[Any, ..., Any],
) -> tuple[dict[str, _Declared], tuple[str, ...]]:
    found = _DECLARATIONS.get(command)
    if found is None:
        params = command.parameters
        found = (
            {p.display_name: _Declared.of(p) for p in params},
            tuple(p.display_name for p in params if p.required),
        )
        _DECLARATIONS[command] = found
    return found


def problem(interaction: discord.Interaction[Any]) -> str | None:
    """What is wrong with this interaction's options, or None. For an autocomplete, the
    focused option may hold any partial text (it is checked by the completion itself)."""
    try:
        options = _leaf_options(interaction.data)
    except Malformed as error:
        return str(error)
    command = interaction.command
    if not isinstance(command, app_commands.Command):
        return None  # a command the bot does not know: the tree says so (out of date)
    autocomplete = interaction.type is discord.InteractionType.autocomplete
    declared, required = _declared(command)
    data: Any = interaction.data or {}
    resolved = data.get("resolved") or {}
    given = set()
    for option in options:
        name = option.get("name")
        param = declared.get(name) if isinstance(name, str) else None
        if param is None:
            return (
                f"`{_shown(name)}` is not an option of this command. Check the command and retry."
            )
        given.add(name)
        if autocomplete and option.get("focused"):
            # Any partial text, but of the declared type (discord.py reads it by that type).
            if option.get("type") != param.type_value or "value" not in option:
                return _not_as_declared(name)
            continue
        found = _problem(param, option, resolved)
        if found:
            return found
    if not autocomplete:
        missing = [name for name in required if name not in given]
        if missing:
            return f"`{missing[0]}` is missing: give it a value and retry."
    return None


def focused_text(interaction: discord.Interaction[Any]) -> str | None:
    """The text typed into the focused option of an autocomplete, or None when it is not text
    or is too long to be worth completing."""
    for option in leaf_options(interaction):
        if option.get("focused"):
            value = option.get("value")
            if isinstance(value, str) and len(value) <= MAX_AUTOCOMPLETE:
                return value
            return None
    return None


def _shown(value: object) -> str:
    return str(value).replace("`", "'")[:40]


def _problem(param: _Declared, option: dict[str, Any], resolved: Any) -> str | None:
    name = param.name
    if option.get("type") != param.type_value or "value" not in option:
        return _not_as_declared(name)
    value = option["value"]
    if param.type is _Type.integer and _is_int(value) and abs(value) > MAX_SAFE_INTEGER:
        side = "too large" if value > 0 else "too small"  # still said with the range
        return f"`{name}` is {side}. {_range(value, param.low, param.high, name)}"
    wrong = _wrong_type(param.type, value)
    if wrong:
        return f"`{name}` {wrong} Check the option and retry."
    if param.type in _RESOLVED and not _is_resolved(param.type, str(value), resolved):
        return f"`{name}` must be picked from Discord's list. Pick it again and retry."
    return _out_of_bounds(param, value)


def _not_as_declared(name: str) -> str:
    return f"`{name}` arrived as something else than it is declared. Check the option and retry."


def _is_resolved(kind: _Type, snowflake: str, resolved: Any) -> bool:
    if not isinstance(resolved, dict):
        return False
    for key in _RESOLVED[kind]:
        found = resolved.get(key)
        if isinstance(found, dict) and isinstance(found.get(snowflake), dict):
            return True
    return False


def _wrong_type(kind: _Type, value: object) -> str | None:
    if kind is _Type.string:
        if not isinstance(value, str):
            return "must be text."
        if "\x00" in value:
            return "contains a character that cannot be stored (NUL)."
    elif kind is _Type.integer:
        if not _is_int(value):
            return "must be a whole number."
    elif kind is _Type.number:
        if isinstance(value, bool) or not isinstance(value, int | float):
            return "must be a number."
    elif kind is _Type.boolean:
        if not isinstance(value, bool):
            return "must be true or false."
    elif kind in _RESOLVED and not (isinstance(value, str) and value.isdigit()):
        return "must be picked from Discord's list."
    return None


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _out_of_bounds(param: _Declared, value: Any) -> str | None:
    name = param.name
    if param.choices is not None and value not in param.choices:
        return _choice(param.choices, name)
    if param.type is _Type.string:
        return _length(value, param.low, param.high, name)
    if param.type is _Type.integer:
        return _range(value, param.low, param.high, name)
    return None


def _choice(allowed: Sequence[object], option: str) -> str:
    return f"`{option}` must be one of {', '.join(map(str, allowed))}."


def _length(value: str, low: float | None, high: float | None, option: str) -> str | None:
    most = int(high or MAX_STRING)
    if len(value) > most:
        return f"`{option}` takes at most {_characters(most)}. Shorten it and retry."
    if low and len(value) < low:
        return f"`{option}` takes at least {_characters(int(low))}."
    return None


def _characters(n: int) -> str:
    return "1 character" if n == 1 else f"{n} characters"


def _range(value: int, low: float | None, high: float | None, option: str) -> str | None:
    least = -MAX_SAFE_INTEGER if low is None else int(low)
    most = MAX_SAFE_INTEGER if high is None else int(high)
    if not least <= value <= most:
        return f"`{option}` must be between {least} and {most}. Enter a value in that range."
    return None
