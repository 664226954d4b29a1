"""The bot under load, end to end: raw INTERACTION_CREATE payloads through the real command
tree, cogs, services, rules and database, the reply captured at the HTTP seam.

`bot.offline.OfflineDriver` does the Discord side, keeping no history: each payload is handed
to discord.py's gateway parser (`driver.send`) and its latency ends when the captured HTTP layer
sees its answer (`sent.reply`: a type 4 reply, or the edit that completes a deferred one).
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable
from typing import Any

from bench.stats import Figures, Job, closed_loop, ended, open_loop
from bench.world import PLAYERS, World, mix
from bot.app import create_bot
from bot.failures import SOMETHING_WENT_WRONG
from bot.offline import Member, Message, OfflineDriver, SentInteraction

ANSWER_TIMEOUT = 30.0
WATCH_EVERY = 1.0  # how often the run looks for commands left unanswered past ANSWER_TIMEOUT


class BotLoad:
    """One bot on a seeded database, the world's guilds sent to it as GUILD_CREATE."""

    def __init__(self, url: str, world: World, seed: int, *, boards: bool = False) -> None:
        self.world = world
        self.boards = boards  # a status board in every guild's channel, kept current
        self.bot = create_bot(url, rng=random.Random(seed))
        # A long run keeps nothing; Discord's own checks of a message are not the bot's cost.
        self.driver = OfflineDriver(self.bot, keep_history=False, checked=False)
        self._players: list[list[Member]] = []
        self._gms: list[Member] = []

    async def start(self) -> None:
        driver = self.driver
        await driver.start()
        for g in range(self.world.guilds):
            guild = driver.add_guild(self.world.guild_id(g), name=f"Table {g}")
            self._players.append(
                [
                    driver.member(guild, f"P{g}-{p}", user_id=self.world.player_id(g, p))
                    for p in range(PLAYERS)
                ]
            )
            self._gms.append(
                driver.member(guild, f"GM{g}", user_id=self.world.gm_id(g), manage_guild=True)
            )
        if self.boards:
            for gm in self._gms:
                await driver.invoke(gm, "board start")

    def board_edits(self) -> int:
        """How many times the boards were edited so far."""
        return sum(message.edits for message in self.driver.channel_messages.values())

    async def close(self) -> None:
        await self.driver.close()

    # --- the load ------------------------------------------------------------------------------

    def plan(self, count: int, seed: int) -> list[tuple[Member, str, dict[str, Any]]]:
        """`mix(...)` with its speakers: each character's owner, the GM for /recover."""
        planned = []
        for i, command, options in mix(self.world, count, seed):
            g = self.world.guild_of(i)
            by_gm = self.world.by_gm(command)
            member = self._gms[g] if by_gm else self._players[g][self.world.owner_of(i)]
            planned.append((member, command, options))
        return planned

    def payloads(self, planned: list[tuple[Member, str, dict[str, Any]]]) -> list[dict[str, Any]]:
        """Built before the clock starts: Discord builds them, not the bot."""
        return [
            self.driver.payload(member, command, **options) for member, command, options in planned
        ]

    async def run(self, count: int, concurrency: int, seed: int, label: str) -> Figures:
        return await self.run_payloads(self.payloads(self.plan(count, seed)), concurrency, label)

    async def run_payloads(
        self, payloads: list[dict[str, Any]], concurrency: int, label: str
    ) -> Figures:
        """A closed loop: `concurrency` commands in flight at all times."""
        return await self._measure(payloads, label, lambda jobs: closed_loop(jobs, concurrency))

    async def run_open(
        self, payloads: list[dict[str, Any]], arrivals: list[float], label: str
    ) -> Figures:
        """An open loop: command i sent at arrivals[i] seconds, whatever is still in flight."""
        return await self._measure(payloads, label, lambda jobs: open_loop(jobs, arrivals))

    async def _measure(
        self,
        payloads: list[dict[str, Any]],
        label: str,
        drive: Callable[[list[Job]], Awaitable[tuple[float, list[float]]]],
    ) -> Figures:
        outcome = {"refused": 0, "errors": 0}
        by_command: dict[str, list[float]] = {}
        in_flight: dict[SentInteraction, float] = {}
        jobs: list[Job] = [self._job(p, outcome, by_command, in_flight) for p in payloads]
        watchdog = asyncio.create_task(_time_out(in_flight))
        cpu = time.process_time()  # the process's, over the slice and its commands' ends
        try:
            seconds, latencies = await drive(jobs)
        finally:
            watchdog.cancel()
        await self.driver.idle(ANSWER_TIMEOUT)  # the tasks still finishing after their answer
        figures = Figures(label, seconds, latencies, outcome["refused"], outcome["errors"])
        figures.cpu_seconds = time.process_time() - cpu
        figures.by_command = by_command
        return figures

    def _job(
        self,
        payload: dict[str, Any],
        outcome: dict[str, int],
        by_command: dict[str, list[float]],
        in_flight: dict[SentInteraction, float],
    ) -> Job:
        latencies = by_command.setdefault(_command_of(payload), [])

        async def run() -> float | None:
            start = time.perf_counter()
            sent = self.driver.send(payload)  # what the gateway does with INTERACTION_CREATE
            in_flight[sent] = start
            try:
                message = await sent.reply
            except TimeoutError:
                outcome["errors"] += 1
                return None
            finally:
                del in_flight[sent]
            if message is None:  # it ended without an answer
                outcome["errors"] += 1
                return None
            latencies.append(ended(sent.answered_at) - start)
            first = _first_text(message)
            if first == SOMETHING_WENT_WRONG:
                outcome["errors"] += 1
            elif message.ephemeral and not first.startswith("### "):  # an untitled card
                outcome["refused"] += 1
            return sent.answered_at

        return run


def _first_text(message: Message) -> str:
    """The first text of a card (a refusal's sentence, or a result's title): read directly, so
    that the load does not parse every message it counts."""
    try:
        item = message.components[0]["components"][0]
        if item.get("type") == 9:  # a section: its text beside its button
            item = item["components"][0]
        return str(item.get("content", ""))
    except (IndexError, KeyError, TypeError, AttributeError):
        return ""


async def _time_out(in_flight: dict[SentInteraction, float]) -> None:
    """Fails each command still unanswered ANSWER_TIMEOUT after it was sent: one timer for the
    whole run, not one a command (asyncio.wait_for would cost the bot's event loop about 9 µs
    a command, which the baseline does not pay)."""
    while True:
        await asyncio.sleep(WATCH_EVERY)
        now = time.perf_counter()
        for sent, start in list(in_flight.items()):
            if now - start >= ANSWER_TIMEOUT and not sent.reply.done():
                sent.reply.set_exception(TimeoutError())


def _command_of(payload: dict[str, Any]) -> str:
    """`damage`, or `character show` for a subcommand."""
    data = payload["data"]
    options = data.get("options") or []
    if options and options[0].get("type") == 1:
        return f"{data['name']} {options[0]['name']}"
    return str(data["name"])
