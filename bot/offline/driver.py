"""The driver: an unstarted bot fed gateway payloads, its HTTP captured and answered."""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

import discord
from discord import AppCommandOptionType
from discord.http import Route
from discord.webhook import async_ as webhook_async

from bot.offline.messages import (
    Message,
    NotFoundResponse,
    Request,
    Result,
    apply_edit,
    capture,
)
from bot.offline.payloads import (
    APPLICATION_ID,
    BOT_USER_ID,
    Guild,
    Member,
    command_data,
    command_id,
    guild_create_payload,
    interaction_payload,
    snowflake,
    user_payload,
)

# The tasks discord.py starts for an interaction, all while it parses the payload: commands,
# views, modals, and the on_interaction listener (where the bot answers every click:
# bot/prompts.py).
_INVOKER_TASKS = (
    "CommandTree-invoker",
    "discord-ui-view-dispatch-",
    "discord-ui-modal-dispatch-",
    "discord.py: on_interaction",
)
TIMEOUT = 30.0  # seconds an interaction may run before `feed` gives up on it

# The token of the interaction whose task is running: tasks inherit it from the parse call, so a
# request made through the bot's own HTTP client (no token in its route) is still attributed.
_current_token: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "offline_interaction", default=None
)


class SentInteraction:
    """One interaction handed to the bot by `OfflineDriver.send`, while it runs and after.

    `reply` resolves with the interaction's own message as soon as it is complete (a type 4
    reply, an update of the clicked message, or the edit that completes a deferred reply), or
    with None if the interaction ended without one (autocomplete, a modal, nothing sent).
    `await sent.result()` waits until its tasks are done and returns what it produced.
    """

    def __init__(self, token: str, clicked: Message | None) -> None:
        self.token = token
        self.reply: asyncio.Future[Message | None] = asyncio.get_running_loop().create_future()
        # Filled in by the driver as the bot's requests arrive.
        self._requests: list[Request] = []
        self._messages: list[Message] = []
        self._choices: list[dict] | None = None
        self._modal: dict | None = None
        self._clicked = clicked
        self._tasks: set[asyncio.Task] = set()

    async def result(self, timeout: float = TIMEOUT) -> Result:
        if self._tasks:
            await asyncio.wait_for(asyncio.gather(*self._tasks, return_exceptions=True), timeout)
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
            self.reply.set_result(self._messages[0])


class OfflineDriver:
    """Feeds gateway payloads to an unstarted bot and captures what it sends back.

    With `keep_history=False` nothing outlives its interaction: `requests` and `messages` stay
    empty, and an interaction's record is dropped once its tasks are done (a later edit of its
    messages gets 404 Unknown Message, as for a deleted one). For long runs: the benchmark.
    """

    def __init__(
        self,
        bot: discord.Client,
        *,
        application_id: int = APPLICATION_ID,
        keep_history: bool = True,
    ) -> None:
        self.bot = bot
        self.application_id = application_id
        self.keep_history = keep_history
        self.requests: list[Request] = []  # every request, in order (with keep_history)
        self.messages: dict[int, Message] = {}  # every message by id (with keep_history)
        self._interactions: dict[str, SentInteraction] = {}  # by token
        self._running: set[asyncio.Task] = set()
        self._cdn: dict[str, bytes] = {}
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
        for a user option, a role name for a role option, an Attachment for a file option, a
        Raw value to send as it is.
        """
        return await self.feed(self.payload(member, command, **options))

    async def autocomplete(
        self, member: Member, command: str, /, focused: str, **options: Any
    ) -> Result:
        """Type into option `focused` (its partial value given in options) and get the choices."""
        return await self.feed(self.payload(member, command, focused=focused, **options))

    async def click(self, member: Member, message: Message, custom_id: str) -> Result:
        """Press the button `custom_id` of a message the bot posted."""
        data = {"custom_id": custom_id, "component_type": 2}
        payload = interaction_payload(member, 3, data, self.application_id)
        payload["message"] = message.to_payload(self._bot_author())
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
    ) -> dict:
        """The INTERACTION_CREATE payload of `/command` as `member` (options as for `invoke`),
        built but not sent; with `focused`, the autocomplete (type 4) of that option."""
        names = command.lstrip("/").split()
        types = self.option_types(command)
        data = command_data(member, names, types, options, focused=focused, cdn=self._cdn)
        return interaction_payload(member, 4 if focused else 2, data, self.application_id)

    async def feed(self, payload: dict) -> Result:
        """Send one INTERACTION_CREATE payload and wait for this interaction's tasks only (others
        running at the same time are not waited for): what it produced."""
        return await self.send(payload).result()

    def send(self, payload: dict, *, clicked: Message | None = None) -> SentInteraction:
        """Hand one INTERACTION_CREATE payload to discord.py's gateway parser and return at once;
        `await sent.reply` (the answer) or `await sent.result()` (everything it produced).
        `clicked`: the message a component payload's button is on (default: the one in
        `messages` with the payload's message id)."""
        if not self._started:
            raise RuntimeError("call `await driver.start()` first")
        if clicked is None and "message" in payload:
            clicked = self.messages.get(int(payload["message"]["id"]))
        sent = SentInteraction(payload["token"], clicked)
        self._interactions[sent.token] = sent
        reset = _current_token.set(sent.token)
        try:
            with _tasks_created() as created:
                self.bot._connection.parsers["INTERACTION_CREATE"](payload)
        finally:
            _current_token.reset(reset)
        # discord.py starts every task of an interaction while it parses the payload.
        sent._tasks = {t for t in created if t.get_name().startswith(_INVOKER_TASKS)}
        self._running |= sent._tasks
        pending = set(sent._tasks)

        def task_done(task: asyncio.Task) -> None:
            self._running.discard(task)
            pending.discard(task)
            if not pending:
                self._finished(sent)

        for task in sent._tasks:
            task.add_done_callback(task_done)
        if not pending:
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

    async def handle_webhook(
        self,
        route: Route,
        *,
        payload: dict | None = None,
        multipart: list[dict] | None = None,
        params: dict | None = None,
        **_: Any,  # files (also in multipart), proxy, auth: nothing to capture
    ) -> Any:
        """Answer one request of discord.py's webhook adapter (an interaction's callback,
        followup, edit or delete) as Discord would. The driver's patch calls it; so can a test
        that puts a seam of its own in front (tests/reliability/test_faults.py)."""
        captured = capture(route, payload, multipart, params)
        token = str(route.webhook_token)
        sent = self._interaction(token)
        sent._requests.append(captured)
        if self.keep_history:
            self.requests.append(captured)
        answer = self._answer_webhook(sent, route, captured)
        sent._check_answered()
        return answer

    def _answer_webhook(self, sent: SentInteraction, route: Route, captured: Request) -> Any:
        body = captured.payload if isinstance(captured.payload, dict) else {}
        if route.path.endswith("/callback"):
            return self._callback(sent, int(route.webhook_id), body, captured.files)
        if route.method == "POST":  # followup
            message = self._store(body, "followup", sent, files=captured.files)
            return message.to_payload(self._bot_author())
        message = sent._message(route.url.rsplit("/", 1)[-1])
        if route.method == "DELETE":
            if message is not None:
                sent._messages.remove(message)
            return None
        if message is None:
            raise discord.NotFound(
                NotFoundResponse(), {"code": 10008, "message": "Unknown Message"}
            )
        if route.method == "PATCH":
            apply_edit(message, body, captured.files)
        return message.to_payload(self._bot_author())

    def _callback(
        self, sent: SentInteraction, interaction_id: int, body: dict, files: list
    ) -> dict:
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
            message = self._store(data, "reply" if kind == 4 else "deferred", sent, files=files)
            message.loading = kind == 5
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
            apply_edit(message, data, files)
            message.kind = "update"
            sent._messages.insert(0, message)
            interaction.update(response_message_id=str(message.id))
            resource = {"type": kind, "message": message.to_payload(self._bot_author())}
            return {"interaction": interaction, "resource": resource}
        if kind == 6 and clicked is not None:  # deferred update: later edits go to that message
            sent._messages.insert(0, self.messages.get(clicked.id, clicked))
        return {"interaction": interaction}  # 1 pong, 6 deferred update

    # --- the HTTP seam: the bot's own client (command sync, channel messages) -----------------

    async def _http_request(self, route: Route, *, form: Any = None, **kw: Any) -> Any:
        # A body with files comes as `form`: the same parts as a webhook's multipart.
        payload = kw.get("json")
        captured = capture(route, payload, form, kw.get("params"))
        token = _current_token.get()
        if token is not None and token in self._interactions:
            self._interactions[token]._requests.append(captured)
        if self.keep_history:
            self.requests.append(captured)
        if route.method == "PUT" and route.path.endswith("/commands"):
            # Command registration: Discord answers with the commands and their new ids.
            return [
                {
                    **cmd,
                    "id": str(command_id(cmd["name"])),
                    "application_id": str(self.application_id),
                    "version": "1",
                }
                for cmd in payload or []
            ]
        if route.method == "POST" and route.path == "/channels/{channel_id}/messages":
            message = self._store(captured.payload or {}, "channel", None)
            return message.to_payload(self._bot_author())
        return None

    async def _get_from_cdn(self, url: str) -> bytes:
        return self._cdn[url]

    # --- internals -------------------------------------------------------------------------

    def _find_command(self, command: str) -> discord.app_commands.Command:
        names = command.lstrip("/").split()
        found: Any = self.bot.tree.get_command(names[0])
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
        if not self.keep_history:
            self._interactions.pop(sent.token, None)

    def _store(
        self, body: dict, kind: str, sent: SentInteraction | None, files: list | None = None
    ) -> Message:
        message = Message(id=snowflake(), kind=kind, files=list(files or []))
        apply_edit(message, body, [])
        if self.keep_history:
            self.messages[message.id] = message
        if sent is not None:
            sent._messages.append(message)
        return message

    def _bot_author(self) -> dict:
        return {**user_payload(BOT_USER_ID, "Last Gasp"), "bot": True}

    def _knows(self, token: str) -> bool:
        return token in self._interactions


@contextlib.contextmanager
def _tasks_created() -> Iterator[list[asyncio.Task]]:
    """The tasks created on this loop inside the block (a synchronous one: nothing else runs),
    recorded by a task factory: cheaper than comparing asyncio.all_tasks() before and after."""
    loop = asyncio.get_running_loop()
    previous = loop.get_task_factory()
    created: list[asyncio.Task] = []

    def recording(loop: asyncio.AbstractEventLoop, coro: Any, **kwargs: Any) -> asyncio.Task:
        if previous is not None:
            task = previous(loop, coro, **kwargs)
        else:
            task = asyncio.Task(coro, loop=loop, **kwargs)
        created.append(task)
        return task

    loop.set_task_factory(recording)
    try:
        yield created
    finally:
        loop.set_task_factory(previous)


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
    driver = next((d for d in reversed(_drivers) if d._knows(token)), _drivers[-1])
    return await driver.handle_webhook(route, **kwargs)
