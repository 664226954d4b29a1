"""Where a command's time goes, one command at a time (C = 1), on SQLite and on PostgreSQL:

- the Discord floor: a command that answers at once, with no database, through the same
  payload → tree → reply path (what discord.py and the offline seam cost by themselves);
- the bot's commands: wall time, the trips to the database (SQLite: every call to aiosqlite's
  thread or the bot's own hot-path threads, where the calling coroutine waits for the thread and
  the event loop to wake it; PostgreSQL: every asyncpg round trip, the SQLAlchemy engine's and
  the hot path's pool's alike), the time spent waiting on them, and the rest (Python on the
  event loop: discord.py, pydantic, the rules, rendering);
- the same for the raw-driver floor.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from typing import Any

import discord
from discord import app_commands

from bench import baseline
from bench.load import BotLoad
from bench.stats import Figures
from bench.world import World
from bot.private_api import send_answer
from bot.render.card import Card
from bot.render.common import INFO_COLOUR
from bot.render.layout import layout
from bot.replies import NO_PINGS

NOOP = "bench-noop"


class Trips:
    """Counts and times every trip to the database. SQLite: every job sent to a SQLite thread,
    aiosqlite's (under SQLAlchemy, and the baseline's) and the bot's own hot-path threads
    (bot/db/hotpath.py). PostgreSQL: every asyncpg call that goes to the server and back, on a
    connection or a prepared statement (SQLAlchemy's dialect prepares, then fetches)."""

    def __init__(self, backend: str = "sqlite") -> None:
        self.backend = backend
        self.count = 0
        self.seconds = 0.0

    @contextlib.contextmanager
    def watching(self) -> Iterator[Trips]:
        with contextlib.ExitStack() as stack:
            if self.backend == "sqlite":
                import aiosqlite.core

                from bot.db import hotpath

                stack.enter_context(self._timed(aiosqlite.core.Connection, "_execute"))
                stack.enter_context(self._timed(hotpath._SQLiteThread, "run", returns=True))
            else:
                import asyncpg
                from asyncpg.prepared_stmt import PreparedStatement

                for method in ("execute", "fetch", "fetchrow", "fetchval", "prepare"):
                    stack.enter_context(self._timed(asyncpg.Connection, method))
                for method in ("fetch", "fetchrow", "fetchval"):
                    stack.enter_context(self._timed(PreparedStatement, method))
            yield self

    @contextlib.contextmanager
    def _timed(self, owner: type, name: str, *, returns: bool = False) -> Iterator[None]:
        """Wrap owner.name: a coroutine function, or (returns=True) one returning a future."""
        original = getattr(owner, name)
        trips = self

        def count(start: float) -> None:
            trips.count += 1
            trips.seconds += time.perf_counter() - start

        def returning(self: Any, *args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            future = original(self, *args, **kwargs)
            future.add_done_callback(lambda _: count(start))
            return future

        async def awaited(self: Any, *args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return await original(self, *args, **kwargs)
            finally:
                count(start)

        setattr(owner, name, returning if returns else awaited)
        try:
            yield
        finally:
            setattr(owner, name, original)


def noop_command() -> app_commands.Command[Any, Any, None]:
    @app_commands.command(name=NOOP, description="answers at once, touches nothing")
    async def noop(interaction: discord.Interaction, character: str | None = None) -> None:
        # A card as small as the bot's smallest result, answered as the bot answers
        # (bot/replies.py): the floor is what discord.py costs on the bot's own path, without
        # the reply parsed into a Message that the bot never reads.
        card = Card(colour=INFO_COLOUR, title=character or "?", lines=("VIT 10/10 · Up",))
        view = layout(card)
        await send_answer(
            interaction, view=view, allowed_mentions=NO_PINGS, files=(), ephemeral=False
        )

    return noop


def _line(label: str, figures: Figures, trips: Trips | None) -> str:
    n = max(1, figures.commands)
    text = f"  {label:<34} {figures.per_command_ms:6.2f} ms/command"
    if trips is not None:
        waiting = 1000 * trips.seconds / n
        where = "the SQLite thread" if trips.backend == "sqlite" else "PostgreSQL"
        text += (
            f"  {trips.count / n:5.1f} trips to {where}, {waiting:5.2f} ms waiting on"
            f" them, {figures.per_command_ms - waiting:5.2f} ms the rest"
        )
    return text


async def breakdown(
    url: str, world: World, commands: int, seed: int, backend: str = "sqlite"
) -> list[str]:
    name = "SQLite" if backend == "sqlite" else "PostgreSQL"
    lines = [f"where the time goes, one command at a time (C=1, {name}):"]
    load = BotLoad(url, world, seed)
    await load.start()
    try:
        load.bot.tree.add_command(noop_command())
        await load.run(200, 1, seed + 1, "warm-up")
        planned = [(m, NOOP, {"character": o["character"]}) for m, _, o in load.plan(commands, 9)]
        floor = await load.run_payloads(load.payloads(planned), 1, "discord floor")
        lines.append(_line("Discord floor (no database)", floor, None))
        with Trips(backend).watching() as trips:
            bot = await load.run(commands, 1, seed + 3, "bot")
        lines.append(_line("bot, the play mix", bot, trips))
    finally:
        await load.close()
    base = await baseline.open_baseline(url, backend, pool_size=1)
    try:
        with Trips(backend).watching() as trips:
            floor = await baseline.run_closed(base, world, commands, 1, seed + 4)
    finally:
        await base.close()
    driver = "aiosqlite" if backend == "sqlite" else "asyncpg"
    lines.append(_line(f"raw {driver} baseline", floor, trips))
    return lines
