"""Every place where the offline driver touches discord.py below its public surface.

Driving a bot without Discord needs a few private doors: feeding gateway payloads to the
connection's parsers, answering HTTP requests in-process, and running the setup hooks without
a login. They are all here, each marked PRIVATE with what it relies on, so that a discord.py
release that moves one breaks this module only; tests/discord/test_seams.py checks each of them
and fails with a message naming the door. The bot itself (bot/, outside bot/offline) uses the
public surface only.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import discord
from discord.http import Route
from discord.webhook import async_ as webhook_async

__all__ = [
    "Route",
    "feed",
    "install_http",
    "install_webhooks",
    "is_view_timer",
    "run_setup_hooks",
    "set_identity",
]

HttpHandler = Callable[..., Awaitable[Any]]
WebhookHandler = Callable[..., Awaitable[Any]]


def set_identity(bot: discord.Client, application_id: int, user: dict[str, Any]) -> None:
    """What READY would set: the application id and the bot's own user."""
    state = bot._connection  # PRIVATE: Client._connection (the ConnectionState)
    state.application_id = application_id  # PRIVATE: ConnectionState.application_id
    state.user = discord.ClientUser(state=state, data=user)  # type: ignore[arg-type]  # PRIVATE: ConnectionState.user


def feed(bot: discord.Client, event: str, payload: dict[str, Any]) -> None:
    """One gateway dispatch (GUILD_CREATE, INTERACTION_CREATE), parsed as the gateway would."""
    bot._connection.parsers[event](payload)  # PRIVATE: ConnectionState.parsers[EVENT](data)


def install_http(bot: discord.Client, request: HttpHandler, cdn: HttpHandler) -> None:
    """The bot's own HTTP client answered in-process (command sync, channel messages, emoji,
    attachment downloads)."""
    # PRIVATE: HTTPClient.request(route, *, files=None, form=None, **kwargs) and
    # HTTPClient.get_from_cdn(url), called by every REST method and Attachment.read.
    bot.http.request = request  # type: ignore[method-assign, assignment]
    bot.http.get_from_cdn = cdn  # type: ignore[method-assign, assignment]


_webhook_handlers: list[WebhookHandler] = []
_original_webhook_request: Any = None


async def _webhook_request(adapter: Any, route: Route, session: Any, **kwargs: Any) -> Any:
    for handler in reversed(_webhook_handlers):
        answer = await handler(route, **kwargs)
        if answer is not NotImplemented:
            return answer
    raise RuntimeError(f"no offline driver answers {route.method} {route.url}")


def install_webhooks(handler: WebhookHandler) -> Callable[[], None]:
    """Interaction answers (callbacks, followups, edits) answered in-process. They go through
    discord.py's one shared webhook adapter, so the patch is at class level, shared by every
    running driver; a handler returns NotImplemented for a token it does not know. Returns
    the function that removes it."""
    global _original_webhook_request
    if not _webhook_handlers:
        # PRIVATE: AsyncWebhookAdapter.request(self, route, session, *, payload, multipart,
        # files, reason, auth_token, params, proxy, proxy_auth) in discord/webhook/async_.py.
        _original_webhook_request = webhook_async.AsyncWebhookAdapter.request
        webhook_async.AsyncWebhookAdapter.request = _webhook_request  # type: ignore[method-assign, assignment]
    _webhook_handlers.append(handler)

    def remove() -> None:
        if handler in _webhook_handlers:
            _webhook_handlers.remove(handler)
        if not _webhook_handlers and _original_webhook_request is not None:
            webhook_async.AsyncWebhookAdapter.request = _original_webhook_request  # type: ignore[method-assign]

    return remove


# PRIVATE: BaseView.__timeout_task_impl, the task that times a view out (discord.py gives a view
# sent with an ephemeral message a 15-minute timeout). It outlives the interaction that sent
# it, so the driver does not wait for it.
VIEW_TIMER = "BaseView.__timeout_task_impl"


def is_view_timer(task: asyncio.Task[Any]) -> bool:
    coro = task.get_coro()
    return getattr(coro, "__qualname__", None) == VIEW_TIMER


async def run_setup_hooks(bot: discord.Client) -> None:
    """What login runs before the gateway connects: discord.py's own hook, then the bot's."""
    await bot._async_setup_hook()  # PRIVATE: Client._async_setup_hook (the loop, the ws lock)
    await bot.setup_hook()
