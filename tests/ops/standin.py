"""A Discord stand-in for process tests: Discord's REST API and gateway on 127.0.0.1, enough of
both for a real `python -m bot run` (pointed here by tests/ops/standin_launch.py) to log in,
connect, receive interactions and answer them, and for a test to break the connection.

    async with running_standin() as standin:    # standin.url: http://127.0.0.1:PORT
        async with bot_process(standin.url, tmp_path, "run", DISCORD_TOKEN="t0ken",
                               DATABASE_URL=sqlite_url(tmp_path / "bot.db")) as bot:
            ...

    await standin.connected()                  # a session is up: READY and GUILD_CREATE sent
    payload = standin.command(standin.gm, "damage", character="Roryn", amount=3)
    await standin.push(payload)                # INTERACTION_CREATE over the live gateway
    [reply] = await standin.replies(payload)   # its callbacks once there: .text, .title,
                                               #   .ephemeral, .at (arrival, time.monotonic())
    standin.callbacks_for(payload)             # the same, now, without waiting
    click = standin.click(standin.gm, "lg:odds:1")  # a click on a message carrying that button
    standin.callback_delay = 0.5               # Discord slow to answer callbacks (recorded on
                                               #   arrival): the interactions stay in flight
    standin.refuse_gateway = True              # new gateway connections fail (HTTP 503)...
    await standin.drop()                       # ...and the live one closes (4000): an outage
    standin.refuse_gateway = False             # the bot's next retry RESUMEs
    standin.forbidden_guilds.add(guild_id)     # registering commands there: 403, code 50001
    standin.gateway_ops, standin.requests      # the ops the bot sent (2 IDENTIFY, 6 RESUME...),
                                               #   the REST requests (method, path)
    standin.emoji                              # the application's emoji by name (sync adds them)
    await bot.wait_for_line("SIGTERM: stopping")   # a line of the bot's stderr, once written
    bot.send_signal(signal.SIGTERM); code = await bot.wait(10)

The payloads are the project's own (bot.offline): Discord's documented shapes. Commands are
global and the tree finds them by name (an interaction's command id is not checked), so the
ids bot.offline gives them are as good as Discord's.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import sys
import time
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aiohttp import WSMsgType, web
from discord import AppCommandOptionType

from bot.offline import (
    APPLICATION_ID,
    BOT_USER_ID,
    EPHEMERAL,
    Guild,
    Member,
    guild_create_payload,
    interaction_payload,
    snowflake,
    user_payload,
)
from bot.offline.layout import Seen, seen
from bot.offline.messages import Message, apply_edit
from bot.offline.payloads import command_data, command_id
from bot.shards import shard_of

ROOT = Path(__file__).resolve().parents[2]
API = "/api/v10"
HEARTBEAT_INTERVAL_MS = 41_250
# Settings a test's environment must not leak into the bot process.
SETTINGS = (
    "DISCORD_TOKEN",
    "DATABASE_URL",
    "DEV_GUILD_ID",
    "LOG_LEVEL",
    "LOG_FORMAT",
    "SHARD_COUNT",
    "SHARD_IDS",
    "HEALTH_PORT",
    "RATE_LIMIT",
    "HEALTH_HOST",
    "LASTGASP_SEED",
)


@dataclass
class Callback:
    """One interaction callback the bot sent, as it arrived."""

    interaction_id: int
    token: str
    body: dict
    at: float  # time.monotonic() on arrival

    @property
    def data(self) -> dict:
        return self.body.get("data") or {}

    @property
    def card(self) -> Seen:
        return seen(self.data.get("components") or [])

    @property
    def text(self) -> str:
        """The card's text below its title (a refusal's sentence)."""
        return self.card.body

    @property
    def title(self) -> str:
        return self.card.title or ""

    @property
    def ephemeral(self) -> bool:
        return bool((self.data.get("flags") or 0) & EPHEMERAL)


@dataclass
class _Session:
    """One gateway connection, and the session it carries (kept for RESUME)."""

    ws: web.WebSocketResponse
    session_id: str = ""
    shard: tuple[int, int] = (0, 1)
    live: bool = False  # READY or RESUMED sent
    sequence: itertools.count = field(default_factory=lambda: itertools.count(1))


class DiscordStandIn:
    """Discord for one bot process: see the module's docstring."""

    def __init__(self, *, guild_id: int | None = None) -> None:
        self.guild = Guild(
            id=guild_id or snowflake(),
            name="Table",
            channel_id=snowflake(),
            roles={"GM": snowflake()},
        )
        self.gm = Member(self.guild, snowflake(), "Gemma", manage_guild=True)
        self.url = ""
        self.callbacks: list[Callback] = []
        self.requests: list[tuple[str, str]] = []  # (method, path) of every REST request
        self.gateway_ops: list[int] = []
        self.callback_delay = 0.0
        self.refuse_gateway = False
        self.refused = 0  # gateway connections refused
        self.forbidden_guilds: set[int] = set()
        self.emoji: dict[str, int] = {}  # the application's emoji, by name
        self._sessions: list[_Session] = []
        self._changed = asyncio.Event()  # a session went live, or a callback arrived
        self._runner: web.AppRunner | None = None

    # --- lifecycle -------------------------------------------------------------------------

    async def start(self) -> str:
        app = web.Application()
        app.router.add_get("/gateway/", self._gateway)
        app.router.add_route("*", "/{tail:.*}", self._rest)
        # A callback held back by callback_delay must not hold up the end of the test.
        self._runner = web.AppRunner(app, access_log=None, shutdown_timeout=0.5)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        port = self._runner.addresses[0][1]
        self.url = f"http://127.0.0.1:{port}"
        return self.url

    async def close(self) -> None:
        for session in list(self._sessions):
            with contextlib.suppress(Exception):
                await session.ws.close()
        if self._runner is not None:
            await self._runner.cleanup()

    @property
    def ws_url(self) -> str:
        return self.url.replace("http://", "ws://", 1) + "/gateway/"

    # --- what a test does ------------------------------------------------------------------

    def member(self, name: str, *, manage_guild: bool = False) -> Member:
        return Member(self.guild, snowflake(), name, manage_guild=manage_guild)

    def command(self, member: Member, command: str, /, **options: Any) -> dict:
        """INTERACTION_CREATE of `/command` ("character create") as `member`: options as Python
        values (int, str, bool), typed as the slash command declares them."""
        names = command.lstrip("/").split()
        types = {name: _option_type(value) for name, value in options.items()}
        data = command_data(member, names, types, options, focused=None, cdn={})
        return interaction_payload(member, 2, data, APPLICATION_ID)

    def click(self, member: Member, custom_id: str) -> dict:
        """INTERACTION_CREATE of a click on the button `custom_id`, on a message of the bot's
        carrying that one button (Discord sends a click only for a button that is there)."""
        message = Message(
            id=snowflake(),
            kind="reply",
            channel_id=self.guild.channel_id,
            components=[
                {
                    "type": 1,
                    "components": [
                        {"type": 2, "style": 2, "label": "Button", "custom_id": custom_id}
                    ],
                }
            ],
        )
        data = {"custom_id": custom_id, "component_type": 2}
        payload = interaction_payload(member, 3, data, APPLICATION_ID)
        payload["message"] = message.to_payload(_bot_user())
        return payload

    async def connected(self, timeout: float = 20.0) -> None:
        """Wait until a session is live (READY or RESUMED sent, with its GUILD_CREATE)."""
        async with asyncio.timeout(timeout):
            while not any(s.live for s in self._sessions):
                await self._wait_change()

    async def push(self, payload: dict) -> None:
        """Send INTERACTION_CREATE over the live session of the payload's guild."""
        guild_id = int(payload["guild_id"]) if payload.get("guild_id") else None
        for session in self._sessions:
            shard, count = session.shard
            if session.live and shard_of(guild_id, count) == shard:
                await self._dispatch(session, "INTERACTION_CREATE", payload)
                return
        raise RuntimeError("no live gateway session: is the bot connected?")

    async def replies(self, payload: dict, count: int = 1, timeout: float = 10.0) -> list[Callback]:
        """The callbacks to the interaction of `payload`, once there are `count` of them."""
        async with asyncio.timeout(timeout):
            while len(found := self.callbacks_for(payload)) < count:
                await self._wait_change()
        return found

    def callbacks_for(self, payload: dict) -> list[Callback]:
        return [c for c in self.callbacks if c.token == payload["token"]]

    async def drop(self, code: int = 4000) -> None:
        """Close every live gateway connection (4000: an error the bot may RESUME after)."""
        for session in list(self._sessions):
            session.live = False
            with contextlib.suppress(Exception):
                await session.ws.close(code=code)

    def live(self) -> bool:
        return any(s.live for s in self._sessions)

    async def _wait_change(self) -> None:
        self._changed.clear()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._changed.wait(), 0.25)

    # --- the gateway -----------------------------------------------------------------------

    async def _gateway(self, request: web.Request) -> web.StreamResponse:
        if self.refuse_gateway:
            self.refused += 1
            return web.Response(status=503, text="the stand-in refuses gateway connections")
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        session = _Session(ws)
        self._sessions.append(session)
        try:
            hello = {"heartbeat_interval": HEARTBEAT_INTERVAL_MS}
            await self._send(session, {"op": 10, "d": hello})
            async for message in ws:
                if message.type is WSMsgType.TEXT:
                    await self._on_op(session, json.loads(message.data))
        finally:
            session.live = False
            self._sessions.remove(session)
        return ws

    async def _on_op(self, session: _Session, message: dict) -> None:
        op, data = message.get("op"), message.get("d")
        self.gateway_ops.append(op)
        if op == 1:  # HEARTBEAT
            await self._send(session, {"op": 11})
        elif op == 2:  # IDENTIFY
            shard = data.get("shard") or [0, 1]
            session.shard = (int(shard[0]), int(shard[1]))
            session.session_id = f"session-{snowflake()}"
            await self._dispatch(session, "READY", self._ready(session))
            if shard_of(self.guild.id, session.shard[1]) == session.shard[0]:
                await self._dispatch(session, "GUILD_CREATE", guild_create_payload(self.guild))
            self._went_live(session)
        elif op == 6:  # RESUME: every session is resumable here; nothing was missed
            session.session_id = data["session_id"]
            await self._dispatch(session, "RESUMED", {})
            self._went_live(session)

    def _ready(self, session: _Session) -> dict:
        shard = session.shard
        return {
            "v": 10,
            "user": {**user_payload(BOT_USER_ID, "Last Gasp"), "bot": True, "verified": True},
            "guilds": [{"id": str(self.guild.id), "unavailable": True}]
            if shard_of(self.guild.id, shard[1]) == shard[0]
            else [],
            "session_id": session.session_id,
            "resume_gateway_url": self.ws_url,
            "shard": list(shard),
            "application": {"id": str(APPLICATION_ID), "flags": 0},
            "private_channels": [],
        }

    def _went_live(self, session: _Session) -> None:
        session.live = True
        self._changed.set()

    async def _dispatch(self, session: _Session, event: str, data: dict) -> None:
        await self._send(session, {"op": 0, "t": event, "s": next(session.sequence), "d": data})

    @staticmethod
    async def _send(session: _Session, message: dict) -> None:
        await session.ws.send_str(json.dumps(message))

    # --- the REST API ----------------------------------------------------------------------

    async def _rest(self, request: web.Request) -> web.StreamResponse:
        path = request.path.removeprefix(API)
        self.requests.append((request.method, path))
        parts = path.strip("/").split("/")
        method = request.method
        if method == "GET" and path == "/users/@me":
            return _json({**user_payload(BOT_USER_ID, "Last Gasp"), "bot": True})
        if method == "GET" and path == "/oauth2/applications/@me":
            return _json(_application())
        if method == "GET" and path in ("/gateway/bot", "/gateway"):
            limit = {"total": 1000, "remaining": 999, "reset_after": 0, "max_concurrency": 1}
            return _json({"url": self.ws_url, "shards": 1, "session_start_limit": limit})
        if method == "PUT" and parts[0] == "applications" and parts[-1] == "commands":
            return await self._register(request, parts)
        if method == "POST" and parts[0] == "interactions" and parts[-1] == "callback":
            return await self._callback(request, int(parts[1]), parts[2])
        if parts[0] == "webhooks":
            return await self._webhook(request)
        if parts[0] == "applications" and parts[-1] == "emojis":
            return await self._emoji(request)
        if method == "POST" and parts[0] == "channels" and parts[-1] == "messages":
            body = await _body(request)
            return _json(_message(body, channel_id=int(parts[1])))
        return _json({"message": "404: Not Found", "code": 0}, status=404)

    async def _register(self, request: web.Request, parts: list[str]) -> web.Response:
        if len(parts) == 5 and int(parts[3]) in self.forbidden_guilds:  # /guilds/{id}/commands
            return _json({"message": "Missing Access", "code": 50001}, status=403)
        commands = await request.json()
        return _json(
            [
                {
                    "description": "",  # as Discord answers for a context menu (sent without)
                    **command,
                    "id": str(command_id(command["name"])),
                    "application_id": str(APPLICATION_ID),
                    "version": "1",
                }
                for command in commands
            ]
        )

    async def _callback(
        self, request: web.Request, interaction_id: int, token: str
    ) -> web.Response:
        body = await _body(request)
        self.callbacks.append(Callback(interaction_id, token, body, time.monotonic()))
        self._changed.set()
        if self.callback_delay:
            await asyncio.sleep(self.callback_delay)
        kind = body.get("type")
        interaction: dict[str, Any] = {"id": str(interaction_id), "type": 2}
        if kind not in (4, 5, 7):  # autocomplete choices, modal, pong, deferred update
            return _json({"interaction": interaction})
        message = _message(body.get("data") or {}, channel_id=self.guild.channel_id)
        interaction.update(
            response_message_id=message["id"],
            response_message_loading=kind == 5,
            response_message_ephemeral=bool(message["flags"] & EPHEMERAL),
        )
        return _json({"interaction": interaction, "resource": {"type": kind, "message": message}})

    async def _emoji(self, request: web.Request) -> web.Response:
        """The application's emoji: listed (GET) and added (POST), as the dice faces need."""
        if request.method == "POST":
            body = await request.json()
            self.emoji[str(body["name"])] = snowflake()
        elif request.method != "GET":
            return _json({"message": "405: Method Not Allowed", "code": 0}, status=405)
        items = [_emoji(name, emoji_id) for name, emoji_id in self.emoji.items()]
        return _json(items[-1] if request.method == "POST" else {"items": items})

    async def _webhook(self, request: web.Request) -> web.Response:
        if request.method == "DELETE":
            return web.Response(status=204)
        body = await _body(request) if request.can_read_body else {}
        return _json(_message(body, channel_id=self.guild.channel_id))


def _option_type(value: Any) -> AppCommandOptionType:
    if isinstance(value, bool):
        return AppCommandOptionType.boolean
    if isinstance(value, int):
        return AppCommandOptionType.integer
    if isinstance(value, float):
        return AppCommandOptionType.number
    if isinstance(value, Member):
        return AppCommandOptionType.user
    return AppCommandOptionType.string


def _bot_user() -> dict:
    return {**user_payload(BOT_USER_ID, "Last Gasp"), "bot": True}


def _emoji(name: str, emoji_id: int) -> dict:
    return {
        "id": str(emoji_id),
        "name": name,
        "roles": [],
        "require_colons": True,
        "managed": False,
        "animated": False,
        "available": True,
        "user": _bot_user(),
    }


def _application() -> dict:
    return {
        "id": str(APPLICATION_ID),
        "name": "Last Gasp",
        "description": "",
        "icon": None,
        "bot_public": True,
        "bot_require_code_grant": False,
        "owner": user_payload(snowflake(), "Owner"),
        "team": None,
        "verify_key": "0" * 64,
        "flags": 0,
    }


def _message(body: Mapping[str, Any], *, channel_id: int) -> dict:
    message = Message(id=snowflake(), kind="reply", channel_id=channel_id)
    apply_edit(message, dict(body), [])
    return message.to_payload(_bot_user())


async def _body(request: web.Request) -> dict:
    """A JSON body, or the payload_json part of a multipart one (a reply with files)."""
    if request.content_type.startswith("multipart/"):
        reader = await request.multipart()
        async for part in reader:
            if getattr(part, "name", None) == "payload_json":
                return json.loads(await part.text())  # type: ignore[union-attr]
        return {}
    return await request.json() if request.can_read_body else {}


def _json(body: Any, status: int = 200) -> web.Response:
    # Exactly "application/json", as Discord sends it: discord.py parses nothing else.
    headers = {"Content-Type": "application/json"}
    return web.Response(body=json.dumps(body).encode(), status=status, headers=headers)


# --- the bot process ---------------------------------------------------------------------------


class BotProcess:
    """`python -m bot ARGS` in its own process, talking to a stand-in; its stderr is read as it
    comes (lines kept in `lines`)."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.lines: list[str] = []
        self.stdout = ""
        self._line_added = asyncio.Event()
        self._reader = asyncio.create_task(self._read())

    @classmethod
    async def start(cls, standin_url: str, cwd: Path, *args: str, **env: str) -> BotProcess:
        """Launched through tests/ops/standin_launch.py, with the settings given in `env` (only
        those: none of the test's own environment's)."""
        base = {k: v for k, v in os.environ.items() if k not in SETTINGS}
        environment = {
            **base,
            "PYTHONPATH": str(ROOT),
            "PYTHONUNBUFFERED": "1",
            "STANDIN_URL": standin_url,
            "RATE_LIMIT": "off",  # the bursts here come from one member; the limit has its tests
            **env,
        }
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "tests.ops.standin_launch",
            *args,
            cwd=cwd,  # no stray .env file
            env=environment,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        return cls(process)

    @property
    def stderr(self) -> str:
        return "".join(self.lines)

    def send_signal(self, signum: int) -> None:
        self.process.send_signal(signum)

    async def wait(self, timeout: float) -> int:
        """The exit code, within `timeout` s (killed and failed otherwise)."""
        try:
            async with asyncio.timeout(timeout):
                code = await self.process.wait()
                await self._reader
        except TimeoutError:
            self.kill()
            raise AssertionError(f"no exit within {timeout} s:\n{self.stderr}") from None
        return code

    async def wait_for_line(self, text: str, timeout: float = 10.0) -> str:
        """The first stderr line containing `text`, waiting for it to be written."""
        async with asyncio.timeout(timeout):
            while True:
                for line in self.lines:
                    if text in line:
                        return line
                if self._reader.done():
                    raise AssertionError(f"the bot exited without a line {text!r}:\n{self.stderr}")
                self._line_added.clear()
                await self._line_added.wait()

    def kill(self) -> None:
        if self.process.returncode is None:
            self.process.kill()

    async def _read(self) -> None:
        assert self.process.stderr is not None and self.process.stdout is not None
        stdout = asyncio.create_task(self.process.stdout.read())
        try:
            async for raw in self.process.stderr:
                self.lines.append(raw.decode(errors="replace"))
                self._line_added.set()
        finally:
            self.stdout = (await stdout).decode(errors="replace")
            self._line_added.set()


@contextlib.asynccontextmanager
async def running_standin() -> AsyncIterator[DiscordStandIn]:
    standin = DiscordStandIn()
    await standin.start()
    try:
        yield standin
    finally:
        await standin.close()


@contextlib.asynccontextmanager
async def bot_process(
    standin_url: str, cwd: Path, *args: str, **env: str
) -> AsyncIterator[BotProcess]:
    """A BotProcess that is killed at the end of the block if it is still running."""
    bot = await BotProcess.start(standin_url, cwd, *args, **env)
    try:
        yield bot
    finally:
        bot.kill()
        await bot.process.wait()
        with contextlib.suppress(Exception):
            await bot._reader


def sqlite_url(path: Path) -> str:
    return f"sqlite+aiosqlite:///{path}"
