"""The driver: an unstarted bot fed gateway payloads, its HTTP captured and answered as Discord
would (bot/offline/seams.py holds every private door it needs)."""

from __future__ import annotations

import asyncio
import contextvars
import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import discord
from discord import AppCommandOptionType

from bot.offline import seams
from bot.offline.messages import (
    Message,
    NotFoundResponse,
    Request,
    Result,
    apply_edit,
    capture,
    check_message,
)
from bot.offline.payloads import (
    APPLICATION_ID,
    BOT_USER_ID,
    EPHEMERAL,
    Guild,
    Member,
    command_data,
    command_id,
    guild_create_payload,
    interaction_payload,
    snowflake,
    user_menu_data,
    user_payload,
)

TIMEOUT = 30.0  # seconds an interaction may run before `result` gives up on it

# The token of the interaction a task works for. Tasks inherit it from the call that fed the
# payload (and tasks they create, from them), so every task of an interaction is known, and a
# request made through the bot's own HTTP client (no token in its route) is still attributed.
_current_token: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "offline_interaction", default=None
)

Fault = Callable[[Request], BaseException | None]


class SentInteraction:
    """One interaction handed to the bot by `OfflineDriver.send`, while it runs and after.

    `reply` resolves with the interaction's own message as soon as it is complete (a type 4
    reply, an update of the clicked message, or what completes a deferred reply), or with None
    if the interaction ended without one (autocomplete, a modal, nothing sent).
    `await sent.result()` waits until every task of the interaction is done (those it started,
    too) and returns what it produced.
    """

    def __init__(self, token: str, clicked: Message | None) -> None:
        loop = asyncio.get_running_loop()
        self.token = token
        self.reply: asyncio.Future[Message | None] = loop.create_future()
        # When the reply was complete (time.perf_counter()): the moment Discord would have it,
        # before any task awaiting `reply` runs again.
        self.answered_at: float | None = None
        # Filled in by the driver as the bot's requests arrive.
        self._requests: list[Request] = []
        self._messages: list[Message] = []
        self._choices: list[dict[str, Any]] | None = None
        self._modal: dict[str, Any] | None = None
        self._clicked = clicked
        self._tasks: set[asyncio.Task[Any]] = set()
        self._done = asyncio.Event()
        self._deferred: Message | None = None  # a "thinking" message no followup filled yet

    async def result(self, timeout: float = TIMEOUT) -> Result:
        await asyncio.wait_for(self._done.wait(), timeout)
        return Result(
            requests=list(self._requests),
            messages=list(self._messages),
            choices=self._choices,
            modal=self._modal,
        )

    def _message(self, message_id: str) -> Message | None:
        if message_id == "@original":
            return self._messages[0] if self._messages else None
        return next((m for m in self._messages if m.id == int(message_id)), None)

    def _check_answered(self) -> None:
        if not self.reply.done() and self._messages and not self._messages[0].loading:
            self.answered_at = time.perf_counter()
            self.reply.set_result(self._messages[0])


class OfflineDriver:
    """Feeds gateway payloads to an unstarted bot and captures what it sends back.

    With `checked=False` a message Discord would refuse is taken all the same: the benchmark
    measures the bot, not this check (bot/offline/layout.py). With `keep_history=False` nothing
    outlives its interaction: `requests` and `messages` stay
    empty but for channel messages, and an interaction's record is dropped once its tasks are
    done (a later edit of its messages gets 404 Unknown Message, as for a deleted one). For
    long runs: the benchmark.
    """

    def __init__(
        self,
        bot: discord.Client,
        *,
        application_id: int = APPLICATION_ID,
        keep_history: bool = True,
        checked: bool = True,
    ) -> None:
        self.bot = bot
        self.application_id = application_id
        self.keep_history = keep_history
        self.checked = checked
        self.requests: list[Request] = []  # every request, in order (with keep_history)
        self.messages: dict[int, Message] = {}  # interaction messages by id (with keep_history)
        self.channel_messages: dict[int, Message] = {}  # the bot's own channel messages, by id
        self.emoji: dict[str, int] = {}  # the application's emoji, by name
        self.faults: list[Fault] = []  # each may turn the bot's next request into an error
        self._interactions: dict[str, SentInteraction] = {}  # by token
        self._running: set[asyncio.Task[Any]] = set()
        self._cdn: dict[str, bytes] = {}
        self._started = False
        self._remove_webhooks: Callable[[], None] | None = None
        self._previous_factory: Any = None

    # --- lifecycle -------------------------------------------------------------------------

    async def start(self) -> None:
        """Answer HTTP in-process, run the bot's setup hooks (no login, no gateway)."""
        me = {**user_payload(BOT_USER_ID, "Last Gasp"), "bot": True, "verified": True}
        seams.set_identity(self.bot, self.application_id, me)
        seams.install_http(self.bot, self._http_request, self._get_from_cdn)
        self._remove_webhooks = seams.install_webhooks(self._webhook_request)
        loop = asyncio.get_running_loop()
        self._previous_factory = loop.get_task_factory()
        loop.set_task_factory(self._task_factory)
        await seams.run_setup_hooks(self.bot)
        self._started = True

    async def close(self) -> None:
        """Close the bot (disposing its database) and undo the HTTP patches."""
        try:
            await self.bot.close()
        finally:
            if self._remove_webhooks is not None:
                self._remove_webhooks()
            asyncio.get_running_loop().set_task_factory(self._previous_factory)

    def _task_factory(self, loop: asyncio.AbstractEventLoop, coro: Any, **kwargs: Any) -> Any:
        if self._previous_factory is not None:
            task = self._previous_factory(loop, coro, **kwargs)
        else:
            task = asyncio.Task(coro, loop=loop, **kwargs)
        context = kwargs.get("context")
        token = context.get(_current_token) if context is not None else _current_token.get()
        sent = self._interactions.get(token) if token is not None else None
        if sent is not None and not seams.is_view_timer(task):
            sent._tasks.add(task)
            self._running.add(task)
            task.add_done_callback(lambda t: self._task_done(sent, t))
        return task

    def _task_done(self, sent: SentInteraction, task: asyncio.Task[Any]) -> None:
        sent._tasks.discard(task)
        self._running.discard(task)
        if not sent._tasks:
            self._finished(sent)

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
        seams.feed(self.bot, "GUILD_CREATE", guild_create_payload(guild))
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
        for a user option, a role name for a role option, an Attachment for a file option, a
        Raw value to send as it is.
        """
        return await self.feed(self.payload(member, command, **options))

    async def user_menu(self, member: Member, name: str, target: Member) -> Result:
        """Right-click `target` → Apps → `name`, as `member`: a user context menu."""
        data = user_menu_data(member, name, target)
        return await self.feed(interaction_payload(member, 2, data, self.application_id))

    async def autocomplete(
        self, member: Member, command: str, /, focused: str, **options: Any
    ) -> Result:
        """Type into option `focused` (its partial value given in options) and get the choices."""
        return await self.feed(self.payload(member, command, focused=focused, **options))

    async def click(self, member: Member, message: Message, custom_id: str) -> Result:
        """Press the button `custom_id` of a message the bot posted."""
        payload = self.click_payload(member, message, custom_id)
        return await self.send(payload, clicked=message).result()

    def click_payload(
        self, member: Member, message: Message, custom_id: str, values: list[str] | None = None
    ) -> dict[str, Any]:
        """A button's click, or with `values` a choice in the select menu `custom_id`."""
        data: dict[str, Any] = {"custom_id": custom_id, "component_type": 2}
        if values is not None:
            data = {"custom_id": custom_id, "component_type": 3, "values": list(values)}
        payload = interaction_payload(member, 3, data, self.application_id)
        payload["message"] = message.to_payload(self._bot_author())
        return payload

    async def select(
        self, member: Member, message: Message, custom_id: str, values: list[str]
    ) -> Result:
        """Choose `values` (the options' values) in the select menu `custom_id` of a message."""
        payload = self.click_payload(member, message, custom_id, values)
        return await self.send(payload, clicked=message).result()

    async def dm(self, user_id: int, command: str, /, **options: Any) -> Result:
        """The same command sent from a direct message (no guild): guild-only must refuse."""
        user = Member(Guild(id=0, name="", channel_id=snowflake(), roles={}), user_id, "dm")
        payload = self.payload(user, command, **options)
        for key in ("guild_id", "guild", "member", "guild_locale"):
            payload.pop(key, None)
        payload["user"] = user_payload(user_id, "dm")
        payload["channel"] = {"id": str(user.guild.channel_id), "type": 1, "recipients": []}
        payload["context"] = 1
        return await self.feed(payload)

    def payload(
        self, member: Member, command: str, /, focused: str | None = None, **options: Any
    ) -> dict[str, Any]:
        """The INTERACTION_CREATE payload of `/command` as `member` (options as for `invoke`),
        built but not sent; with `focused`, the autocomplete (type 4) of that option."""
        names = command.lstrip("/").split()
        types = self.option_types(command)
        data = command_data(member, names, types, options, focused=focused, cdn=self._cdn)
        return interaction_payload(member, 4 if focused else 2, data, self.application_id)

    async def feed(self, payload: dict[str, Any]) -> Result:
        """Send one INTERACTION_CREATE payload and wait for this interaction's tasks only (others
        running at the same time are not waited for): what it produced."""
        return await self.send(payload).result()

    def send(self, payload: dict[str, Any], *, clicked: Message | None = None) -> SentInteraction:
        """Hand one INTERACTION_CREATE payload to discord.py's gateway parser and return at once;
        `await sent.reply` (the answer) or `await sent.result()` (everything it produced).
        `clicked`: the message a component payload's button is on (default: the one known by
        the payload's message id)."""
        if not self._started:
            raise RuntimeError("call `await driver.start()` first")
        if clicked is None and "message" in payload:
            message_id = int(payload["message"]["id"])
            clicked = self.messages.get(message_id) or self.channel_messages.get(message_id)
        sent = SentInteraction(payload["token"], clicked)
        self._interactions[sent.token] = sent
        reset = _current_token.set(sent.token)
        try:
            seams.feed(self.bot, "INTERACTION_CREATE", payload)
        finally:
            _current_token.reset(reset)
        if not sent._tasks:  # nothing took it (another shard's guild)
            self._finished(sent)
        return sent

    async def idle(self, timeout: float = TIMEOUT) -> None:
        """Wait until every interaction sent has finished (at most `timeout` seconds)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while self._running and loop.time() < deadline:
            await asyncio.wait(set(self._running), timeout=deadline - loop.time())

    def option_types(self, command: str) -> dict[str, AppCommandOptionType]:
        """The options of `/command`, by Discord name, as the tree declares them."""
        cmd = self._find_command(command)
        return {p.display_name: p.type for p in cmd.parameters}

    # --- the HTTP seam: discord.py's webhook adapter (interaction answers) --------------------

    async def _webhook_request(self, route: seams.Route, **kwargs: Any) -> Any:
        if str(route.webhook_token) not in self._interactions and not self._owns(route):
            return NotImplemented
        return await self.handle_webhook(route, **kwargs)

    def _owns(self, route: seams.Route) -> bool:
        return int(route.webhook_id or 0) in (self.application_id, 0)

    async def handle_webhook(
        self,
        route: seams.Route,
        *,
        payload: dict[str, Any] | None = None,
        multipart: list[dict[str, Any]] | None = None,
        params: dict[str, Any] | None = None,
        **_: Any,  # files (also in multipart), proxy, auth: nothing to capture
    ) -> Any:
        """Answer one request of discord.py's webhook adapter (an interaction's callback,
        followup, edit or delete) as Discord would. The driver's patch calls it; so can a test
        that puts a seam of its own in front (tests/reliability/test_faults.py)."""
        captured = capture(route, payload, multipart, params)
        sent = self._interaction(str(route.webhook_token))
        sent._requests.append(captured)
        if self.keep_history:
            self.requests.append(captured)
        answer = self._answer_webhook(sent, route, captured)
        sent._check_answered()
        return answer

    def _answer_webhook(self, sent: SentInteraction, route: seams.Route, captured: Request) -> Any:
        body = captured.payload if isinstance(captured.payload, dict) else {}
        if route.path.endswith("/callback"):
            return self._callback(sent, int(route.webhook_id or 0), body, captured.files)
        if route.method == "POST":  # a followup
            deferred = sent._deferred
            if deferred is not None:
                # Discord: the first followup of a deferred interaction fills its "thinking"
                # message, which keeps the defer's visibility whatever the followup asks.
                self._check_message(body, before=deferred)
                sent._deferred = None
                apply_edit(deferred, body, captured.files)
                return deferred.to_payload(self._bot_author())
            self._check_message(body)
            message = self._store(body, "followup", sent, files=captured.files)
            return message.to_payload(self._bot_author())
        found = sent._message(route.url.rsplit("/", 1)[-1].split("?")[0])
        if route.method == "DELETE":
            if found is not None:
                sent._messages.remove(found)
                if sent._deferred is found:
                    sent._deferred = None
            return None
        if found is None:
            raise discord.NotFound(
                NotFoundResponse(), {"code": 10008, "message": "Unknown Message"}
            )
        message = found
        if route.method == "PATCH":
            self._check_message(body, before=message)
            apply_edit(message, body, captured.files)
            if sent._deferred is message:
                sent._deferred = None
        return message.to_payload(self._bot_author())

    def _callback(
        self, sent: SentInteraction, interaction_id: int, body: dict[str, Any], files: list[Any]
    ) -> dict[str, Any]:
        kind = body.get("type")
        data = body.get("data") or {}
        interaction: dict[str, Any] = {"id": str(interaction_id), "type": 2}
        if kind == 8:
            sent._choices = data.get("choices", [])
            return {"interaction": interaction}
        if kind == 9:
            sent._modal = data
            return {"interaction": interaction}
        if kind in (4, 5):
            self._check_message(data)
            message = self._store(data, "reply" if kind == 4 else "deferred", sent, files=files)
            message.loading = kind == 5
            if kind == 5:
                sent._deferred = message
            interaction.update(
                response_message_id=str(message.id),
                response_message_loading=kind == 5,
                response_message_ephemeral=message.ephemeral,
            )
            resource = {"type": kind, "message": message.to_payload(self._bot_author())}
            return {"interaction": interaction, "resource": resource}
        clicked = sent._clicked
        if kind == 7 and clicked is not None:  # the clicked message is edited in place
            message = self.messages.get(clicked.id, clicked)
            self._check_message(data, before=message)
            apply_edit(message, data, files)
            message.kind = "update"
            sent._messages.insert(0, message)
            interaction.update(response_message_id=str(message.id))
            resource = {"type": kind, "message": message.to_payload(self._bot_author())}
            return {"interaction": interaction, "resource": resource}
        if kind == 6 and clicked is not None:  # deferred update: later edits go to that message
            sent._messages.insert(0, self.messages.get(clicked.id, clicked))
        return {"interaction": interaction}  # 1 pong, 6 deferred update

    # --- the HTTP seam: the bot's own client (command sync, channel messages, emoji) ----------

    async def _http_request(self, route: seams.Route, *, form: Any = None, **kw: Any) -> Any:
        # A body with files comes as `form`: the same parts as a webhook's multipart.
        payload = kw.get("json")
        captured = capture(route, payload, form, kw.get("params"))
        token = _current_token.get()
        if token is not None and token in self._interactions:
            self._interactions[token]._requests.append(captured)
        if self.keep_history:
            self.requests.append(captured)
        for fault in list(self.faults):
            error = fault(captured)
            if error is not None:
                raise error
        return self._answer_http(route, captured, payload)

    def _answer_http(self, route: seams.Route, captured: Request, payload: Any) -> Any:
        path, method = route.path, route.method
        if method == "PUT" and path.endswith("/commands"):
            # Command registration: Discord answers with the commands and their new ids (a
            # context menu, which is sent without a description, with an empty one).
            return [
                {
                    "description": "",
                    **cmd,
                    "id": str(command_id(cmd["name"])),
                    "application_id": str(self.application_id),
                    "version": "1",
                }
                for cmd in payload or []
            ]
        if path == "/applications/{application_id}/emojis":
            return self._emoji(method, payload or {})
        if path == "/channels/{channel_id}/messages" and method == "POST":
            body = captured.payload if isinstance(captured.payload, dict) else {}
            self._check_message(body)
            message = self._store(body, "channel", None, files=captured.files)
            message.channel_id = int(route.channel_id or 0)
            self.channel_messages[message.id] = message
            return message.to_payload(self._bot_author())
        if path == "/channels/{channel_id}/messages/{message_id}":
            return self._channel_message(route, method, captured)
        return None

    def _channel_message(self, route: seams.Route, method: str, captured: Request) -> Any:
        message_id = route.url.rsplit("/", 1)[-1].split("?")[0]  # Route keeps no message id
        message = self.channel_messages.get(int(message_id) if message_id.isdigit() else 0)
        if message is None or message.channel_id != int(route.channel_id or 0):
            raise discord.NotFound(
                NotFoundResponse(), {"code": 10008, "message": "Unknown Message"}
            )
        if method == "DELETE":
            del self.channel_messages[message.id]
            return None
        if method == "PATCH":
            body = captured.payload if isinstance(captured.payload, dict) else {}
            self._check_message(body, before=message)
            apply_edit(message, body, captured.files)
            message.edits += 1
        return message.to_payload(self._bot_author())

    def _emoji(self, method: str, body: dict[str, Any]) -> Any:
        if method == "POST":
            self.emoji[str(body["name"])] = snowflake()
        items = [
            {
                "id": str(emoji_id),
                "name": name,
                "roles": [],
                "require_colons": True,
                "managed": False,
                "animated": False,
                "available": True,
            }
            for name, emoji_id in self.emoji.items()
        ]
        return items[-1] if method == "POST" else {"items": items}

    def delete_channel_message(self, message_id: int) -> None:
        """As if someone deleted the bot's message in Discord."""
        self.channel_messages.pop(message_id, None)

    async def _get_from_cdn(self, url: str) -> bytes:
        return self._cdn[url]

    # --- internals -------------------------------------------------------------------------

    def _find_command(self, command: str) -> discord.app_commands.Command[Any, ..., Any]:
        names = command.lstrip("/").split()
        tree: discord.app_commands.CommandTree[Any] = getattr(self.bot, "tree")  # noqa: B009
        found: Any = tree.get_command(names[0])
        for name in names[1:]:
            found = found.get_command(name) if found is not None else None
        if not isinstance(found, discord.app_commands.Command):
            raise KeyError(f"no slash command /{command}")
        return found

    def _interaction(self, token: str) -> SentInteraction:
        """The interaction `token` names; one the driver did not send (or forgot) gets an empty
        record, as Discord knows tokens the driver does not."""
        sent = self._interactions.get(token)
        if sent is None:
            sent = SentInteraction(token, None)
            if self.keep_history:
                self._interactions[token] = sent
        return sent

    def _finished(self, sent: SentInteraction) -> None:
        if not sent.reply.done():
            sent.reply.set_result(None)  # it ended without a complete reply
        sent._done.set()
        if not self.keep_history:
            self._interactions.pop(sent.token, None)

    def _store(
        self,
        body: dict[str, Any],
        kind: str,
        sent: SentInteraction | None,
        files: list[tuple[str, bytes]] | None = None,
    ) -> Message:
        message = Message(id=snowflake(), kind=kind, files=list(files or []))
        apply_edit(message, body, [], new=True)
        if self.keep_history:
            self.messages[message.id] = message
        if sent is not None:
            sent._messages.append(message)
        return message

    def _check_message(self, body: dict[str, Any], before: Message | None = None) -> None:
        if self.checked:
            check_message(body, before=before)

    def _bot_author(self) -> dict[str, Any]:
        return {**user_payload(BOT_USER_ID, "Last Gasp"), "bot": True}


__all__ = ["EPHEMERAL", "TIMEOUT", "OfflineDriver", "SentInteraction"]
