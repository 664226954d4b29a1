"""What the bot sends, as the driver captures it: the HTTP requests, the messages they make
(as the channel shows them), an interaction's Result, and the messages as terminal text."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from discord.http import Route

from bot.offline.payloads import APPLICATION_ID, EPHEMERAL, TIMESTAMP
from bot.render.common import colour_name

_API_PREFIX = Route.BASE


@dataclass
class Request:
    """One HTTP request the bot made: `path` is the route template as the spec writes paths."""

    method: str
    path: str
    url: str
    payload: dict[str, Any] | list[Any] | None
    files: list[tuple[str, bytes]] = field(default_factory=list)
    params: dict[str, Any] | None = None


@dataclass
class Message:
    """A message as the channel shows it after the interaction, with how it got there."""

    id: int
    kind: str  # "reply", "deferred", "followup", "update", "channel"
    content: str = ""
    embeds: list[dict[str, Any]] = field(default_factory=list)
    components: list[dict[str, Any]] = field(default_factory=list)
    flags: int = 0
    allowed_mentions: dict[str, Any] | None = None
    files: list[tuple[str, bytes]] = field(default_factory=list)
    channel_id: int = 0
    loading: bool = False
    edits: int = 0  # how many times it was edited (the status board's)

    @property
    def ephemeral(self) -> bool:
        return bool(self.flags & EPHEMERAL)

    @property
    def embed(self) -> dict[str, Any]:
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

    def to_payload(self, author: dict[str, Any]) -> dict[str, Any]:
        """The message object Discord returns (and sends inside component interactions)."""
        return {
            "id": str(self.id),
            "type": 20,  # CHAT_INPUT_COMMAND
            "channel_id": str(self.channel_id),
            "author": author,
            "content": self.content,
            "timestamp": TIMESTAMP,
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
    """What one interaction produced: the requests it made, its messages (its reply first, then
    followups), its autocomplete choices or modal."""

    requests: list[Request]
    messages: list[Message]
    choices: list[dict[str, Any]] | None = None  # autocomplete answer
    modal: dict[str, Any] | None = None

    @property
    def reply(self) -> Message:
        """The interaction's own message (the first one); fails loudly if there is none."""
        assert self.messages, f"no message was sent; requests: {self.requests!r}"
        return self.messages[0]

    @property
    def ephemeral(self) -> bool:
        return self.reply.ephemeral

    @property
    def embed(self) -> dict[str, Any]:
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
    if message.kind == "channel":
        head = "channel"
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


class NotFoundResponse:
    """The response object a discord.NotFound carries (the driver answers 404 Unknown Message)."""

    status = 404
    reason = "offline"


def apply_edit(message: Message, body: dict[str, Any], files: list[Any]) -> None:
    for key in ("content", "embeds", "components", "allowed_mentions"):
        if key in body:
            setattr(message, key, body[key] if body[key] is not None else _EMPTY[key])
    if "flags" in body and body["flags"] is not None:
        message.flags = int(body["flags"])
    if files:
        message.files = list(files)
    message.loading = False


_EMPTY: dict[str, Any] = {"content": "", "embeds": [], "components": [], "allowed_mentions": None}


def capture(
    route: Route,
    payload: Any,
    multipart: list[dict[str, Any]] | None,
    params: dict[str, Any] | None,
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
