"""Questions asked with buttons, and the one door every click comes through.

discord.py hands a click to the live View that posted the button and drops any other without a
word: a button whose view was gone (the bot restarted, the question timed out or was answered)
showed the user "This interaction failed", and clicks passed neither the shard guard nor the log.

So no discord.py View listens here. A prompt's buttons carry its nonce (`delete:confirm:<nonce>`);
the bot keeps its open prompts by nonce (`Prompts`: added when asked, removed when answered or
timed out; a restarted bot has none); and every component interaction comes to `Prompts.on_click`
(from the bot's on_interaction): the shard guard, then the open prompt's answer or "expired",
then one log line, as for a command. So buttons are posted only through `Prompts.ask`: a
discord.ui.View with callbacks of its own would have its clicks answered twice.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from typing import ClassVar

import discord

from bot.errors import ERROR, EXPIRED, OK, REFUSED, answer_failure, send_ephemeral  # lifecycle
from bot.lifecycle import admitted  # lifecycle
from bot.logs import log_command
from bot.shards import served

log = logging.getLogger("lastgasp.prompts")

EXPIRED_TEXT = "This button has expired: run the command again."


class Prompt:
    """A question with buttons, answered once: by a click on one of them, or by the timeout."""

    kind: ClassVar[str]  # the custom ids' first part, e.g. "delete"
    actions: ClassVar[tuple[str, ...]]  # their second part, one per button

    def __init__(self, *, timeout: float) -> None:
        self.timeout = timeout
        # Unique per prompt, so an old message's buttons never reach a newer prompt.
        self.nonce = secrets.token_hex(8)

    def custom_id(self, action: str) -> str:
        return f"{self.kind}:{action}:{self.nonce}"

    def buttons(self) -> list[discord.ui.Button]:
        """The buttons, each with `custom_id(action)`."""
        raise NotImplementedError

    def check(self, interaction: discord.Interaction) -> None:
        """Raise RuleError if this member may not answer (the prompt stays open)."""

    async def answer(self, interaction: discord.Interaction, action: str) -> None:
        """The click on `action`; the prompt is closed already."""
        raise NotImplementedError

    async def on_timeout(self) -> None:
        """Nobody answered in time; the buttons have expired already."""


class Prompts:
    """This process's open prompts, by nonce, and the door every click comes through."""

    def __init__(self) -> None:
        self._open: dict[str, Prompt] = {}
        self._timers: dict[str, asyncio.TimerHandle] = {}
        self._timeouts: set[asyncio.Task] = set()  # referenced until done

    def ask(self, prompt: Prompt) -> discord.ui.View:
        """Open `prompt`; returns the view to send its buttons with."""
        self._open[prompt.nonce] = prompt
        loop = asyncio.get_running_loop()
        self._timers[prompt.nonce] = loop.call_later(prompt.timeout, self._time_out, prompt)
        view = discord.ui.View(timeout=None)
        for button in prompt.buttons():
            view.add_item(button)
        # Stopped before it is sent: it only draws the buttons. discord.py keeps no state for a
        # finished view and dispatches nothing to it, so every click comes to on_click.
        view.stop()
        return view

    def close(self, prompt: Prompt) -> bool:
        """Close `prompt`: its buttons expire. False if it was closed already."""
        timer = self._timers.pop(prompt.nonce, None)
        if timer is not None:
            timer.cancel()
        return self._open.pop(prompt.nonce, None) is not None

    def close_all(self) -> None:
        for prompt in list(self._open.values()):
            self.close(prompt)

    def find(self, custom_id: str) -> tuple[Prompt, str] | None:
        """The open prompt and action a button's custom id names, if any."""
        parts = custom_id.split(":")
        if len(parts) != 3:  # not a prompt's (e.g. posted before buttons carried a nonce)
            return None
        kind, action, nonce = parts
        prompt = self._open.get(nonce)
        if prompt is None or prompt.kind != kind or action not in prompt.actions:
            return None
        return prompt, action

    async def on_click(self, interaction: discord.Interaction) -> None:
        """Every component interaction: answered (unless another shard's), and logged once."""
        if not served(interaction):
            return
        started = time.perf_counter()
        outcome = ERROR
        try:
            if not await admitted(interaction):  # lifecycle: tracked; refused while draining
                outcome = REFUSED  # lifecycle
                return  # lifecycle
            outcome = await self._answer(interaction)
        except Exception as error:
            outcome = await answer_failure(interaction, error)
        finally:
            latency_ms = (time.perf_counter() - started) * 1000
            log_command(interaction, outcome=outcome, latency_ms=latency_ms)

    async def _answer(self, interaction: discord.Interaction) -> str:
        data = interaction.data or {}
        found = self.find(str(data.get("custom_id", "")))
        if found is None:
            await send_ephemeral(interaction, EXPIRED_TEXT)
            return EXPIRED
        prompt, action = found
        prompt.check(interaction)
        # Closed before the first await: a second click (a double-click) finds it expired.
        self.close(prompt)
        await prompt.answer(interaction, action)
        return OK

    def _time_out(self, prompt: Prompt) -> None:
        if self.close(prompt):
            task = asyncio.create_task(self._run_timeout(prompt), name="lastgasp-prompt-timeout")
            self._timeouts.add(task)
            task.add_done_callback(self._timeouts.discard)

    @staticmethod
    async def _run_timeout(prompt: Prompt) -> None:
        try:
            await prompt.on_timeout()
        except Exception:
            log.exception("the timeout of a %s prompt failed", prompt.kind)
