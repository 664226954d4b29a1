"""Limits against abuse: how many commands and button presses one member may send in one server.

Each member of each server may send RATE_LIMIT (8 in 10 s by default) commands and clicks
together in any window of that length; beyond it they are answered privately that nothing was
changed and when to try again, at once (never deferred: no database, no lock). Autocomplete,
sent by Discord at each keystroke, has a rate of its own AUTOCOMPLETE_FACTOR times larger;
beyond it the member gets no choices. Only what is let through counts, so a member who keeps
sending is let through again as soon as the window allows.

The windows live in this process's memory (each process limits its own shards' guilds), at
most MAX_KEYS members at once: the one least recently let through is forgotten first, and so is
every member whose window has emptied. No library: `limits` and `pyrate-limiter` read their own
clock (the tests set the bot's), `limits`' memory storage expires keys on a timer thread,
`aiolimiter` keeps one bucket, not one per member, and waits instead of refusing; what is needed
is the dozen lines of `Window`.
"""

from __future__ import annotations

import logging
import math
import re
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import discord

from bot import replies
from bot.failures import REPLY_ERRORS

log = logging.getLogger("lastgasp.limits")

SLOWED = "slowed"  # the outcome in the command's log line
AUTOCOMPLETE_FACTOR = 5  # a name typed letter by letter asks for choices at each keystroke
# Members remembered at once. 20,000 members let through within one 10 s window would be 2,000
# commands a second, beyond what one process serves: only a flood past that forgets a member
# early. About 0.5 KB each at most.
MAX_KEYS = 20_000
OFF = ("off", "none", "0")
_RATE = re.compile(r"(\d+)\s*/\s*(\d+(?:\.\d+)?)\s*(s|m)?", re.IGNORECASE)


@dataclass(frozen=True)
class RateLimit:
    """At most `count` in any `seconds`."""

    count: int
    seconds: float

    @classmethod
    def parse(cls, text: str) -> RateLimit | None:
        """`8/10s` (or `8/10`, `30/1m`); `off` for no limit (None). ValueError otherwise."""
        text = text.strip()
        if text.lower() in OFF:
            return None
        found = _RATE.fullmatch(text)
        if found is None:
            raise ValueError(f"{text!r} is not a rate")
        count, seconds = int(found[1]), float(found[2]) * (60 if found[3] in ("m", "M") else 1)
        if count < 1 or seconds <= 0:
            raise ValueError(f"{text!r} lets nothing through")
        return cls(count, seconds)

    def __str__(self) -> str:
        return f"{self.count}/{self.seconds:g}s"


DEFAULT_RATE_LIMIT = RateLimit(8, 10.0)


class Window:
    """A sliding window per key: at most `rate.count` let through in any `rate.seconds`."""

    def __init__(self, rate: RateLimit, keys: int = MAX_KEYS) -> None:
        self.rate = rate
        self.keys = keys
        # key -> the times it was let through within the window, oldest first; the keys in the
        # order they were last let through, least recent first.
        self._hits: OrderedDict[tuple[int, int], list[float]] = OrderedDict()

    def __len__(self) -> int:
        return len(self._hits)

    def admit(self, key: tuple[int, int], now: float) -> float:
        """0 if let through (and counted); else the seconds until it would be."""
        since = now - self.rate.seconds
        # A time after `now` is a clock set back: dropped, or the member would wait for it.
        hits = [t for t in self._hits.get(key, ()) if since < t <= now]
        if len(hits) >= self.rate.count:
            self._hits[key] = hits  # refused: not counted, and the key keeps its place
            return hits[0] - since
        hits.append(now)
        self._hits[key] = hits
        self._hits.move_to_end(key)
        self._forget(since)
        return 0.0

    def _forget(self, since: float) -> None:
        """The least recently let through, while too many or their window empty."""
        while self._hits:
            key, hits = next(iter(self._hits.items()))
            if len(self._hits) <= self.keys and hits[-1] > since:
                return
            del self._hits[key]


class Limits:
    """The bot's limits: commands and clicks together, autocomplete apart; `rate` None: none."""

    def __init__(self, rate: RateLimit | None, clock: Callable[[], float]) -> None:
        self.rate = rate
        self.clock = clock  # seconds; the bot's clock
        self._acts = Window(rate) if rate else None
        self._completions = (
            Window(RateLimit(rate.count * AUTOCOMPLETE_FACTOR, rate.seconds)) if rate else None
        )

    def wait(self, guild_id: int, user_id: int, *, autocomplete: bool = False) -> float:
        """0 if the member may go on (counted); else the seconds before they may."""
        window = self._completions if autocomplete else self._acts
        if window is None:
            return 0.0
        return window.admit((guild_id, user_id), self.clock())

    def slow_down(self, wait: float) -> str:
        assert self.rate is not None
        seconds = max(1, math.ceil(wait))
        return (
            f"Slow down: a member may send {self.rate.count} commands and button presses in "
            f"{self.rate.seconds:g} seconds. Try again in {seconds} second"
            f"{'' if seconds == 1 else 's'}. Nothing was changed."
        )


async def slowed(interaction: discord.Interaction[Any]) -> bool:
    """True when the member is over the limit: then already answered (privately, or with no
    choices for an autocomplete), and the interaction must not be handled."""
    limits: Limits | None = getattr(interaction.client, "limits", None)
    if limits is None or limits.rate is None:
        return False
    autocomplete = interaction.type is discord.InteractionType.autocomplete
    wait = limits.wait(interaction.guild_id or 0, interaction.user.id, autocomplete=autocomplete)
    if wait <= 0:
        return False
    try:
        if autocomplete:
            await interaction.response.autocomplete([])
        else:
            await replies.refuse(interaction, limits.slow_down(wait))
    except REPLY_ERRORS as error:
        log.warning("could not tell a member to slow down: %r", error)
    return True
