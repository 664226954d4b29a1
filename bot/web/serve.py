"""The campaign page from the settings: the links the bot makes (`/web`), the page beside the
bot (WEB_PORT with `python -m bot run`: by a page process the bot starts, bot/web/process.py,
or on the bot's event loop for a database in memory), and the page on its own (`python -m bot
web`, on the same database: its live boards learn the bot's changes by polling,
bot/web/live.py)."""

from __future__ import annotations

import logging
import socket
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import discord

from bot.cli_failures import CONFIGURATION, Failure
from bot.config import Settings
from bot.db.database import Database
from bot.limits import RateLimit
from bot.web.app import WebServer
from bot.web.links import Links
from bot.web.process import AskedNames, PageProcess, apart, behind_the_bot
from bot.web.site import ChannelNames, no_channel_names

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


def channel_name(bot: discord.Client) -> Callable[[int], str | None]:
    """A channel's name where the bot knows it (from Discord)."""

    def name(channel_id: int) -> str | None:
        channel = bot.get_channel(channel_id)
        found = getattr(channel, "name", None)
        return found if isinstance(found, str) else None

    return name


def channel_names(bot: discord.Client) -> ChannelNames:
    """The names of channels the bot knows, as the page asks them."""
    name = channel_name(bot)

    async def names(channel_ids: Sequence[int]) -> dict[int, str]:
        return {c: found for c in channel_ids if (found := name(c)) is not None}

    return names


async def beside(bot: LastGaspBot, settings: Settings) -> WebServer | PageProcess | None:
    """With WEB_PORT, the page beside the bot: in a page process it starts and watches,
    reading the bot's database (bot/web/process.py: why); on the bot's own event loop where
    no other process can open that database (SQLite in memory). The bot's `/web` makes the
    links either way when WEB_SECRET and WEB_BASE_URL (or WEB_PORT) are set."""
    clock = lambda: bot.clock().timestamp()  # noqa: E731
    bot.web_links = links(settings, settings.web_port, clock)
    if settings.web_port is None:
        return None
    if bot.web_links is None:
        raise Failure(f"{NO_SECRET}, or unset WEB_PORT.", CONFIGURATION)
    if apart(settings.database_url):
        page = PageProcess(
            settings,
            bot.web_links,
            database_ready=bot.database_ready,
            channel_name=channel_name(bot),
        )
        try:
            await page.start()
        except OSError as error:
            raise _taken(settings.web_port, error) from None
        return page
    server = on_the_loop(
        bot,
        bot.web_links,
        host=settings.web_host,
        port=settings.web_port,
        rate_limit=settings.web_rate_limit,
        forwarded=settings.web_forwarded,
    )
    await _listen(server, settings)
    return server


def on_the_loop(
    bot: LastGaspBot,
    links: Links,
    *,
    host: str,
    port: int,
    rate_limit: RateLimit | None,
    forwarded: bool = False,
) -> WebServer:
    """The page on the bot's own event loop, not yet listening: the bot's database, the
    channels' names it knows, its clock; its reads giving way to the commands in flight."""
    return WebServer(
        lambda: bot.db,
        links,
        host=host,
        port=port,
        rate_limit=rate_limit,
        forwarded=forwarded,
        channel_names=channel_names(bot),
        clock=bot.clock,
        commands=bot.inflight,
    )


def _taken(port: int, error: OSError) -> Failure:
    return Failure(
        f"cannot serve the campaign page on port {port} "
        f"({error.strerror or error}): set WEB_PORT to a free port, or unset it.",
        CONFIGURATION,
    )


async def _listen(
    server: WebServer, settings: Settings, listening: socket.socket | None = None
) -> None:
    try:
        await server.start(listening)
    except OSError as error:  # most often: the port is taken
        await server.close()
        raise _taken(server.port, error) from None
    if not settings.web_base_url:  # port 0: the links name the port picked
        server.site.links.base_url = f"http://localhost:{server.port}/"


async def alone(
    settings: Settings,
    signals: StopSignals,
    *,
    listen_fd: int | None = None,
    names_fd: int | None = None,
) -> int:
    """`python -m bot web`: the page on its own, until SIGTERM or SIGINT. Started by the bot
    (bot/web/process.py): on the bot's WEB_PORT socket (`listen_fd`), the channels' names
    asked of the bot (`names_fd`), until the bot is gone too."""
    port = DEFAULT_PORT if settings.web_port is None else settings.web_port
    made = links(settings, port, time.time)
    if made is None:
        raise Failure(f"{NO_SECRET}.", CONFIGURATION)
    listening = None if listen_fd is None else socket.socket(fileno=listen_fd)
    names = None if names_fd is None else await AskedNames.open(names_fd, gone=signals.stop)
    if names is not None:
        behind_the_bot()
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
            channel_names=names or no_channel_names,
        )
        await _listen(server, settings, listening)
        try:
            print(f"The campaign page is served on {made.base_url}", flush=True)
            if names is not None:
                names.say_ready()
            await signals.stop.wait()
        finally:
            await server.close()
    finally:
        if names is not None:
            await names.close()
        await db.close()
    return 0
