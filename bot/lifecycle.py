"""Stopping gracefully: the interactions in flight, and the signals that start a shutdown.

On SIGTERM or SIGINT, `python -m bot run` stops taking new interactions (each one still arriving
gets a short private answer instead of silence), lets those in flight finish and answer, then
closes the gateway connection and the database. It gives up waiting after DRAIN_TIMEOUT_S, so
the whole stop fits in the 10 s an orchestrator (`docker stop`, Kubernetes) grants before
SIGKILL; a watchdog ends the process if closing itself hangs.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import threading
from collections.abc import Callable
from typing import Any

import aiohttp
import discord

from bot.logs import command_name
from bot.loop import settle
from bot.render.reply import Reply
from bot.replies import message

log = logging.getLogger("lastgasp.lifecycle")

RESTARTING = "The bot is restarting: nothing was changed. Try again in a minute."
DRAIN_TIMEOUT_S = 8.0  # waiting for the interactions in flight
CLOSE_TIMEOUT_S = 1.0  # then closing the gateway, the HTTP session and the database
STOP_BUDGET_S = 9.0  # the whole of shut_down, draining and closing
HARD_LIMIT_S = 9.5  # from the signal to the end of the process, whatever hangs
STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)
_REPLY_ERRORS = (discord.HTTPException, asyncio.TimeoutError, aiohttp.ClientError)


class InFlight:
    """The tasks handling interactions right now, and whether the bot has stopped taking new
    ones (`draining`). A task is tracked from its first step until it is done."""

    def __init__(self) -> None:
        self.draining = False
        # task -> what it handles, for the log: a name, or what tells it (read only if logged)
        self._tasks: dict[asyncio.Task[Any], str | Callable[[], str]] = {}
        self._quiet = asyncio.Event()  # set while no interaction is being handled
        self._quiet.set()

    def __len__(self) -> int:
        return len(self._tasks)

    def refuse_new(self) -> None:
        """From now on every new interaction is told the bot is restarting."""
        self.draining = True

    def track(self, task: asyncio.Task[Any] | None, what: str | Callable[[], str] = "") -> None:
        if task is None or task.done() or task in self._tasks:
            return
        self._tasks[task] = what or task.get_name()
        self._quiet.clear()
        task.add_done_callback(self._discard)

    async def quiet(self, timeout: float) -> None:
        """Returns once no interaction is being handled, or after `timeout` s: the campaign
        page's work runs between the commands, not in their way (bot/web/site.py)."""
        await asyncio.sleep(0)  # an interaction that arrived just now is tracked first
        if self._tasks:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._quiet.wait(), timeout)

    def running(self) -> list[str]:
        return sorted(what() if callable(what) else what for what in self._tasks.values())

    async def drain(self, timeout: float, hurry: asyncio.Event | None = None) -> int:
        """Refuse new interactions, wait up to `timeout` s (or until `hurry` is set) for those
        in flight and the refusals; returns how many were still running."""
        self.refuse_new()
        # A task discord.py created just before the signal takes its first step on the loop's
        # next turn: tracked then (and answered that the bot is restarting), so waited for.
        await asyncio.sleep(0)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        hurry = hurry or asyncio.Event()
        hurried = asyncio.ensure_future(hurry.wait())
        try:
            while self._tasks and not hurry.is_set():
                remaining = deadline - loop.time()
                if remaining <= 0:
                    break
                await asyncio.wait(
                    {*self._tasks, hurried}, timeout=remaining, return_when=asyncio.FIRST_COMPLETED
                )
        finally:
            hurried.cancel()
        return len(self._tasks)

    async def cancel(self, timeout: float) -> None:
        """Cancel the tasks still running; wait up to `timeout` s for them to end."""
        tasks = set(self._tasks)
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks, timeout=timeout)

    def _discard(self, task: asyncio.Task[Any]) -> None:
        self._tasks.pop(task, None)
        if not self._tasks:
            self._quiet.set()


async def admitted(interaction: discord.Interaction) -> bool:
    """The door of every command and click: tracks the task handling `interaction`; while
    draining, answers it privately that nothing changed and returns False (do not handle it)."""
    inflight: InFlight | None = getattr(interaction.client, "inflight", None)
    if inflight is None:
        return True
    inflight.track(asyncio.current_task(), lambda: command_name(interaction))
    if not inflight.draining:
        return True
    try:
        if interaction.type is discord.InteractionType.autocomplete:
            await interaction.response.autocomplete([])
        else:
            kwargs = message(Reply.refusal(RESTARTING))  # built as every message is
            if interaction.response.is_done():
                await interaction.followup.send(**kwargs, ephemeral=True)
            else:
                await interaction.response.send_message(**kwargs, ephemeral=True)
    except _REPLY_ERRORS as error:
        log.warning("could not tell the user the bot is restarting: %r", error)
    return False


class StopSignals:
    """SIGTERM and SIGINT, caught on the event loop while the block runs (instead of dying, or
    KeyboardInterrupt raised somewhere): the first sets `stop`, a second `hurry` (a second
    Ctrl-C: the user does not want to wait). Entered before anything starts, so that a signal
    during start-up stops the bot cleanly too."""

    def __init__(self) -> None:
        self.stop = asyncio.Event()
        self.hurry = asyncio.Event()
        # Run in the signal handler itself: an interaction read from the gateway a moment later
        # is refused even if it runs before the task that waits for `stop`.
        self.on_stop: list[Callable[[], None]] = []
        self._installed: list[signal.Signals] = []

    def __enter__(self) -> StopSignals:
        loop = asyncio.get_running_loop()
        for signum in STOP_SIGNALS:
            with contextlib.suppress(NotImplementedError, RuntimeError):  # not on this platform
                loop.add_signal_handler(signum, self._caught, signum)
                self._installed.append(signum)
        return self

    def __exit__(self, *_: object) -> None:
        loop = asyncio.get_running_loop()
        for signum in self._installed:
            loop.remove_signal_handler(signum)
        self._installed.clear()

    def _caught(self, signum: signal.Signals) -> None:
        if not self.stop.is_set():
            log.info("%s: stopping (the interactions in flight finish first)", signum.name)
            _arm_watchdog(HARD_LIMIT_S)
            for stopping in self.on_stop:
                stopping()
            self.stop.set()
        else:
            log.info("%s again: closing without waiting any longer", signum.name)
            self.hurry.set()


async def serve(bot: Any, token: str, signals: StopSignals) -> None:
    """`bot.start(token)` until the bot stops by itself (its errors propagate) or `signals`
    stop it gracefully: drain, then close. Returns once the bot is closed."""
    inflight: InFlight = bot.inflight
    signals.on_stop.append(inflight.refuse_new)
    running = asyncio.create_task(bot.start(token), name="lastgasp-bot")
    stopping = asyncio.create_task(signals.stop.wait(), name="lastgasp-stop")
    settling = asyncio.create_task(_settle_when_ready(bot), name="lastgasp-settle")
    try:
        await asyncio.wait({running, stopping}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        stopping.cancel()
        settling.cancel()
    if not signals.stop.is_set():
        running.result()  # it ended by itself: a login failure, a fatal close code...
        return
    await shut_down(bot, running, signals.hurry)


async def _settle_when_ready(bot: Any) -> None:
    """Once the bot has its guilds, what it holds lives as long as it: out of the collector's
    way (bot/loop.py)."""
    await asyncio.sleep(0)  # bot.start makes its ready event on its first step
    try:
        await bot.wait_until_ready()
    except RuntimeError:  # it never logged in: nothing to settle
        return
    settle()


async def shut_down(
    bot: Any, running: asyncio.Task[Any], hurry: asyncio.Event | None = None
) -> None:
    """Drain the interactions in flight (until `hurry` is set at the latest), then close the
    bot (gateway, HTTP, database)."""
    inflight: InFlight = bot.inflight
    if len(inflight):
        log.info("draining: waiting for %d interaction(s) in flight", len(inflight))
    loop = asyncio.get_running_loop()
    started = loop.time()

    def within_budget(seconds: float) -> float:
        return max(0.05, min(seconds, started + STOP_BUDGET_S - loop.time()))

    left = await inflight.drain(DRAIN_TIMEOUT_S, hurry)
    if left:
        log.warning(
            "closing with %d interaction(s) still running after %.1f s: %s",
            left,
            loop.time() - started,
            ", ".join(inflight.running()),
        )
        # Ended here rather than failing against a closed connection in a moment.
        await inflight.cancel(within_budget(0.3))
    try:
        await asyncio.wait_for(bot.close(), within_budget(CLOSE_TIMEOUT_S))
    except TimeoutError:
        log.warning("closing the bot took too long: leaving it")
    # bot.start returns once the bot is closed; whatever it was still doing is over.
    done, _ = await asyncio.wait({running}, timeout=within_budget(0.5))
    if not done:
        running.cancel()
        await asyncio.wait({running}, timeout=within_budget(0.2))
    elif not running.cancelled() and running.exception() is not None:
        log.debug("the bot ended while closing: %r", running.exception())
    log.info("stopped")


def _arm_watchdog(seconds: float) -> None:
    """End the process after `seconds`, whatever still runs (a hung close, a non-daemon thread
    at exit): the orchestrator would kill it a moment later anyway, without a word."""

    def expire() -> None:
        log.error("shutdown took longer than %.1f s: exiting now", seconds)
        for handler in logging.getLogger().handlers:
            with contextlib.suppress(Exception):
                handler.flush()
        os._exit(1)

    timer = threading.Timer(seconds, expire)
    timer.daemon = True  # an exit before it fires is the normal case
    timer.start()
