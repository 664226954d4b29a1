"""Who may see a page, and how much anyone may ask: the link's cookie, the rate per address,
and the headers every answer carries.

A link opens once (`/login/<token>`: its signature and expiry checked, and that it is still
of its member's generation); the page keeps it as a cookie scoped to that server's pages
(Path=/servers/<guild id>/), so that a browser holds one link per server and never sends one
server's link to another's pages. Every page reads its cookie again and checks it all again:
the signature, the expiry, the server of the page, and (bot/services/web.py) the generation.
"""

from __future__ import annotations

import ipaddress
import time
from collections.abc import Callable

from aiohttp import web

from bot.limits import RateLimit, Window
from bot.web.links import Link, LinkRefused, Links

COOKIE = "lastgasp_link"
# Every answer: no script, style, picture, font or connection but the page's own (no inline
# script or style either), never framed, no referrer (a link's token is in its first URL).
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "font-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; "
    "frame-ancestors 'none'"
)
HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Resource-Policy": "same-origin",
    "Permissions-Policy": "camera=(), microphone=(), geolocation=(), interest-cohort=()",
    "X-Robots-Tag": "noindex, nofollow",
}


def refusal_text(reason: str, hours: float) -> str:
    """What a refused link says: what happened, and what to do (ask `/web` again)."""
    again = "Type /web in your Discord server for a new link."
    return {
        "missing": (
            "This page opens with a link from the bot: type /web in your Discord server and "
            "open the link it gives you."
        ),
        "tampered": (
            "This link is not one the bot made: it was changed or cut short, or the bot's "
            f"secret has changed since. {again}"
        ),
        "expired": f"This link has expired: a link lasts {hours:g} hours. {again}",
        "revoked": f"This link was ended with /web revoke. {again}",
        "elsewhere": (
            "This link is for another server. Type /web in the server whose page you want."
        ),
    }[reason]


def read_link(links: Links, token: str | None, guild_id: int | None = None) -> Link:
    """The link of a token (the login URL's, or the cookie's), checked for the page's server;
    LinkRefused with the reason otherwise."""
    if not token:
        raise LinkRefused("missing")
    link = links.read(token)
    if guild_id is not None and link.guild_id != guild_id:
        raise LinkRefused("elsewhere")
    return link


def cookie_of(request: web.Request) -> str | None:
    return request.cookies.get(COOKIE)


def client_address(request: web.Request, forwarded: bool) -> str:
    """The client's address; behind a reverse proxy (WEB_FORWARDED), the last address of
    X-Forwarded-For: the one the proxy itself saw (those before it, the client may write)."""
    if forwarded:
        chain = [a.strip() for a in request.headers.get("X-Forwarded-For", "").split(",")]
        if chain and chain[-1]:
            return chain[-1]
    return request.remote or "unknown"


def _key(address: str) -> tuple[int, int]:
    """bot/limits.py's windows are keyed by two integers: the address as a number (an IPv6
    client by its /64, which one client holds whole)."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return (0, hash(address))
    if ip.version == 6:
        return (6, int(ip) >> 64)
    return (4, int(ip))


class RateGuard:
    """At most `rate` requests per client address (bot/limits.py's sliding windows)."""

    def __init__(self, rate: RateLimit | None, clock: Callable[[], float] = time.monotonic):
        self._window = Window(rate) if rate else None
        self._clock = clock

    def wait(self, address: str) -> float:
        """0: let through (and counted); else the seconds until it would be."""
        if self._window is None:
            return 0.0
        return self._window.admit(_key(address), self._clock())
