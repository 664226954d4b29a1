"""The campaign page's web server: aiohttp's (discord.py's own dependency), on the event loop it
is started on: the bot's (WEB_PORT beside `python -m bot run`) or its own (`python -m bot web`).

Every answer carries a strict Content-Security-Policy and the headers of bot/web/guard.py;
every request counts against its address's rate (WEB_RATE_LIMIT); a page of a server is
never cached by the browser (it is private to a link). The templates are Jinja2's, escaping
every value by default (autoescape, StrictUndefined); the static files (style, script, the
die pictures the emoji are drawn from) are served by it, nothing from elsewhere.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import logging
import math
import socket
from collections.abc import Awaitable, Callable
from datetime import datetime
from importlib import resources

import jinja2
from aiohttp import web

from bot.db.database import Database
from bot.limits import RateLimit
from bot.render.common import STATE_COLOURS
from bot.render.pictures import EMOJI_NAMES, STRUCK_MISS_EMOJI_NAME, emoji_files
from bot.services import web as service
from bot.web import view
from bot.web.guard import HEADERS, RateGuard, client_address
from bot.web.links import LinkRefused, Links
from bot.web.live import LiveBoards
from bot.web.pages import Pages
from bot.web.site import (
    NOT_FOUND,
    ChannelNames,
    Commands,
    PageError,
    Site,
    give_way,
    no_channel_names,
    now_utc,
    request_turns,
)

log = logging.getLogger("lastgasp.web")

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
STATIC_AGE_S = 86_400  # the static files' URLs carry their version: a day's cache is safe
MAX_BODY = 1024  # every route is a GET: no body worth reading
SHUTDOWN_S = 2.0


def _static_files() -> dict[str, tuple[bytes, str]]:
    """Path under static/ -> (bytes, content type): the style (the state colours first, from
    bot/render/common.py), the script, and the dice pictures of bot/render/pictures.py."""
    folder = resources.files("bot.web") / "static"
    colours = "".join(
        f".state-{view.state_key(state)} {{ --state: #{value:06x}; }}\n"
        for state, value in STATE_COLOURS.items()
    )
    css = colours + (folder / "site.css").read_text(encoding="utf-8")
    files = {
        "site.css": (css.encode(), "text/css"),
        "live.js": ((folder / "live.js").read_bytes(), "text/javascript"),
    }
    names = {name: face for face, name in EMOJI_NAMES.items()}
    for name, png in emoji_files():
        file = view.STRUCK_FILE if name == STRUCK_MISS_EMOJI_NAME else view.DIE_FILES[names[name]]
        files[f"dice/{file}"] = (png, "image/png")
    return files


def templates() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.PackageLoader("bot.web", "templates"),
        autoescape=True,  # every template, every value: a name is text, never markup
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        auto_reload=False,  # the templates ship with the code: no file checked on every page
    )


class WebServer:
    """The page on host:port; `start` listens, `close` stops (the live boards with it)."""

    def __init__(
        self,
        db_of: Callable[[], Database],
        links: Links,
        *,
        host: str,
        port: int,
        rate_limit: RateLimit | None,
        forwarded: bool = False,
        channel_names: ChannelNames = no_channel_names,
        clock: Callable[[], datetime] = now_utc,
        live: LiveBoards | None = None,
        commands: Commands | None = None,
    ) -> None:
        self.host = host
        self.port = port
        self.live = live or LiveBoards(db_of, turn=functools.partial(give_way, commands))
        self._static = _static_files()
        version = hashlib.sha256(b"".join(body for body, _ in self._static.values()))
        self.site = Site(
            db_of=db_of,
            links=links,
            live=self.live,
            templates=templates(),
            version=version.hexdigest()[:12],
            channel_names=channel_names,
            clock=clock,
            forwarded=forwarded,
            commands=commands,
        )
        self._rate = RateGuard(rate_limit)
        app = web.Application(
            middlewares=[self._headers, self._errors, self._limited], client_max_size=MAX_BODY
        )
        app.router.add_routes(Pages(self.site).routes())
        app.router.add_get("/static/{path:.+}", self._static_file)
        self.app = app
        # No access log: a login URL holds a link's token.
        # Stopping waits at most SHUTDOWN_S for the requests in flight (the bot's whole stop
        # takes at most 10 s; the live streams end at once). A reader who leaves ends its
        # request at once (handler_cancellation): a closed live board frees its place now, not
        # at its next write.
        self._closed: asyncio.Task[None] | None = None
        self._runner = web.AppRunner(
            app,
            access_log=None,
            keepalive_timeout=15,
            shutdown_timeout=SHUTDOWN_S,
            handler_cancellation=True,
        )

    async def start(self, listening: socket.socket | None = None) -> int:
        """Listen on host:port, or on the socket given (the bot's WEB_PORT, handed to a page
        process: bot/web/process.py); returns the port (the one picked when port is 0)."""
        await self._runner.setup()
        if listening is None:
            await web.TCPSite(self._runner, self.host, self.port).start()
        else:
            await web.SockSite(self._runner, listening).start()
        self.port = self._runner.addresses[0][1]
        log.info("campaign page on http://%s:%s/", self.host or "0.0.0.0", self.port)
        return self.port

    def stop(self) -> None:
        """Start closing now (the bot was told to stop: the page's requests end while the bot
        drains its commands, not after, within the stop's 10 s); `close` waits for it."""
        if self._closed is None:
            self._closed = asyncio.create_task(self._close(), name="lastgasp-web-close")

    async def close(self) -> None:
        self.stop()
        assert self._closed is not None
        await self._closed

    async def _close(self) -> None:
        await self.live.close()
        await self._runner.cleanup()

    # --- middlewares: outermost first ---------------------------------------------------

    @web.middleware
    async def _headers(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        try:
            response = await handler(request)
        except web.HTTPException as exception:  # a redirect, or aiohttp's own 404/405
            self._secure(request, exception)
            raise
        self._secure(request, response)
        return response

    def _secure(self, request: web.Request, response: web.StreamResponse) -> None:
        if response.prepared:  # a live stream: its headers are gone already (set below)
            return
        response.headers.update(HEADERS)
        static = request.path.startswith("/static/") and response.status == 200
        response.headers["Cache-Control"] = (
            f"public, max-age={STATIC_AGE_S}" if static else "no-store"
        )

    @web.middleware
    async def _errors(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        """What went wrong, as a page that says what to do."""
        site = self.site
        try:
            return await handler(request)
        except LinkRefused as refused:
            return site.refused(refused.reason)
        except service.LinkEnded:
            return site.refused("revoked")
        except service.NotFound:
            return site.message(404, "Nothing here", NOT_FOUND)
        except PageError as error:
            return site.message(error.status, error.heading, error.message)
        except web.HTTPNotFound:
            return site.message(404, "Nothing here", NOT_FOUND)
        except web.HTTPMethodNotAllowed:
            response = site.message(
                405, "Read only", "This page only shows: nothing on it can change anything."
            )
            response.headers["Allow"] = "GET, HEAD"
            return response
        except web.HTTPException:
            raise  # redirects
        except Exception:
            log.exception("campaign page: %s failed", request.path)
            return site.message(
                500, "Something went wrong", "The page could not be shown: reload in a moment."
            )

    @web.middleware
    async def _limited(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        wait = self._rate.wait(client_address(request, self.site.forwarded))
        if wait:
            seconds = max(1, math.ceil(wait))
            response = self.site.message(
                429,
                "Slow down",
                f"Too many requests from your address: wait {seconds} seconds, then reload.",
            )
            response.headers["Retry-After"] = str(seconds)
            return response
        with request_turns():
            await self.site.give_way()  # its link checked, its reads: between the commands
            return await handler(request)

    async def _static_file(self, request: web.Request) -> web.Response:
        found = self._static.get(request.match_info["path"])
        if found is None:
            raise web.HTTPNotFound()
        body, kind = found
        return web.Response(body=body, content_type=kind)
