"""Drive the bot without Discord: raw gateway payloads in, captured HTTP bodies out.

The bot is never logged in. `OfflineDriver` runs the bot's setup hooks, feeds GUILD_CREATE and
INTERACTION_CREATE payloads (built the way Discord's gateway documents them) to discord.py's own
parsers, so the real command tree parses options, runs checks and calls the cogs. Every HTTP
request the bot makes (interaction callbacks, followups, edits, command sync) is captured instead
of sent and answered with the JSON Discord would return. The tests and `python -m bot console`
both use it.

    driver = OfflineDriver(bot)
    await driver.start()
    guild = driver.add_guild(GUILD_ID, roles={"GM": GM_ROLE_ID})
    alice = driver.member(guild, "Alice")
    result = await driver.invoke(alice, "damage", amount=3, character="Roryn")
    result.reply.embeds[0]["title"]; result.reply.ephemeral; result.text()
"""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import discord
from discord import AppCommandOptionType
from discord.http import Route
from discord.webhook import async_ as webhook_async

from bot.render.common import colour_name

APPLICATION_ID = 1_100_000_000_000_000_001
BOT_USER_ID = APPLICATION_ID
MANAGE_GUILD = 1 << 5
# What a freshly invited bot typically has: view, send, embed, attach, read history, use commands.
APP_PERMISSIONS = str((1 << 10) | (1 << 11) | (1 << 14) | (1 << 15) | (1 << 16) | (1 << 31))
EPHEMERAL = 1 << 6
_API_PREFIX = Route.BASE
# The tasks discord.py runs an interaction in: commands, views, modals, and the on_interaction
# listener (where the bot answers every click: bot/prompts.py).
_INVOKER_TASKS = (
    "CommandTree-invoker",
    "discord-ui-view-dispatch-",
    "discord-ui-modal-dispatch-",
    "discord.py: on_interaction",
)
_TIMESTAMP = "2026-01-01T00:00:00.000000+00:00"

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


@dataclass
class Request:
    """One HTTP request the bot made: `path` is the route template as the spec writes paths."""

    method: str
    path: str
    url: str
    payload: dict | list | None
    files: list[tuple[str, bytes]] = field(default_factory=list)
    params: dict | None = None


@dataclass
class Message:
    """A message as the channel shows it after the interaction, with how it got there."""

    id: int
    kind: str  # "reply", "deferred", "followup", "update", "channel"
    content: str = ""
    embeds: list[dict] = field(default_factory=list)
    components: list[dict] = field(default_factory=list)
    flags: int = 0
    allowed_mentions: dict | None = None
    files: list[tuple[str, bytes]] = field(default_factory=list)
    channel_id: int = 0
    loading: bool = False

    @property
    def ephemeral(self) -> bool:
        return bool(self.flags & EPHEMERAL)

    @property
    def embed(self) -> dict:
        """The first embed (most replies have exactly one)."""
        assert self.embeds, f"message has no embed: {self.content!r}"
        return self.embeds[0]

    def custom_ids(self) -> list[str]:
        found: list[str] = []
        stack = list(self.components)
        while stack:
            comp = stack.pop(0)
            if "custom_id" in comp:
                found.append(comp["custom_id"])
            stack.extend(comp.get("components", []))
        return found

    def to_payload(self, author: dict) -> dict:
        """The message object Discord returns (and sends inside component interactions)."""
        return {
            "id": str(self.id),
            "type": 20,  # CHAT_INPUT_COMMAND
            "channel_id": str(self.channel_id),
            "author": author,
            "content": self.content,
            "timestamp": _TIMESTAMP,
            "edited_timestamp": None,
            "tts": False,
            "mention_everyone": False,
            "mentions": [],
            "mention_roles": [],
            "attachments": [
                {"id": str(i + 1), "filename": name, "size": len(data), "url": "", "proxy_url": ""}
                for i, (name, data) in enumerate(self.files)
            ],
            "embeds": self.embeds,
            "pinned": False,
            "flags": self.flags | (1 << 7 if self.loading else 0),
            "components": self.components,
            "application_id": str(APPLICATION_ID),
            "webhook_id": str(APPLICATION_ID),
        }


@dataclass
class Result:
    """What one interaction produced: every request, the messages, autocomplete choices."""

    requests: list[Request]
    messages: list[Message]
    choices: list[dict] | None = None  # autocomplete answer
    modal: dict | None = None

    @property
    def reply(self) -> Message:
        """The interaction's own message (the first one); fails loudly if there is none."""
        assert self.messages, f"no message was sent; requests: {self.requests!r}"
        return self.messages[0]

    @property
    def ephemeral(self) -> bool:
        return self.reply.ephemeral

    @property
    def embed(self) -> dict:
        return self.reply.embed

    def text(self) -> str:
        """Every message as plain text, the way the console prints it."""
        if self.choices is not None:
            names = [c["name"] for c in self.choices]
            return "choices: " + (", ".join(names) if names else "(none)")
        return "\n".join(describe(m) for m in self.messages) or "(no reply)"


def describe(message: Message) -> str:
    """A message as terminal text: visibility, content, embed title, fields, colour name."""
    head = "ephemeral" if message.ephemeral else "public"
    lines = [f"[{head} {message.kind}]"]
    if message.content:
        lines += [f"  {line}" for line in message.content.splitlines()]
    for embed in message.embeds:
        colour = embed.get("color")
        name = colour_name(colour) if colour is not None else "no colour"
        lines.append(f"  # {embed.get('title', '')}  ({name})")
        if embed.get("description"):
            lines += [f"  {line}" for line in embed["description"].splitlines()]
        for fld in embed.get("fields", []):
            lines.append(f"  - {fld['name']}:")
            lines += [f"      {line}" for line in fld["value"].splitlines()]
        if embed.get("footer"):
            lines.append(f"  ~ {embed['footer']['text']}")
    for name, data in message.files:
        lines.append(f"  [file {name}, {len(data)} bytes]")
    for custom_id in message.custom_ids():
        lines.append(f"  [button {custom_id}]")
    return "\n".join(lines)


class OfflineDriver:
    """Feeds gateway payloads to an unstarted bot and captures what it sends back."""

    def __init__(self, bot: discord.Client, *, application_id: int = APPLICATION_ID) -> None:
        self.bot = bot
        self.application_id = application_id
        self.requests: list[Request] = []
        self.messages: dict[int, Message] = {}
        self._by_token: dict[str, list[int]] = {}
        self._choices: dict[str, list[dict]] = {}
        self._modals: dict[str, dict] = {}
        self._cdn: dict[str, bytes] = {}
        self._component_message: dict[str, int] = {}  # token of a click -> the clicked message
        self.tokens: set[str] = set()  # of the interactions fed: webhook requests carry them
        self._started = False

    # --- lifecycle -------------------------------------------------------------------------

    async def start(self) -> None:
        """Patch HTTP, run the bot's setup hooks (no login, no gateway)."""
        bot = self.bot
        bot._connection.application_id = self.application_id
        # What READY would set: the bot's own user (the guild cache asks for it).
        me = {**user_payload(BOT_USER_ID, "Last Gasp"), "bot": True, "verified": True}
        bot._connection.user = discord.ClientUser(state=bot._connection, data=me)
        bot.http.request = self._http_request  # type: ignore[method-assign]
        bot.http.get_from_cdn = self._get_from_cdn  # type: ignore[method-assign]
        _install_webhook_capture(self)
        await bot._async_setup_hook()
        await bot.setup_hook()
        self._started = True

    async def close(self) -> None:
        """Close the bot (disposing its database) and undo the HTTP patch."""
        try:
            await self.bot.close()
        finally:
            _remove_webhook_capture(self)

    # --- guilds and members ----------------------------------------------------------------

    def add_guild(
        self,
        guild_id: int | None = None,
        *,
        name: str = "Table",
        roles: Mapping[str, int] | None = None,
        channel_id: int | None = None,
    ) -> Guild:
        """Send GUILD_CREATE so the guild, its roles and its text channel are cached."""
        guild = Guild(
            id=guild_id or snowflake(),
            name=name,
            channel_id=channel_id or snowflake(),
            roles=dict(roles or {}),
        )
        self.bot._connection.parsers["GUILD_CREATE"](guild_create_payload(guild))
        return guild

    @staticmethod
    def member(
        guild: Guild,
        name: str,
        *,
        user_id: int | None = None,
        manage_guild: bool = False,
        roles: Iterable[str] = (),
    ) -> Member:
        """A speaker in `guild`; `roles` are names given to add_guild."""
        return Member(
            guild=guild,
            user_id=user_id or snowflake(),
            name=name,
            manage_guild=manage_guild,
            role_ids=tuple(guild.roles[r] for r in roles),
        )

    # --- interactions ----------------------------------------------------------------------

    async def invoke(self, member: Member, command: str, /, **options: Any) -> Result:
        """Run `/command` ("damage", or "character create" for a subcommand) as `member`.

        Options are given by their Discord names with Python values: int, str, bool, a Member
        for a user option, a role name for a role option, an Attachment for a file option.
        """
        data = self._command_data(member, command, options, focused=None)
        return await self._feed(interaction_payload(member, 2, data, self.application_id))

    async def autocomplete(
        self, member: Member, command: str, /, focused: str, **options: Any
    ) -> Result:
        """Type into option `focused` (its partial value given in options) and get the choices."""
        data = self._command_data(member, command, options, focused=focused)
        return await self._feed(interaction_payload(member, 4, data, self.application_id))

    async def click(self, member: Member, message: Message, custom_id: str) -> Result:
        """Press the button `custom_id` of a message the bot posted."""
        data = {"custom_id": custom_id, "component_type": 2}
        payload = interaction_payload(member, 3, data, self.application_id)
        payload["message"] = message.to_payload(self._bot_author())
        self._component_message[payload["token"]] = message.id
        return await self._feed(payload)

    async def dm(self, user_id: int, command: str, /, **options: Any) -> Result:
        """The same command sent from a direct message (no guild): guild-only must refuse."""
        guild = Guild(id=0, name="", channel_id=snowflake(), roles={})
        data = self._command_data(Member(guild, user_id, "dm"), command, options, focused=None)
        payload = interaction_payload(Member(guild, user_id, "dm"), 2, data, self.application_id)
        for key in ("guild_id", "guild", "member", "guild_locale"):
            payload.pop(key, None)
        payload["user"] = user_payload(user_id, "dm")
        payload["channel"] = {"id": str(guild.channel_id), "type": 1, "recipients": []}
        payload["context"] = 1
        return await self._feed(payload)

    def option_types(self, command: str) -> dict[str, AppCommandOptionType]:
        """The options of `/command`, by Discord name, as the tree declares them."""
        cmd = self._find_command(command)
        return {p.display_name: p.type for p in cmd.parameters}

    # --- internals -------------------------------------------------------------------------

    def _find_command(self, command: str) -> discord.app_commands.Command:
        names = command.lstrip("/").split()
        found: Any = self.bot.tree.get_command(names[0])
        for name in names[1:]:
            found = found.get_command(name) if found is not None else None
        if not isinstance(found, discord.app_commands.Command):
            raise KeyError(f"no slash command /{command}")
        return found

    def _command_data(
        self, member: Member, command: str, options: Mapping[str, Any], focused: str | None
    ) -> dict:
        names = command.lstrip("/").split()
        cmd = self._find_command(command)
        types = {p.display_name: p.type for p in cmd.parameters}
        resolved: dict[str, dict] = {}
        leaf: list[dict] = []
        for name, value in options.items():
            if value is None:
                continue
            if name not in types:
                raise KeyError(f"/{command} has no option {name!r}; it has {sorted(types)}")
            option = self._option(member, name, types[name], value, resolved, name == focused)
            leaf.append(option)
        top_options = leaf
        for sub in reversed(names[1:]):
            top_options = [{"name": sub, "type": 1, "options": top_options}]
        data: dict[str, Any] = {
            "id": str(self._command_id(names[0])),
            "name": names[0],
            "type": 1,
            "options": top_options,
            "guild_id": str(member.guild.id) if member.guild.id else None,
        }
        if data["guild_id"] is None:
            del data["guild_id"]
        if resolved:
            data["resolved"] = resolved
        return data

    def _command_id(self, name: str) -> int:
        # Stable per name, as Discord's ids are stable per registered command.
        return 1_200_000_000_000_000_000 + sum(ord(c) for c in name)

    def _option(
        self,
        member: Member,
        name: str,
        kind: AppCommandOptionType,
        value: Any,
        resolved: dict[str, dict],
        focused: bool,
    ) -> dict:
        option: dict[str, Any] = {"name": name, "type": kind.value}
        if focused:
            # Autocomplete sends what has been typed so far, always as a string.
            option.update(value=str(value), focused=True)
            return option
        if kind is AppCommandOptionType.user:
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
            role_id, role_name = self._role(member.guild, value)
            resolved.setdefault("roles", {})[str(role_id)] = role_payload(role_id, role_name)
            option["value"] = str(role_id)
        elif kind is AppCommandOptionType.attachment:
            assert isinstance(value, Attachment), "a file option takes an offline.Attachment"
            attachment_id = snowflake()
            url = f"https://cdn.discordapp.com/attachments/{attachment_id}/{value.filename}"
            self._cdn[url] = value.data
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

    @staticmethod
    def _role(guild: Guild, value: Any) -> tuple[int, str]:
        """A role option given by name or id; an unknown name is a role Discord knows but the
        harness did not set up (it gets a fresh id)."""
        if isinstance(value, int) or (isinstance(value, str) and value.isdigit()):
            role_id = int(value)
            return role_id, next((n for n, i in guild.roles.items() if i == role_id), "role")
        name = str(value)
        return guild.roles.get(name) or snowflake(), name

    async def _feed(self, payload: dict) -> Result:
        if not self._started:
            raise RuntimeError("call `await driver.start()` first")
        first_request = len(self.requests)
        token = payload["token"]
        self.tokens.add(token)
        before = set(asyncio.all_tasks())
        self.bot._connection.parsers["INTERACTION_CREATE"](payload)
        await self._wait_for_invokers(before)
        return Result(
            requests=self.requests[first_request:],
            messages=[self.messages[i] for i in self._by_token.get(token, [])],
            choices=self._choices.get(token),
            modal=self._modals.get(token),
        )

    async def _wait_for_invokers(self, before: set[asyncio.Task]) -> None:
        # Wait for the tasks discord.py starts per interaction; view timeouts are left alone.
        seen = set(before)
        while True:
            await asyncio.sleep(0)
            pending = [
                t
                for t in asyncio.all_tasks()
                if t not in seen and t.get_name().startswith(_INVOKER_TASKS)
            ]
            if not pending:
                return
            seen.update(pending)
            await asyncio.wait_for(asyncio.gather(*pending, return_exceptions=True), timeout=30)

    def _bot_author(self) -> dict:
        return {**user_payload(BOT_USER_ID, "Last Gasp"), "bot": True}

    async def _get_from_cdn(self, url: str) -> bytes:
        return self._cdn[url]

    async def _http_request(self, route: Route, *, form: Any = None, **kw: Any) -> Any:
        # A body with files comes as `form`: the same parts as a webhook's multipart.
        payload = kw.get("json")
        captured = _capture(route, payload, form, kw.get("params"))
        self.requests.append(captured)
        if route.method == "PUT" and route.path.endswith("/commands"):
            # Command registration: Discord answers with the commands and their new ids.
            return [
                {
                    **cmd,
                    "id": str(self._command_id(cmd["name"])),
                    "application_id": str(self.application_id),
                    "version": "1",
                }
                for cmd in payload or []
            ]
        if route.method == "POST" and route.path == "/channels/{channel_id}/messages":
            message = self._store(captured.payload or {}, "channel", token="channel")
            return message.to_payload(self._bot_author())
        return None

    async def _webhook_request(
        self,
        route: Route,
        *,
        payload: dict | None = None,
        multipart: list[dict] | None = None,
        params: dict | None = None,
        **_: Any,  # files (also in multipart), proxy, auth: nothing to capture
    ) -> Any:
        captured = _capture(route, payload, multipart, params)
        self.requests.append(captured)
        body = captured.payload if isinstance(captured.payload, dict) else {}
        token = str(route.webhook_token)
        path, method = route.path, route.method
        if path.endswith("/callback"):
            return self._callback(int(route.webhook_id), token, body, captured.files)
        if method == "POST":  # followup
            message = self._store(body, "followup", token=token, files=captured.files)
            return message.to_payload(self._bot_author())
        message_id = route.url.rsplit("/", 1)[-1]
        message = self._message_of(token, message_id)
        if method == "DELETE":
            if message is not None:
                self._by_token[token].remove(message.id)
            return None
        if message is None:
            raise discord.NotFound(
                _FakeResponse(404), {"code": 10008, "message": "Unknown Message"}
            )
        if method == "PATCH":
            _apply_edit(message, body, captured.files)
        return message.to_payload(self._bot_author())

    def _callback(self, interaction_id: int, token: str, body: dict, files: list) -> dict:
        kind = body.get("type")
        data = body.get("data") or {}
        interaction: dict[str, Any] = {"id": str(interaction_id), "type": 2}
        if kind == 8:
            self._choices[token] = data.get("choices", [])
            return {"interaction": interaction}
        if kind == 9:
            self._modals[token] = data
            return {"interaction": interaction}
        if kind in (4, 5):
            message = self._store(data, "reply" if kind == 4 else "deferred", token, files=files)
            message.loading = kind == 5
            interaction.update(
                response_message_id=str(message.id),
                response_message_loading=kind == 5,
                response_message_ephemeral=message.ephemeral,
            )
            resource = {"type": kind, "message": message.to_payload(self._bot_author())}
            return {"interaction": interaction, "resource": resource}
        clicked = self._component_message.get(token)
        if kind == 7 and clicked is not None:  # the clicked message is edited in place
            message = self.messages[clicked]
            _apply_edit(message, data, files)
            message.kind = "update"
            self._by_token.setdefault(token, []).insert(0, message.id)
            interaction.update(response_message_id=str(message.id))
            resource = {"type": kind, "message": message.to_payload(self._bot_author())}
            return {"interaction": interaction, "resource": resource}
        if kind == 6 and clicked is not None:  # deferred update: later edits go to that message
            self._by_token.setdefault(token, []).insert(0, clicked)
        return {"interaction": interaction}  # 1 pong, 6 deferred update

    def _store(self, body: dict, kind: str, token: str, files: list | None = None) -> Message:
        message = Message(id=snowflake(), kind=kind, files=list(files or []))
        _apply_edit(message, body, [])
        self.messages[message.id] = message
        self._by_token.setdefault(token, []).append(message.id)
        return message

    def _message_of(self, token: str, message_id: str) -> Message | None:
        ids = self._by_token.get(token, [])
        if message_id == "@original":
            return self.messages[ids[0]] if ids else None
        return self.messages.get(int(message_id)) if int(message_id) in ids else None


# Interaction replies go through discord.py's one shared webhook adapter, not the bot's HTTP
# client: one patch serves every running driver, each request going to the driver whose
# interaction token it carries.
_drivers: list[OfflineDriver] = []
_original_webhook_request: Any = None


def _install_webhook_capture(driver: OfflineDriver) -> None:
    global _original_webhook_request
    if not _drivers:
        _original_webhook_request = webhook_async.AsyncWebhookAdapter.request
        webhook_async.AsyncWebhookAdapter.request = _webhook_request  # type: ignore[method-assign]
    _drivers.append(driver)


def _remove_webhook_capture(driver: OfflineDriver) -> None:
    if driver in _drivers:
        _drivers.remove(driver)
        if not _drivers:
            webhook_async.AsyncWebhookAdapter.request = _original_webhook_request


async def _webhook_request(adapter: Any, route: Route, session: Any, **kwargs: Any) -> Any:
    token = str(route.webhook_token)
    driver = next((d for d in reversed(_drivers) if token in d.tokens), _drivers[-1])
    return await driver._webhook_request(route, **kwargs)


class _FakeResponse:
    def __init__(self, status: int) -> None:
        self.status = status
        self.reason = "offline"


def _apply_edit(message: Message, body: dict, files: list) -> None:
    for key in ("content", "embeds", "components", "allowed_mentions"):
        if key in body:
            setattr(message, key, body[key] if body[key] is not None else _EMPTY[key])
    if "flags" in body and body["flags"] is not None:
        message.flags = int(body["flags"])
    if files:
        message.files = list(files)
    message.loading = False


_EMPTY: dict[str, Any] = {"content": "", "embeds": [], "components": [], "allowed_mentions": None}


def _capture(
    route: Route, payload: Any, multipart: list[dict] | None, params: dict | None
) -> Request:
    captured_files: list[tuple[str, bytes]] = []
    if multipart:
        for part in multipart:
            if part["name"] == "payload_json":
                payload = json.loads(part["value"])
            else:
                value = part["value"]
                data = value.read() if hasattr(value, "read") else bytes(value)
                if hasattr(value, "seek"):
                    value.seek(0)
                captured_files.append((part.get("filename", part["name"]), data))
    path = route.url[len(_API_PREFIX) :] if route.url.startswith(_API_PREFIX) else route.url
    return Request(
        method=route.method,
        path=route.path,
        url=path,
        payload=payload,
        files=captured_files,
        params=params,
    )


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


def user_payload(user_id: int, name: str) -> dict:
    return {
        "id": str(user_id),
        "username": name.lower().replace(" ", "_")[:32] or "user",
        "discriminator": "0",
        "global_name": name,
        "avatar": None,
        "public_flags": 0,
    }


def member_payload(member: Member) -> dict:
    return {
        "user": user_payload(member.user_id, member.name),
        "nick": None,
        "avatar": None,
        "roles": [str(r) for r in member.role_ids],
        "joined_at": _TIMESTAMP,
        "premium_since": None,
        "deaf": False,
        "mute": False,
        "flags": 0,
        "pending": False,
        "permissions": str(member.permissions),
        "communication_disabled_until": None,
    }


def role_payload(role_id: int, name: str, permissions: int = 0, position: int = 1) -> dict:
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


def channel_payload(guild: Guild) -> dict:
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


def guild_create_payload(guild: Guild) -> dict:
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
        "joined_at": _TIMESTAMP,
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


def interaction_payload(member: Member, kind: int, data: dict, application_id: int) -> dict:
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
