"""The bot's figures for Prometheus (`GET /metrics` on the health server), one registry per bot.

Not prometheus-client's global registry: a process serves its own shards' figures only, and the
tests run many bots in one process. On the command path a figure costs a counter increment and
a histogram observation on children looked up once per (name, outcome); what the bot already
knows (shards, guilds, boards, the pool, lock waits, memory) is read only when scraped.

Labels are bounded: command names come from the command tree and buttons from BUTTON_NAMES;
anything else is OTHER. No label ever holds a guild, channel or user id.
"""

from __future__ import annotations

import collections
import math
import os
import sys
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from prometheus_client import CollectorRegistry, Counter, Histogram, disable_created_metrics
from prometheus_client.core import GaugeMetricFamily, Metric, SummaryMetricFamily
from prometheus_client.process_collector import ProcessCollector
from prometheus_client.registry import Collector
from sqlalchemy.pool import QueuePool

from bot.db.writelock import lock_waits
from bot.health import Connections
from bot.logs import command_name, component_name
from bot.replies import AFTER_WINDOW, FAILED

if TYPE_CHECKING:
    from bot.app import LastGaspBot

OTHER = "other"  # a name the bot does not know (an out-of-date command, a forged button)
# Around Discord's 3 s: the defer goes at 2 s, an answer past 3 s is lost.
BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 2.5, 3.0, 5.0)
# component_name() of every button and menu of bot/render/buttons.py (tests/ops/test_metrics.py
# checks).
BUTTON_NAMES = frozenset(
    {
        "recover",
        "odds",
        "delete:confirm",
        "delete:cancel",
        "board:round",
        "board:sheet",
        "raise",
        "pick",
        "expired",
    }
)

# No `_created` series beside every counter: half the exposition, read by nothing here.
disable_created_metrics()  # type: ignore[no-untyped-call]


class Metrics:
    """Every figure of one bot. The counting methods are the hooks of bot/tree.py,
    bot/clicks.py, bot/replies.py and bot/boards.py."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        r = self.registry
        self._commands = Counter(
            "lastgasp_commands",
            "Slash commands by name and outcome.",
            ("command", "outcome"),
            registry=r,
        )
        self._command_seconds = Histogram(
            "lastgasp_command_duration_seconds",
            "From taking a slash command to its end.",
            ("command",),
            buckets=BUCKETS,
            registry=r,
        )
        self._clicks = Counter(
            "lastgasp_clicks",
            "Button clicks by button and outcome.",
            ("button", "outcome"),
            registry=r,
        )
        self._click_seconds = Histogram(
            "lastgasp_click_duration_seconds",
            "From taking a click to its end.",
            ("button",),
            buckets=BUCKETS,
            registry=r,
        )
        self._autocompletes = Counter(
            "lastgasp_autocompletes",
            "Autocomplete requests by command and outcome.",
            ("command", "outcome"),
            registry=r,
        )
        self._autocomplete_seconds = Histogram(
            "lastgasp_autocomplete_duration_seconds",
            "From taking an autocomplete to its end.",
            buckets=BUCKETS,
            registry=r,
        )
        self._deferred = Counter(
            "lastgasp_deferred_answers",
            "Interactions deferred (Discord shows 'thinking') because their answer took 2 s.",
            registry=r,
        )
        self._late = Counter(
            "lastgasp_late_answers",
            "Answers that missed Discord's 3 s window (after_window) or that Discord did not "
            "take (failed).",
            ("reason",),
            registry=r,
        )
        self._busy = Counter(
            "lastgasp_busy_refusals",
            "Commands and clicks refused as busy (a lock held past the budget): nothing changed.",
            ("kind",),
            registry=r,
        )
        self._board_edits = Counter(
            "lastgasp_board_edits", "Status board edits requested from Discord.", registry=r
        )
        self._board_429s = Counter(
            "lastgasp_board_rate_limited",
            "Status board edits Discord answered 429 (too many requests).",
            registry=r,
        )
        for reason in (AFTER_WINDOW, FAILED):
            self._late.labels(reason)
        for kind in ("command", "click"):
            self._busy.labels(kind)
        _memory(r)
        self._known: frozenset[str] = frozenset()
        self._command_children: dict[tuple[str, str], tuple[Any, Any]] = {}
        self._click_children: dict[tuple[str, str], tuple[Any, Any]] = {}
        self._autocomplete_children: dict[tuple[str, str], Any] = {}

    def watch(self, bot: LastGaspBot) -> None:
        """Read `bot`'s shards, guilds, boards, pool and lock waits at each scrape."""
        self.registry.register(_BotCollector(bot))

    def know_commands(self, tree: app_commands.CommandTree[Any]) -> None:
        """The names a command's label may take (once the cogs are loaded)."""
        names = {
            c.qualified_name for c in tree.walk_commands() if isinstance(c, app_commands.Command)
        }
        for kind in (discord.AppCommandType.user, discord.AppCommandType.message):
            names.update(menu.name for menu in tree.walk_commands(type=kind))
        self._known = frozenset(names)

    # --- the command path: one lookup, one increment, one observation ---------------------

    def command(self, interaction: discord.Interaction[Any], outcome: str, seconds: float) -> None:
        name = command_name(interaction)
        if name not in self._known:
            name = OTHER
        key = (name, outcome)
        children = self._command_children.get(key)
        if children is None:
            children = self._command_children[key] = (
                self._commands.labels(name, outcome),
                self._command_seconds.labels(name),
            )
        children[0].inc()
        children[1].observe(seconds)

    def click(self, interaction: discord.Interaction[Any], outcome: str, seconds: float) -> None:
        name = component_name(interaction)
        if name not in BUTTON_NAMES:
            name = OTHER
        key = (name, outcome)
        children = self._click_children.get(key)
        if children is None:
            children = self._click_children[key] = (
                self._clicks.labels(name, outcome),
                self._click_seconds.labels(name),
            )
        children[0].inc()
        children[1].observe(seconds)

    def autocomplete(
        self, interaction: discord.Interaction[Any], outcome: str, seconds: float
    ) -> None:
        name = command_name(interaction)
        if name not in self._known:
            name = OTHER
        key = (name, outcome)
        child = self._autocomplete_children.get(key)
        if child is None:
            child = self._autocomplete_children[key] = self._autocompletes.labels(name, outcome)
        child.inc()
        self._autocomplete_seconds.observe(seconds)

    # --- rarer moments ---------------------------------------------------------------------

    def busy(self, kind: str) -> None:
        """A command or a click answered "busy, nothing was changed"."""
        self._busy.labels(kind).inc()

    def deferred(self) -> None:
        self._deferred.inc()

    def late(self, reason: str) -> None:
        self._late.labels(reason).inc()

    def board_edit(self) -> None:
        self._board_edits.inc()

    def board_rate_limited(self) -> None:
        self._board_429s.inc()


class _BotCollector(Collector):
    """What the bot knows already, read at scrape time (not kept up to date on every event)."""

    def __init__(self, bot: LastGaspBot) -> None:
        self._bot = bot
        self._connections = Connections(bot)  # listening from now: built before bot.start

    def describe(self) -> Iterable[Metric]:
        return self._families()

    def collect(self) -> Iterator[Metric]:
        bot = self._bot
        latency, connected, guilds, boards, pool, pool_size, waits = self._families()
        down = set(self._connections.disconnected)
        per_shard = collections.Counter(guild.shard_id for guild in bot.guilds)
        for shard, seconds, up in _shards(bot):
            label = [str(shard)]
            if math.isfinite(seconds):  # nan until the first heartbeat
                latency.add_metric(label, seconds)
            connected.add_metric(label, 1.0 if up and shard not in down else 0.0)
            guilds.add_metric(label, per_shard.get(shard, 0))
        boards.add_metric([], bot.boards.active)
        yield from (latency, connected, guilds, boards)
        try:
            engine = bot.db.engine
        except RuntimeError:  # not connected yet, or closed
            return
        if isinstance(engine.pool, QueuePool):  # an in-memory database's pool has no status
            pools = [p for p in (engine.pool, bot.db.loop_pool) if isinstance(p, QueuePool)]
            pool.add_metric(["in_use"], sum(p.checkedout() for p in pools))
            pool.add_metric(["idle"], sum(p.checkedin() for p in pools))
            pool_size.add_metric([], engine.pool.size())
            yield from (pool, pool_size)
        path = engine.url.database if engine.dialect.name == "sqlite" else None
        found = lock_waits(path) if path and path != ":memory:" else None
        waits.add_metric([], found.count if found else 0, found.seconds if found else 0.0)
        yield waits

    @staticmethod
    def _families() -> tuple[
        GaugeMetricFamily,
        GaugeMetricFamily,
        GaugeMetricFamily,
        GaugeMetricFamily,
        GaugeMetricFamily,
        GaugeMetricFamily,
        SummaryMetricFamily,
    ]:
        return (
            GaugeMetricFamily(
                "lastgasp_gateway_latency_seconds",
                "Discord gateway heartbeat latency per shard (absent until the first heartbeat).",
                labels=["shard"],
            ),
            GaugeMetricFamily(
                "lastgasp_gateway_connected",
                "1 while the shard is connected to Discord's gateway, else 0.",
                labels=["shard"],
            ),
            GaugeMetricFamily("lastgasp_guilds", "Guilds served per shard.", labels=["shard"]),
            GaugeMetricFamily("lastgasp_boards_active", "Status boards this process keeps."),
            GaugeMetricFamily(
                "lastgasp_db_pool_connections",
                "The database's pooled connections, in use and idle: the SQLAlchemy engine's "
                "(units of work) and on SQLite the event loop's own for read-only ones (SQLite's "
                "hot-path writers, a connection of the event loop's and one of a thread's, are "
                "outside the pools).",
                labels=["state"],
            ),
            GaugeMetricFamily("lastgasp_db_pool_size", "The SQLAlchemy engine's pool size."),
            SummaryMetricFamily(
                "lastgasp_lock_wait_seconds",
                "Waits for the SQLite database's write lock, between this process's writers and "
                "other processes' (none on PostgreSQL: its row locks wait in the server).",
            ),
        )


def _shards(bot: LastGaspBot) -> list[tuple[int, float, bool]]:
    """(shard id, gateway latency, has connected) of each shard of this process."""
    if not isinstance(bot, discord.AutoShardedClient):
        return [(0, bot.latency, bot.is_ready())]
    found = []
    for shard in bot.shard_ids or []:
        info = bot.get_shard(shard)  # None until the shard connects
        if info is None:
            found.append((shard, math.nan, False))
        else:
            found.append((shard, info.latency, not info.is_closed()))
    return found


def _memory(registry: CollectorRegistry) -> None:
    """prometheus-client's process figures (from /proc), or else the peak RSS."""
    collector = ProcessCollector(registry=None)
    if any(metric.samples for metric in collector.collect()):
        registry.register(collector)
    elif os.name == "posix":
        registry.register(_PeakMemory())


class _PeakMemory(Collector):
    """Where there is no /proc (macOS): the process's peak resident memory."""

    def collect(self) -> Iterator[Metric]:
        import resource  # POSIX only

        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        scale = 1 if sys.platform == "darwin" else 1024  # bytes on macOS, KiB elsewhere
        figure = GaugeMetricFamily(
            "process_resident_memory_bytes", "Peak resident memory (no /proc here)."
        )
        figure.add_metric([], peak * scale)
        yield figure
