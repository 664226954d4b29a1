"""Gateway payloads as Discord's documentation describes them: who speaks (Guild, Member), the
GUILD_CREATE and INTERACTION_CREATE bodies, and a slash command's options encoded as Discord's
client sends them (`command_data`)."""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from discord import AppCommandOptionType

APPLICATION_ID = 1_100_000_000_000_000_001
BOT_USER_ID = APPLICATION_ID
MANAGE_GUILD = 1 << 5
# What the README's invite gives (view, send, attach, external emoji), with what a server's
# members usually have anyway (read history, use commands).
APP_PERMISSIONS = str((1 << 10) | (1 << 11) | (1 << 15) | (1 << 16) | (1 << 18) | (1 << 31))
EPHEMERAL = 1 << 6
TIMESTAMP = "2026-01-01T00:00:00.000000+00:00"

_snowflakes = itertools.count(1_300_000_000_000_000_000)


def snowflake() -> int:
    """A fresh, increasing snowflake for ids the driver invents."""
    return next(_snowflakes)


@dataclass(frozen=True)
class Guild:
    id: int
    name: str
    channel_id: int
    roles: Mapping[str, int]  # role name -> id (besides @everyone, whose id is the guild's)


@dataclass(frozen=True)
class Member:
    """Who speaks: a user of one guild, with its roles and whether it has Manage Server."""

    guild: Guild
    user_id: int
    name: str
    manage_guild: bool = False
    role_ids: tuple[int, ...] = ()

    @property
    def permissions(self) -> int:
        base = (1 << 10) | (1 << 11) | (1 << 31)  # view, send, use application commands
        return base | (MANAGE_GUILD if self.manage_guild else 0)


@dataclass(frozen=True)
class Attachment:
    """A file option value (e.g. `/character import file:`): its name and bytes."""

    filename: str
    data: bytes
    content_type: str = "application/json"


@dataclass(frozen=True)
class Raw:
    """An option value sent exactly as given, under the option's declared type: what a stale or
    broken client could send (`amount=Raw("three")`), for tests of what Discord never would."""

    value: Any


# --- a slash command's data, as Discord's client fills it in ------------------------------------


def command_id(name: str) -> int:
    """Stable per name, as Discord's ids are stable per registered command."""
    return 1_200_000_000_000_000_000 + sum(ord(c) for c in name)


def command_data(
    member: Member,
    names: list[str],
    types: Mapping[str, AppCommandOptionType],
    options: Mapping[str, Any],
    *,
    focused: str | None,
    cdn: dict[str, bytes],
) -> dict[str, Any]:
    """The `data` of a type 2 (or 4) interaction: `names` the command and its subcommands,
    `types` its declared options; a file's bytes are put in `cdn` under the URL they get."""
    resolved: dict[str, dict[str, Any]] = {}
    leaf: list[dict[str, Any]] = []
    for name, value in options.items():
        if value is None:
            continue
        if name not in types:
            raise KeyError(f"/{' '.join(names)} has no option {name!r}; it has {sorted(types)}")
        leaf.append(_option(member, name, types[name], value, resolved, name == focused, cdn))
    top_options = leaf
    for sub in reversed(names[1:]):
        top_options = [{"name": sub, "type": 1, "options": top_options}]
    data: dict[str, Any] = {
        "id": str(command_id(names[0])),
        "name": names[0],
        "type": 1,
        "options": top_options,
    }
    if member.guild.id:
        data["guild_id"] = str(member.guild.id)
    if resolved:
        data["resolved"] = resolved
    return data


def user_menu_data(member: Member, name: str, target: Member) -> dict[str, Any]:
    """The `data` of a user context menu ("Apps" on a member): type 2, the member clicked as
    `target_id` with its user and member resolved."""
    member_data = member_payload(target)
    member_data.pop("user")
    data: dict[str, Any] = {
        "id": str(command_id(name)),
        "name": name,
        "type": 2,
        "target_id": str(target.user_id),
        "resolved": {
            "users": {str(target.user_id): user_payload(target.user_id, target.name)},
            "members": {str(target.user_id): member_data},
        },
    }
    if member.guild.id:
        data["guild_id"] = str(member.guild.id)
    return data


def _option(
    member: Member,
    name: str,
    kind: AppCommandOptionType,
    value: Any,
    resolved: dict[str, dict[str, Any]],
    focused: bool,
    cdn: dict[str, bytes],
) -> dict[str, Any]:
    option: dict[str, Any] = {"name": name, "type": kind.value}
    if focused:
        # Autocomplete sends what has been typed so far, always as a string.
        option.update(value=str(value), focused=True)
        return option
    if isinstance(value, Raw):
        option["value"] = value.value
    elif kind is AppCommandOptionType.user:
        target = value if isinstance(value, Member) else None
        user_id = target.user_id if target else int(value)
        user_name = target.name if target else f"user{user_id}"
        resolved.setdefault("users", {})[str(user_id)] = user_payload(user_id, user_name)
        member_data = (
            member_payload(target)
            if target
            else member_payload(Member(member.guild, user_id, user_name))
        )
        member_data.pop("user")
        resolved.setdefault("members", {})[str(user_id)] = member_data
        option["value"] = str(user_id)
    elif kind is AppCommandOptionType.role:
        role_id, role_name = _role(member.guild, value)
        resolved.setdefault("roles", {})[str(role_id)] = role_payload(role_id, role_name)
        option["value"] = str(role_id)
    elif kind is AppCommandOptionType.attachment:
        assert isinstance(value, Attachment), "a file option takes an offline.Attachment"
        attachment_id = snowflake()
        url = f"https://cdn.discordapp.com/attachments/{attachment_id}/{value.filename}"
        cdn[url] = value.data
        resolved.setdefault("attachments", {})[str(attachment_id)] = {
            "id": str(attachment_id),
            "filename": value.filename,
            "size": len(value.data),
            "url": url,
            "proxy_url": url,
            "content_type": value.content_type,
        }
        option["value"] = str(attachment_id)
    elif kind is AppCommandOptionType.integer:
        option["value"] = int(value)
    elif kind is AppCommandOptionType.number:
        option["value"] = float(value)
    elif kind is AppCommandOptionType.boolean:
        option["value"] = parse_bool(value)
    else:
        option["value"] = str(value)
    return option


def _role(guild: Guild, value: Any) -> tuple[int, str]:
    """A role option given by name or id; an unknown name is a role Discord knows but the
    harness did not set up (it gets a fresh id)."""
    if isinstance(value, int) or (isinstance(value, str) and value.isdigit()):
        role_id = int(value)
        return role_id, next((n for n, i in guild.roles.items() if i == role_id), "role")
    name = str(value)
    return guild.roles.get(name) or snowflake(), name


def parse_bool(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("true", "yes", "y", "1", "on"):
        return True
    if text in ("false", "no", "n", "0", "off"):
        return False
    raise ValueError(f"not a yes/no value: {value!r}")


# --- payloads, as Discord's gateway documentation describes them ------------------------------


def user_payload(user_id: int, name: str) -> dict[str, Any]:
    return {
        "id": str(user_id),
        "username": name.lower().replace(" ", "_")[:32] or "user",
        "discriminator": "0",
        "global_name": name,
        "avatar": None,
        "public_flags": 0,
    }


def member_payload(member: Member) -> dict[str, Any]:
    return {
        "user": user_payload(member.user_id, member.name),
        "nick": None,
        "avatar": None,
        "roles": [str(r) for r in member.role_ids],
        "joined_at": TIMESTAMP,
        "premium_since": None,
        "deaf": False,
        "mute": False,
        "flags": 0,
        "pending": False,
        "permissions": str(member.permissions),
        "communication_disabled_until": None,
    }


def role_payload(
    role_id: int, name: str, permissions: int = 0, position: int = 1
) -> dict[str, Any]:
    return {
        "id": str(role_id),
        "name": name,
        "color": 0,
        "colors": {"primary_color": 0, "secondary_color": None, "tertiary_color": None},
        "hoist": False,
        "icon": None,
        "unicode_emoji": None,
        "position": position,
        "permissions": str(permissions),
        "managed": False,
        "mentionable": False,
        "flags": 0,
    }


def channel_payload(guild: Guild) -> dict[str, Any]:
    return {
        "id": str(guild.channel_id),
        "type": 0,
        "guild_id": str(guild.id),
        "name": "table",
        "position": 0,
        "permission_overwrites": [],
        "topic": None,
        "nsfw": False,
        "last_message_id": None,
        "rate_limit_per_user": 0,
        "parent_id": None,
        "flags": 0,
    }


def guild_create_payload(guild: Guild) -> dict[str, Any]:
    everyone = role_payload(guild.id, "@everyone", permissions=(1 << 10) | (1 << 11) | (1 << 31))
    everyone["position"] = 0
    roles = [everyone] + [
        role_payload(role_id, name, position=i + 1)
        for i, (name, role_id) in enumerate(guild.roles.items())
    ]
    return {
        "id": str(guild.id),
        "name": guild.name,
        "icon": None,
        "splash": None,
        "discovery_splash": None,
        "owner_id": str(snowflake()),
        "afk_channel_id": None,
        "afk_timeout": 300,
        "verification_level": 0,
        "default_message_notifications": 1,
        "explicit_content_filter": 0,
        "roles": roles,
        "emojis": [],
        "stickers": [],
        "features": [],
        "mfa_level": 0,
        "application_id": None,
        "system_channel_id": None,
        "system_channel_flags": 0,
        "rules_channel_id": None,
        "vanity_url_code": None,
        "description": None,
        "banner": None,
        "premium_tier": 0,
        "preferred_locale": "en-US",
        "public_updates_channel_id": None,
        "nsfw_level": 0,
        "premium_progress_bar_enabled": False,
        "joined_at": TIMESTAMP,
        "large": False,
        "unavailable": False,
        "member_count": 1,
        "voice_states": [],
        "members": [],
        "channels": [channel_payload(guild)],
        "threads": [],
        "presences": [],
        "stage_instances": [],
        "guild_scheduled_events": [],
    }


def interaction_payload(
    member: Member, kind: int, data: dict[str, Any], application_id: int
) -> dict[str, Any]:
    """INTERACTION_CREATE: type 2 command, 3 component, 4 autocomplete, from a guild member."""
    guild = member.guild
    channel = {**channel_payload(guild), "permissions": str(member.permissions)}
    return {
        "id": str(snowflake()),
        "application_id": str(application_id),
        "type": kind,
        "data": data,
        "guild": {"id": str(guild.id), "locale": "en-US", "features": []},
        "guild_id": str(guild.id),
        "channel": channel,
        "channel_id": str(guild.channel_id),
        "member": member_payload(member),
        "token": f"offline-token-{snowflake()}",
        "version": 1,
        "app_permissions": APP_PERMISSIONS,
        "locale": "en-US",
        "guild_locale": "en-US",
        "entitlements": [],
        "authorizing_integration_owners": {"0": str(guild.id)},
        "context": 0,
        "attachment_size_limit": 26_214_400,
    }
