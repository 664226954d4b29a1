"""The private doors of discord.py that the offline driver uses (bot/offline/seams.py), each
checked on its own: a discord.py release that moves one fails here, with the door named, before
any test of the bot fails in a puzzling way. And the bot outside bot/offline uses none."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import discord
import pytest
from discord.http import HTTPClient, Route
from discord.state import ConnectionState
from discord.ui.view import BaseView
from discord.webhook.async_ import AsyncWebhookAdapter

from bot.offline import seams

ROOT = Path(__file__).resolve().parents[2]


def door(name: str) -> str:
    return f"discord.py {discord.__version__} moved {name}: update bot/offline/seams.py"


def keywords(function: object) -> set[str]:
    return set(inspect.signature(function).parameters)  # type: ignore[arg-type]


async def test_the_connection_state_takes_an_identity_and_gateway_events() -> None:
    client = discord.Client(intents=discord.Intents.none())
    try:
        state = getattr(client, "_connection", None)
        assert isinstance(state, ConnectionState), door("Client._connection")
        assert hasattr(state, "application_id"), door("ConnectionState.application_id")
        parsers = getattr(state, "parsers", None)
        assert isinstance(parsers, dict), door("ConnectionState.parsers")
        for event in ("GUILD_CREATE", "INTERACTION_CREATE"):
            assert callable(parsers.get(event)), door(f"ConnectionState.parsers[{event!r}]")

        user = {"id": "1", "username": "bot", "discriminator": "0", "avatar": None, "bot": True}
        seams.set_identity(client, 42, user)
        assert client.application_id == 42, door("ConnectionState.application_id")
        assert client.user is not None and client.user.id == 1, door("ConnectionState.user")
    finally:
        await client.close()


def test_the_http_client_is_answered_through_request_and_get_from_cdn() -> None:
    assert {"route", "files", "form"} <= keywords(HTTPClient.request), door("HTTPClient.request")
    assert "url" in keywords(HTTPClient.get_from_cdn), door("HTTPClient.get_from_cdn")
    assert inspect.iscoroutinefunction(HTTPClient.request), door("HTTPClient.request")


def test_interaction_answers_go_through_the_webhook_adapter() -> None:
    wanted = {"route", "session", "payload", "multipart", "files", "params"}
    assert wanted <= keywords(AsyncWebhookAdapter.request), door("AsyncWebhookAdapter.request")


async def test_the_webhook_patch_is_installed_and_removed() -> None:
    original = AsyncWebhookAdapter.request

    async def handler(route: Route, **kwargs: object) -> object:
        return {"answered": route.path}

    remove = seams.install_webhooks(handler)
    try:
        route = Route(
            "GET", "/webhooks/{webhook_id}/{webhook_token}", webhook_id=1, webhook_token="t"
        )
        answer = await AsyncWebhookAdapter().request(route, session=None)  # type: ignore[arg-type]
        assert answer == {"answered": route.path}
    finally:
        remove()
    assert AsyncWebhookAdapter.request is original


async def test_a_views_timeout_task_is_recognised() -> None:
    impl = getattr(BaseView, "_BaseView__timeout_task_impl", None)
    assert impl is not None, door("BaseView.__timeout_task_impl")
    assert impl.__qualname__ == seams.VIEW_TIMER, door("BaseView.__timeout_task_impl")

    assert inspect.iscoroutinefunction(impl), door("BaseView.__timeout_task_impl")


def test_setup_hooks_run_without_a_login() -> None:
    hook = getattr(discord.Client, "_async_setup_hook", None)
    assert hook is not None and inspect.iscoroutinefunction(hook), door("Client._async_setup_hook")


def private_uses(path: Path) -> list[str]:
    """`thing._private` where thing is not self or cls: a door into someone else's object."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if not isinstance(node, ast.Attribute):
            continue
        name = node.attr
        if not name.startswith("_") or name.startswith("__"):
            continue
        owner = node.value
        owner_name = owner.id if isinstance(owner, ast.Name) else None
        if owner_name in ("self", "cls") or (owner_name, name) in ALLOWED:
            continue
        found.append(f"{path.relative_to(ROOT)}:{node.lineno} .{name}")
    return found


PRIVATE_API = ROOT / "bot" / "private_api.py"
# os._exit is the standard library's documented way out of a process that must not unwind.
ALLOWED = {("os", "_exit")}


@pytest.mark.parametrize("package", ["bot", "rules"])
def test_outside_the_offline_driver_no_private_attribute_of_another_object_is_used(
    package: str,
) -> None:
    uses = []
    for path in sorted((ROOT / package).rglob("*.py")):
        if "offline" in path.relative_to(ROOT).parts or path == PRIVATE_API:
            continue
        uses += private_uses(path)
    assert not uses, (
        "private attributes used outside bot/offline and bot/private_api.py:\n" + "\n".join(uses)
    )


def test_the_private_api_uses_only_discord_py_s_private_parts_its_tests_check() -> None:
    """bot/private_api.py, the one place the bot reaches into discord.py: each private part it
    reads is one tests/discord/test_private_api.py checks."""
    assert sorted({use.rsplit(" ", 1)[1] for use in private_uses(PRIVATE_API)}) == [
        "._response_type",
        "._session",
        "._state",
    ]
