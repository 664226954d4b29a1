"""What the bot sends, as the driver captures it: the HTTP requests, the messages they make
(as the channel shows them), an interaction's Result, and the messages as terminal text."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import discord
from discord.http import Route

from bot.offline.layout import IS_COMPONENTS_V2, Seen, refusal, seen
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
    def layout(self) -> bool:
        """Built from layout components (the flag IS_COMPONENTS_V2), as every message of ours."""
        return bool(self.flags & IS_COMPONENTS_V2)

    @property
    def card(self) -> Seen:
        """What a member sees of it: its colour, texts, pictures, files, buttons (every test
        that reads a reply reads it here: bot/offline/layout.py)."""
        return seen(self.components)

    def custom_ids(self) -> list[str]:
        return [b.custom_id for b in self.card.buttons] + [s.custom_id for s in self.card.selects]

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
    def card(self) -> Seen:
        return self.reply.card

    def text(self) -> str:
        """Every message as plain text, the way the console prints it."""
        if self.choices is not None:
            names = [c["name"] for c in self.choices]
            return "choices: " + (", ".join(names) if names else "(none)")
        return "\n".join(describe(m) for m in self.messages) or "(no reply)"


def describe(message: Message) -> str:
    """A message as terminal text: visibility, then its card: the title with the colour's name,
    the texts, the pictures and files it shows, its buttons and menus, the small line."""
    head = "ephemeral" if message.ephemeral else "public"
    if message.kind == "channel":
        head = "channel"
    lines = [f"[{head} {message.kind}]"]
    if message.content:  # never ours: a layout message has none
        lines += [f"  {line}" for line in message.content.splitlines()]
    card = message.card
    if message.components:
        name = colour_name(card.colour) if card.colour is not None else "no colour"
        if card.title:  # an untitled card is a sentence or two (a refusal, a note)
            lines.append(f"  # {card.title}  ({name})")
        lines += [f"  {line}" for line in card.body.splitlines()]
        sizes = dict(message.files)
        for kind, names in (("picture", card.pictures), ("file", card.files)):
            lines += [f"  [{kind} {n}, {len(sizes.get(n, b''))} bytes]" for n in names]
        for custom_id in message.custom_ids():
            lines.append(f"  [button {custom_id}]")
        if card.small is not None:
            lines.append(f"  ~ {card.small}")
    return "\n".join(lines)


class NotFoundResponse:
    """The response object a discord.NotFound carries (the driver answers 404 Unknown Message)."""

    status = 404
    reason = "offline"


class BadRequestResponse:
    """The response object of a discord.HTTPException for a body Discord refuses (400)."""

    status = 400
    reason = "Bad Request"


INVALID_FORM_BODY = 50035


def check_message(body: dict[str, Any], before: Message | None = None) -> None:
    """Raise as Discord answers a message body it refuses (bot/offline/layout.py): `before`, the
    message an edit changes."""
    problem = refusal(
        body,
        flags_before=None if before is None else before.flags,
        had_text=before is not None and bool(before.content or before.embeds),
    )
    if problem is not None:
        raise discord.HTTPException(
            BadRequestResponse(),
            {"code": INVALID_FORM_BODY, "message": f"Invalid Form Body: {problem}"},
        )


def apply_edit(
    message: Message, body: dict[str, Any], files: list[Any], *, new: bool = False
) -> None:
    """A body applied to a message: a new one takes its flags; an edit never changes who sees
    the message, and may only add IS_COMPONENTS_V2 (which never comes off)."""
    for key in ("content", "embeds", "components", "allowed_mentions"):
        if key in body:
            setattr(message, key, body[key] if body[key] is not None else _EMPTY[key])
    if "flags" in body and body["flags"] is not None:
        flags = int(body["flags"])
        message.flags = flags if new else message.flags | (flags & IS_COMPONENTS_V2)
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
