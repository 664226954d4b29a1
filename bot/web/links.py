"""The links `/web` makes: signed with WEB_SECRET by itsdangerous, expiring after
WEB_LINK_HOURS, each made for one member of one guild (docs/commands.md, `/web`).

A link says which guild and which member, the member's generation of links (`/web revoke`
moves it on: bot/db/weblinks.py), whether the member had Manage Server or the guild's GM role
when it was made (P-1: the page recomputes GM with the guild's settings of the moment), and the
names to greet them with. Nothing of it is secret, all of it is signed: a changed byte is a
refused link. itsdangerous rather than hand-made HMAC: its timestamped, salted serializer is
the well-kept form of exactly this (Flask's sessions).
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from itsdangerous import BadSignature, SignatureExpired, TimestampSigner, URLSafeTimedSerializer

from bot.services.context import Caller

# Another use of the same secret (a future one) can never be taken for a link.
SALT = "lastgasp.web.link.v1"
NAME_LIMIT = 100  # characters of a guild's name carried (Discord's own limit)


class LinkRefused(Exception):
    """Why a link opens nothing; `reason` is one of the REASONS' keys."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class Link:
    """What a valid link says."""

    guild_id: int
    user_id: int
    generation: int
    manage_guild: bool
    gm_role_id: int | None  # the GM role the member had when the link was made, if any
    guild_name: str
    member_name: str
    issued_at: float = 0.0  # when it was made (Unix time): not part of the token, read from it

    @property
    def caller(self) -> Caller:
        """The member as the services know a Caller (no channel: the page is the guild's)."""
        roles = frozenset() if self.gm_role_id is None else frozenset({self.gm_role_id})
        return Caller(self.guild_id, 0, self.user_id, self.manage_guild, roles)


def _signer(clock: Callable[[], float]) -> type[TimestampSigner]:
    """itsdangerous' timestamp signer on the bot's clock (the tests move it)."""

    class Signer(TimestampSigner):
        def get_timestamp(self) -> int:
            return int(clock())

    return Signer


class Links:
    """Makes and reads links with one secret."""

    def __init__(
        self,
        secret: str,
        *,
        hours: float,
        base_url: str,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.hours = hours
        self.base_url = base_url if base_url.endswith("/") else base_url + "/"
        signer_kwargs: dict[str, Any] = {"digest_method": hashlib.sha256}
        self._serializer = URLSafeTimedSerializer(
            secret, salt=SALT, signer=_signer(clock), signer_kwargs=signer_kwargs
        )

    @property
    def max_age(self) -> int:
        return round(self.hours * 3600)

    def token(self, link: Link) -> str:
        data = [
            link.guild_id,
            link.user_id,
            link.generation,
            int(link.manage_guild),
            link.gm_role_id,
            link.guild_name[:NAME_LIMIT],
            link.member_name[:NAME_LIMIT],
        ]
        return str(self._serializer.dumps(data))

    def expires(self, link: Link) -> float:
        """When the link stops opening anything (Unix time)."""
        return link.issued_at + self.max_age

    def url(self, link: Link) -> str:
        return f"{self.base_url}login/{quote(self.token(link), safe='')}"

    def read(self, token: str) -> Link:
        """The link a token is, or LinkRefused("expired" | "tampered")."""
        try:
            data, issued = self._serializer.loads(
                token, max_age=self.max_age, return_timestamp=True
            )
        except SignatureExpired:
            raise LinkRefused("expired") from None
        except BadSignature:  # any other change, a truncated copy, another secret
            raise LinkRefused("tampered") from None
        try:
            guild, user, generation, manage, role, guild_name, member_name = data
            return Link(
                int(guild),
                int(user),
                int(generation),
                bool(manage),
                None if role is None else int(role),
                str(guild_name),
                str(member_name),
                issued.timestamp(),
            )
        except (TypeError, ValueError):  # signed by this secret, yet not a link: refused alike
            raise LinkRefused("tampered") from None
