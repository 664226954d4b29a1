"""The campaign page from the settings: the links the bot makes (`/web`), the page beside the
bot (WEB_PORT with `python -m bot run`), and the page on its own (`python -m bot web`, on the
same database: its live boards learn the bot's changes by polling, bot/web/live.py)."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

import discord

from bot.cli_failures import CONFIGURATION, Failure
from bot.config import Settings
from bot.db.database import Database
from bot.web.app import WebServer
from bot.web.links import Links

if TYPE_CHECKING:
    from bot.app import LastGaspBot
    from bot.lifecycle import StopSignals

log = logging.getLogger("lastgasp.web")

DEFAULT_PORT = 8081  # `python -m bot web` without WEB_PORT
NO_SECRET = (
    "WEB_SECRET is not set: the campaign page signs its links with it. Set it to at least 32 "
    "random characters (python -c 'import secrets; print(secrets.token_urlsafe())'), the same "
    "for the bot and `python -m bot web`"
)


def base_url(settings: Settings, port: int | None) -> str | None:
    """Where people open the page: WEB_BASE_URL, else this machine's WEB_PORT (fine for a
    trial on one computer; behind a proxy or from elsewhere, WEB_BASE_URL)."""
    if settings.web_base_url:
        return settings.web_base_url
    return None if port is None else f"http://localhost:{port}/"


def links(settings: Settings, port: int | None, clock: Callable[[], float]) -> Links | None:
    """The links of these settings; None while the page is not turned on (no secret, or
    nowhere to send people)."""
    url = base_url(settings, port)
    if settings.web_secret is None or url is None:
        return None
    return Links(
        settings.web_secret.get_secret_value(),
        hours=settings.web_link_hours,
        base_url=url,
        clock=clock,
    )


def channel_names(bot: discord.Client) -> Callable[[int], str | None]:
    def name(channel_id: int) -> str | None:
        channel = bot.get_channel(channel_id)
        found = getattr(channel, "name", None)
        return found if isinstance(found, str) else None

    return name


async def beside(bot: LastGaspBot, settings: Settings) -> WebServer | None:
    """With WEB_PORT, the page served on the bot's own event loop, reading the bot's database
    (the live boards hear its writes at once); the bot's `/web` makes the links either way
    when WEB_SECRET and WEB_BASE_URL (or WEB_PORT) are set."""
    clock = lambda: bot.clock().timestamp()  # noqa: E731
    bot.web_links = links(settings, settings.web_port, clock)
    if settings.web_port is None:
        return None
    if bot.web_links is None:
        raise Failure(f"{NO_SECRET}, or unset WEB_PORT.", CONFIGURATION)
    server = WebServer(
        lambda: bot.db,
        bot.web_links,
        host=settings.web_host,
        port=settings.web_port,
        rate_limit=settings.web_rate_limit,
        forwarded=settings.web_forwarded,
        channel_name=channel_names(bot),
        clock=bot.clock,
        commands=bot.inflight,
    )
    await _listen(server, settings)
    return server


async def _listen(server: WebServer, settings: Settings) -> None:
    try:
        await server.start()
    except OSError as error:  # most often: the port is taken
        await server.close()
        raise Failure(
            f"cannot serve the campaign page on port {server.port} "
            f"({error.strerror or error}): set WEB_PORT to a free port, or unset it.",
            CONFIGURATION,
        ) from None
    if not settings.web_base_url:  # port 0: the links name the port picked
        server.site.links.base_url = f"http://localhost:{server.port}/"


async def alone(settings: Settings, signals: StopSignals) -> int:
    """`python -m bot web`: the page on its own, until SIGTERM or SIGINT."""
    port = DEFAULT_PORT if settings.web_port is None else settings.web_port
    made = links(settings, port, time.time)
    if made is None:
        raise Failure(f"{NO_SECRET}.", CONFIGURATION)
    db = await Database.connect(settings.database_url)
    try:
        await db.upgrade()  # as the bot does: the same schema, whichever starts first
        server = WebServer(
            lambda: db,
            made,
            host=settings.web_host,
            port=port,
            rate_limit=settings.web_rate_limit,
            forwarded=settings.web_forwarded,
        )
        await _listen(server, settings)
        try:
            print(f"The campaign page is served on {made.base_url}", flush=True)
            await signals.stop.wait()
        finally:
            await server.close()
    finally:
        await db.close()
    return 0
