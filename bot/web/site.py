"""What every handler of the campaign page shares: the Site (the database, the links, the live
boards, the templates), its answers that say what happened (PageError), and its turn to read
the database."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Iterator, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Protocol, TypeVar
from urllib.parse import urlsplit

import jinja2
from aiohttp import web

from bot.db.busy import Busy
from bot.db.database import Database
from bot.db.errors import NoAnswer, Unreachable
from bot.db.turns import in_pieces, taking_turns
from bot.web.guard import refusal_text
from bot.web.links import Link, Links
from bot.web.live import LiveBoards

T = TypeVar("T")
R = TypeVar("R")

# Ids in a path are bounded before they reach a query: a guild's and a channel's are Discord's
# (64 bits), a character's and an event's the database's own (32 bits on PostgreSQL).
SNOWFLAKE_MAX = 2**63 - 1
ROW_ID_MAX = 2**31 - 1
MAX_PAGE = 10_000
PAGE_READS = 2  # page views reading the database at once: the commands come first
PAGE_WAIT_S = 2.0  # beyond this wait for a turn, "busy" (503)
BUSY = "The table is busy right now: reload in a moment."
UNREACHABLE = "The bot cannot reach its database right now: reload in a minute."
NO_ANSWER = "The bot's database stopped answering: reload in a minute."
# A page view gives way to the commands in flight (issue 18: it must not move their p99): the
# request's start (its link checked), each statement of its reads, what it shows, each piece of
# its template (SLICE_S of the loop at most) and each live board's drawing wait for a moment
# when no interaction is being handled, but never longer than GIVE_WAY_S a piece, nor
# REQUEST_GIVE_WAY_S in all a request (past that, a piece lets only the commands ready at that
# moment go first: a page stays quick to read while the bot is busy without a pause).
GIVE_WAY_S = 0.02
REQUEST_GIVE_WAY_S = 0.25
SLICE_S = 0.0003

# The request's time left to give way (one list, shared by its pieces); None outside a request.
_left: ContextVar[list[float] | None] = ContextVar("lastgasp_web_give_way", default=None)


# The names of channels, by id, where they are known (the bot's from Discord): a page process
# of its own asks the bot's (bot/web/process.py); `python -m bot web` alone knows none.
ChannelNames = Callable[[Sequence[int]], Awaitable[dict[int, str]]]


async def no_channel_names(_ids: Sequence[int]) -> dict[int, str]:
    return {}


class Commands(Protocol):
    """The interactions this process is handling (bot/lifecycle.py's InFlight)."""

    async def quiet(self, timeout: float) -> None: ...


@contextlib.contextmanager
def request_turns() -> Iterator[None]:
    """A request's pieces share one REQUEST_GIVE_WAY_S of giving way."""
    token = _left.set([REQUEST_GIVE_WAY_S])
    try:
        yield
    finally:
        _left.reset(token)


async def give_way(commands: Commands | None) -> None:
    """Waits for a moment when the bot is handling no interaction (GIVE_WAY_S at most, and
    what is left of the request's REQUEST_GIVE_WAY_S)."""
    if commands is None:
        return
    left = _left.get()
    if left is None:
        await commands.quiet(GIVE_WAY_S)
    elif left[0] <= 0:
        await asyncio.sleep(0)
    else:
        began = time.perf_counter()
        await commands.quiet(min(GIVE_WAY_S, left[0]))
        left[0] -= time.perf_counter() - began


async def drawn(
    template: jinja2.Template, context: dict[str, Any], commands: Commands | None
) -> str:
    """The template's text, drawn in pieces of SLICE_S at most between the commands."""
    await give_way(commands)
    turn = functools.partial(give_way, commands)
    return "".join(await in_pieces(template.generate(**context), str, turn, SLICE_S))


class PageError(Exception):
    """Answered with a page saying what happened: status, heading and message."""

    def __init__(self, status: int, heading: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.heading = heading
        self.message = message


NOT_FOUND = (
    "This server has nothing at this address that your link may show. Go back to the "
    "campaign's page and follow its links."
)


def not_found() -> PageError:
    return PageError(404, "Nothing here", NOT_FOUND)


@dataclass
class Site:
    """What every handler needs: the database, the links, the live boards, the templates."""

    db_of: Callable[[], Database]
    links: Links
    live: LiveBoards
    templates: jinja2.Environment
    version: str  # of the static files: their URLs change with them
    channel_names: ChannelNames
    clock: Callable[[], datetime]
    forwarded: bool = False
    reads: asyncio.Semaphore | None = None
    commands: Commands | None = None  # the bot's, where the page is served beside it

    @property
    def root(self) -> str:
        """The path the page lives under, behind a proxy: WEB_BASE_URL's."""
        return urlsplit(self.links.base_url).path or "/"

    @property
    def secure(self) -> bool:
        return self.links.base_url.startswith("https://")

    def context(self, link: Link | None = None, gm: bool = False, **values: Any) -> dict[str, Any]:
        found: dict[str, Any] = {
            "root": self.root,
            "version": self.version,
            "hours": f"{self.links.hours:g}",
            "gm": gm,
            "campaign_url": None,
            "guild_name": None,
            "member_name": None,
        }
        if link is not None:
            base = f"{self.root}servers/{link.guild_id}/"
            found.update(
                campaign_url=base,
                characters_url=f"{base}characters/",
                boards_url=f"{base}boards/",
                recaps_url=f"{base}recaps",
                guild_name=link.guild_name,
                member_name=link.member_name,
            )
        return {**found, **values}

    def page(self, template: str, status: int = 200, **context: Any) -> web.Response:
        html = self.templates.get_template(template).render(**context)
        return _html(html, status)

    async def render(self, template: str, **context: Any) -> web.Response:
        """A page as `page` writes it, drawn in pieces between the commands (`drawn`); its
        answer sent in a turn of its own."""
        html = await self.draw(template, **context)
        await self.give_way()
        return _html(html, 200)

    async def draw(self, template: str, **context: Any) -> str:
        return await drawn(self.templates.get_template(template), context, self.commands)

    async def give_way(self) -> None:
        await give_way(self.commands)

    async def built(self, items: Iterable[T], make: Callable[[T], R]) -> list[R]:
        """`make` of each item, in pieces of SLICE_S at most between the commands (what a
        page shows of each event or card, once its read is done)."""
        await give_way(self.commands)
        return await in_pieces(items, make, self.give_way, SLICE_S)

    def message(self, status: int, heading: str, message: str) -> web.Response:
        return self.page("message.html", status, **self.context(heading=heading, message=message))

    def refused(self, reason: str) -> web.Response:
        """403: the link opens nothing, and shows nothing of any server."""
        text = refusal_text(reason, self.links.hours)
        return self.message(403, "This link opens nothing", text)

    async def channel_labels(self, channel_ids: Sequence[int]) -> dict[int, str]:
        """`#table` for each channel whose name the bot knows (the page alone knows none)."""
        names = await self.channel_names(channel_ids) if channel_ids else {}
        return {channel: f"#{name}" for channel, name in names.items() if name}

    @contextlib.asynccontextmanager
    async def reading(self) -> AsyncIterator[Database]:
        """A turn to read the database (at most PAGE_READS page views at once), and the
        database, its statements taking turns with the commands; 503 while the bot is
        starting or the table is busy."""
        reads = self.reads
        if reads is None:
            reads = self.reads = asyncio.Semaphore(PAGE_READS)
        try:
            await asyncio.wait_for(reads.acquire(), PAGE_WAIT_S)
        except TimeoutError:
            raise PageError(
                503, "Busy", "The table is busy right now: reload in a moment."
            ) from None
        try:
            try:
                db = self.db_of()
            except RuntimeError:  # the bot has not connected its database yet
                raise PageError(
                    503, "Starting", "The bot is starting: reload in a moment."
                ) from None
            try:
                with taking_turns(self.give_way):  # each statement between the commands
                    yield db
            except Busy:
                raise PageError(503, "Busy", BUSY) from None
            except Unreachable:
                raise PageError(503, "Database unreachable", UNREACHABLE) from None
            except NoAnswer:
                raise PageError(503, "Database not answering", NO_ANSWER) from None
        finally:
            reads.release()


def _html(text: str, status: int) -> web.Response:
    return web.Response(text=text, status=status, content_type="text/html", charset="utf-8")


def now_utc() -> datetime:
    return datetime.now(UTC)
