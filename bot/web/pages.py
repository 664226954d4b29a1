"""The campaign page's handlers: thin, as the cogs are. Read the request (the link's cookie, the
ids of the path, the page's query), call a use case of bot/services/web.py, render a template.
Nothing here writes (every route is a GET; aiohttp answers 405 to anything else)."""

from __future__ import annotations

import asyncio
import logging
from functools import lru_cache

from aiohttp import web

from bot.render.common import STATE_MARKS
from bot.render.odds import chart_bars
from bot.render.pictures import OddsBar, odds_chart_png
from bot.render.recap import picture
from bot.render.recap_chart import RECAP_FILENAME, RECAP_SIZE
from bot.services import web as service
from bot.services.board import BoardView
from bot.services.recap import Window
from bot.web import recap_view, view
from bot.web.guard import COOKIE, client_address, cookie_of, read_link, refusal_text
from bot.web.links import Link
from bot.web.live import Feed, Full
from bot.web.site import MAX_PAGE, ROW_ID_MAX, SNOWFLAKE_MAX, PageError, Site, not_found
from rules.recap import Recap

log = logging.getLogger("lastgasp.web")

STREAM_S = 600.0  # a live connection ends after this: the browser reconnects, the link is checked
CHECK_S = 60.0  # an open live board checks its link this often (a revoke ends it)
PING_S = 15.0  # a comment line this often keeps proxies from closing a quiet stream
BOARD_ENDED = "This board has ended in Discord: it shows the table as it last was."


def _id(request: web.Request, name: str, most: int) -> int:
    value = int(request.match_info[name])  # the route allows digits only
    if not 0 < value <= most:
        raise not_found()
    return value


def _page_number(request: web.Request) -> int:
    text = request.query.get("page", "1")
    if not text.isdigit() or not 1 <= int(text) <= MAX_PAGE:
        raise PageError(400, "Not a page", f"page is a number from 1 to {MAX_PAGE}.")
    return int(text)


def _before(request: web.Request, of: str = "an event of this history") -> int | None:
    text = request.query.get("before")
    if text is None:
        return None
    if not text.isdigit() or not 0 < int(text) <= ROW_ID_MAX:
        raise PageError(400, "Not a page", f"before is the number of {of}.")
    return int(text)


def _everything(request: web.Request) -> bool:
    text = request.query.get("all")
    if text not in (None, "1"):
        raise PageError(400, "Not a page", "all is 1 (bookkeeping too) or left out.")
    return text == "1"


@lru_cache(maxsize=256)
def _chart(bars: tuple[OddsBar, ...]) -> bytes:
    """The odds chart of `/odds` (bot/render/pictures.py): the same picture for the same
    odds, drawn once."""
    return odds_chart_png(bars, title=f"The next {len(bars)} rolls")


@lru_cache(maxsize=32)
def _recap_chart(recap: Recap, window: Window) -> bytes:
    """The picture of `/recap` (bot/render/recap.py): the same story draws the same picture,
    once (a recap is told again the same each time: bot/services/recap.py `retell`)."""
    return picture(recap, window)


class Pages:
    def __init__(self, site: Site) -> None:
        self.site = site

    def routes(self) -> list[web.RouteDef]:
        guild = r"{guild:\d{1,20}}"
        return [
            web.get("/", self.home),
            web.get("/login/{token}", self.login),
            web.get(f"/servers/{guild}", self.to_campaign),
            web.get(f"/servers/{guild}/", self.campaign),
            web.get(f"/servers/{guild}/characters/{{character:\\d{{1,20}}}}", self.character),
            web.get(f"/servers/{guild}/characters/{{character:\\d{{1,20}}}}/odds.png", self.odds),
            web.get(f"/servers/{guild}/boards/{{channel:\\d{{1,20}}}}", self.board),
            web.get(f"/servers/{guild}/recaps", self.recaps),
            web.get(f"/servers/{guild}/recaps/{{recap:\\d{{1,20}}}}", self.recap),
            web.get(
                f"/servers/{guild}/recaps/{{recap:\\d{{1,20}}}}/{RECAP_FILENAME}", self.recap_chart
            ),
            web.get(f"/servers/{guild}/boards/{{channel:\\d{{1,20}}}}/live", self.live),
        ]

    # --- the link -----------------------------------------------------------------------

    def _link(self, request: web.Request) -> Link:
        """The link of the page's server, from its cookie (LinkRefused: none, or not valid)."""
        guild = _id(request, "guild", SNOWFLAKE_MAX)
        return read_link(self.site.links, cookie_of(request), guild)

    async def home(self, _request: web.Request) -> web.Response:
        site = self.site
        return site.message(
            200,
            "Last Gasp's campaign page",
            "Each server's page opens with a link of your own: type /web in your Discord "
            "server and open the link it gives you.",
        )

    async def login(self, request: web.Request) -> web.Response:
        """A link from `/web`: checked, kept as the server's cookie, then its page."""
        site = self.site
        link = read_link(site.links, request.match_info["token"])
        async with site.reading() as db:
            await service.admit(db, link.caller, link.generation)
        target = f"{site.root}servers/{link.guild_id}/"
        response = web.HTTPSeeOther(target)
        remaining = site.links.expires(link) - site.clock().timestamp()
        response.set_cookie(
            COOKIE,
            request.match_info["token"],
            path=target,
            max_age=max(int(remaining), 1),
            httponly=True,
            samesite="Lax",
            secure=site.secure,
        )
        raise response

    async def to_campaign(self, request: web.Request) -> web.Response:
        raise web.HTTPMovedPermanently(f"{self.site.root}servers/{request.match_info['guild']}/")

    # --- the pages ----------------------------------------------------------------------

    async def campaign(self, request: web.Request) -> web.Response:
        site = self.site
        link = self._link(request)
        page = _page_number(request)
        offset = (page - 1) * service.CARDS_PER_PAGE
        async with site.reading() as db:
            found = await service.campaign(db, link.caller, link.generation, offset=offset)
        pages = max(1, -(-found.total // service.CARDS_PER_PAGE))
        if page > pages:
            raise not_found()
        labels = await site.channel_labels([b.channel_id for b in found.boards])
        boards = [
            {
                "channel_id": b.channel_id,
                "label": labels.get(b.channel_id) or f"Status board {number}",
                "known": b.channel_id in labels,
            }
            for number, b in enumerate(found.boards, 1)
        ]
        deleted = [{"id": i, "name": sheet.name} for i, sheet in found.deleted]
        recaps = recap_view.items(found.recaps, viewer=link.user_id, now=site.clock())
        return await site.render(
            "campaign.html",
            **site.context(
                link,
                found.gm,
                cards=await site.built(found.cards, lambda row: view.card(row, link.user_id)),
                total=found.total,
                page=page,
                pages=pages,
                boards=boards,
                deleted=deleted,
                recaps=recaps,
                older_recaps=recaps[-1].id if found.more_recaps else None,
            ),
        )

    async def character(self, request: web.Request) -> web.Response:
        site = self.site
        link = self._link(request)
        character_id = _id(request, "character", ROW_ID_MAX)
        before, everything = _before(request), _everything(request)
        async with site.reading() as db:
            found = await service.character_page(
                db, link.caller, link.generation, character_id, before=before, everything=everything
            )
        sheet, now, root = found.sheet, site.clock(), site.root
        events = None
        if found.history is not None:
            events = await site.built(
                found.history,
                lambda e: view.event(
                    e, viewer=link.user_id, owner=sheet.owner_id, now=now, root=root
                ),
            )
        base = f"{root}servers/{link.guild_id}/characters/{character_id}"
        return await site.render(
            "character.html",
            **site.context(
                link,
                found.gm,
                name=sheet.name,
                mark=STATE_MARKS[sheet.state],
                state=sheet.state.value,
                state_key=view.state_key(sheet.state),
                deleted=found.deleted,
                sheet=view.sheet(sheet, link.user_id),
                odds=view.odds(found.odds) if found.odds else None,
                odds_url=f"{base}/odds.png",
                history_url=base,
                events=events,
                everything=everything,
                before=before,
                older=found.older,
            ),
        )

    async def odds(self, request: web.Request) -> web.Response:
        site = self.site
        link = self._link(request)
        character_id = _id(request, "character", ROW_ID_MAX)
        async with site.reading() as db:
            found = await service.character_odds(db, link.caller, link.generation, character_id)
        if found is None:
            raise not_found()
        # Drawn off the event loop: the commands' replies wait on it otherwise.
        png = await asyncio.to_thread(_chart, tuple(chart_bars(found.spiral)))
        return web.Response(body=png, content_type="image/png")

    async def board(self, request: web.Request) -> web.Response:
        site = self.site
        link = self._link(request)
        channel_id = _id(request, "channel", SNOWFLAKE_MAX)
        async with site.reading() as db:
            found, gm = await service.board(db, link.caller, link.generation, channel_id)
        base = f"{site.root}servers/{link.guild_id}/boards/{channel_id}"
        labels = await site.channel_labels([channel_id])
        return await site.render(
            "board.html",
            **site.context(
                link,
                gm,
                board=view.board(found, link.user_id),
                channel_label=labels.get(channel_id),
                channel_id=channel_id,
                live_url=f"{base}/live",
                now=view.stamp(site.clock()),
            ),
        )

    async def recaps(self, request: web.Request) -> web.Response:
        """Every recap of the server, newest first, 50 a page (older than `before`)."""
        site = self.site
        link = self._link(request)
        before = _before(request, "a recap of this server")
        async with site.reading() as db:
            found = await service.recaps(db, link.caller, link.generation, before=before)
        recaps = recap_view.items(found.recaps, viewer=link.user_id, now=site.clock())
        return await site.render(
            "recaps.html",
            **site.context(
                link,
                found.gm,
                recaps=recaps,
                before=before,
                older_recaps=recaps[-1].id if found.older else None,
            ),
        )

    async def recap(self, request: web.Request) -> web.Response:
        """A recap, told again as `/recap` told it in Discord; viewing it logs nothing."""
        site = self.site
        link = self._link(request)
        recap_id = _id(request, "recap", ROW_ID_MAX)
        async with site.reading() as db:
            found = await service.recap_page(db, link.caller, link.generation, recap_id)
        shown = recap_view.recap(found, viewer=link.user_id, now=site.clock(), root=site.root)
        width, height = RECAP_SIZE
        return await site.render(
            "recap.html",
            **site.context(
                link,
                found.gm,
                recap=shown,
                chart_url=f"{site.root}servers/{link.guild_id}/recaps/{recap_id}/{RECAP_FILENAME}",
                chart_width=width,
                chart_height=height,
            ),
        )

    async def recap_chart(self, request: web.Request) -> web.Response:
        site = self.site
        link = self._link(request)
        recap_id = _id(request, "recap", ROW_ID_MAX)
        async with site.reading() as db:
            told = await service.recap_story(db, link.caller, link.generation, recap_id)
        if not told.recap.stories:  # nothing changed: no picture, as in Discord
            raise not_found()
        # Drawn off the event loop: the commands' replies wait on it otherwise.
        png = await asyncio.to_thread(_recap_chart, told.recap, told.window)
        return web.Response(body=png, content_type="image/png")

    # --- the live board -----------------------------------------------------------------

    async def fragment(self, board: BoardView, link: Link) -> str:
        """The board's lines alone, as the page shows them (what a live update sends)."""
        await self.site.give_way()
        lines = view.board(board, 0)
        return await self.site.draw("_board.html", **self.site.context(link, board=lines))

    async def live(self, request: web.Request) -> web.StreamResponse:
        """Server-sent events: `board` with the board's new lines after each change; `ended`
        when the link is revoked or expires meanwhile, or the board ends in Discord."""
        site = self.site
        link = self._link(request)
        channel_id = _id(request, "channel", SNOWFLAKE_MAX)
        async with site.reading() as db:
            await service.board(db, link.caller, link.generation, channel_id)
        address = client_address(request, site.forwarded)
        try:
            async with site.live.watch(link.guild_id, channel_id, address) as feed:
                response = web.StreamResponse(
                    headers={
                        "Content-Type": "text/event-stream; charset=utf-8",
                        "Cache-Control": "no-store",
                        "X-Accel-Buffering": "no",  # nginx: pass each event on at once
                    }
                )
                await response.prepare(request)
                await response.write(b"retry: 3000\n\n")
                await self._stream(response, feed, link)
                return response
        except Full:  # only ever raised as it opens
            raise PageError(
                503, "Too many live boards", "Too many live boards are open: reload later."
            ) from None

    async def _stream(self, response: web.StreamResponse, feed: Feed, link: Link) -> None:
        site = self.site
        loop = asyncio.get_running_loop()
        started = loop.time()
        checked = started
        seen, sent = 0, None
        while loop.time() - started < STREAM_S:
            version = await feed.wait(seen, PING_S)
            if site.live.closing:
                return
            if loop.time() - checked >= CHECK_S or site.clock().timestamp() >= site.links.expires(
                link
            ):
                checked = loop.time()
                reason = await self._still_valid(link)
                if reason is not None:
                    text = refusal_text(reason, site.links.hours)
                    await response.write(_event("ended", text))
                    return
            if feed.ended:
                await response.write(_event("ended", BOARD_ENDED))
                return
            if version == seen or feed.view is None:
                await response.write(b": ping\n\n")
                continue
            seen = version
            html = await feed.drawing(lambda board: self.fragment(board, link))
            if html != sent:
                sent = html
                await response.write(_event("board", html))

    async def _still_valid(self, link: Link) -> str | None:
        if self.site.clock().timestamp() >= self.site.links.expires(link):
            return "expired"
        try:
            async with self.site.reading() as db:
                await service.admit(db, link.caller, link.generation)
        except service.LinkEnded:
            return "revoked"
        except PageError:
            return None  # busy: checked again later
        return None


def _event(name: str, data: str) -> bytes:
    """One server-sent event; each line of data on a `data:` line of its own."""
    lines = "".join(f"data: {part}\n" for part in data.splitlines() or [""])
    return f"event: {name}\n{lines}\n".encode()
