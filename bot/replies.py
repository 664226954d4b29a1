"""The one way the bot answers an interaction: within Discord's 3 seconds, exactly once, a
refusal always private.

A command that has not answered 2 seconds after it arrived is deferred (Discord shows "thinking"
to the channel), so that a slow database or a busy machine never makes Discord say "This
interaction failed". Discord's rule for the first followup of a deferred interaction is that it
fills the deferred message and keeps its visibility; so a private answer after a public defer
fills the deferred message with a placeholder, follows up privately, and deletes the
placeholder. Every send of one interaction goes through one lock: the defer and the answer
never cross.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import logging
from dataclasses import dataclass, field
from typing import Any

import aiohttp
import discord

from bot.private_api import forget_response, send_answer
from bot.render.card import Card
from bot.render.common import INFO_COLOUR
from bot.render.layout import dismantle, layout
from bot.render.reply import Reply

log = logging.getLogger("lastgasp.replies")

DEFER_AFTER_S = 2.0  # Discord's window is 3 s; the defer itself takes a round trip
WINDOW_S = 3.0  # Discord's: a first answer later than this is lost
AFTER_WINDOW, FAILED = "after_window", "failed"  # why an answer was late (bot/metrics.py)
NO_PINGS = discord.AllowedMentions.none()
PLACEHOLDER = Card(colour=INFO_COLOUR, lines=("…",))
_KEY = "lastgasp.answer"
ALREADY_ACKNOWLEDGED = 40060  # Discord's code: this interaction has its callback already
# What a request that may or may not have reached Discord raises besides an HTTP error.
_NETWORK = (TimeoutError, aiohttp.ClientError, OSError)


@dataclass
class _Answer:
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    deferred: bool = False
    # The defer failed without an answer from Discord: it may have been taken all the same.
    defer_unsure: bool = False
    filled: bool = False  # the deferred message has its content
    timer: asyncio.TimerHandle | None = None
    defer_task: asyncio.Task[None] | None = None
    handler: asyncio.Task[Any] | None = None  # the task handling the interaction
    began: float = 0.0  # loop time of `begin` (0: never begun, a refusal at the door)
    late: bool = False  # counted late already (bot/metrics.py)


def _answer(interaction: discord.Interaction[Any]) -> _Answer:
    state = interaction.extras.get(_KEY)
    if state is None:
        state = interaction.extras[_KEY] = _Answer()
    return state


def begin(interaction: discord.Interaction[Any], defer_after: float | None = None) -> None:
    """Start the clock of one interaction: deferred if it has not answered in time."""
    if defer_after is None:
        defer_after = DEFER_AFTER_S  # read now: a setting changed at run time counts
    state = _answer(interaction)
    state.handler = asyncio.current_task()
    loop = asyncio.get_running_loop()
    state.began = loop.time()

    def fire() -> None:
        # A handler that ended without `end` (cancelled by a shutdown): nothing to defer.
        if state.handler is not None and state.handler.done():
            return
        state.defer_task = loop.create_task(_defer(interaction, state))

    state.timer = loop.call_later(defer_after, fire)
    if state.handler is not None:
        state.handler.add_done_callback(lambda handler: _handler_ended(state, handler))


def _handler_ended(state: _Answer, handler: asyncio.Task[Any]) -> None:
    """However the handler ended, its clock stops; cancelled (a shutdown gave up on it), a
    defer on its way is dropped too: nothing is sent for an interaction the bot gave up."""
    if state.timer is not None:
        state.timer.cancel()
    if handler.cancelled() and state.defer_task is not None:
        state.defer_task.cancel()


def end(interaction: discord.Interaction[Any]) -> None:
    state = interaction.extras.get(_KEY)
    if state is not None and state.timer is not None:
        state.timer.cancel()


def done(interaction: discord.Interaction[Any]) -> None:
    """Nothing will answer this interaction again (its answer, its failure's, its log line are
    out): its objects are freed now, not by the collector (bot/private_api.py). Not while a
    defer is on its way: that reads the response."""
    state = interaction.extras.get(_KEY)
    if state is not None and state.defer_task is not None and not state.defer_task.done():
        return
    forget_response(interaction)


def answered(interaction: discord.Interaction[Any]) -> bool:
    """Whether the user has an answer (not merely "thinking")."""
    state = interaction.extras.get(_KEY)
    done = interaction.response.is_done() or (state is not None and state.deferred)
    return done and not (state is not None and state.deferred and not state.filled)


async def _defer(interaction: discord.Interaction[Any], state: _Answer) -> None:
    async with state.lock:
        if interaction.response.is_done():
            return
        try:
            await interaction.response.defer(thinking=True)
        except discord.HTTPException as error:  # the answer will be tried anyway
            log.warning("could not defer interaction %s: %r", interaction.id, error)
            # A retry refused as acknowledged: Discord took the defer, its answer was lost.
            state.deferred = error.code == ALREADY_ACKNOWLEDGED
            if state.deferred:
                _deferred(interaction, state)
            return
        except _NETWORK as error:
            log.warning("could not defer interaction %s: %r", interaction.id, error)
            state.defer_unsure = True
            return
        except Exception as error:  # a defer is only ever a courtesy: never an unseen error
            log.warning("could not defer interaction %s: %r", interaction.id, error)
            return
        state.deferred = True
        _deferred(interaction, state)


def _deferred(interaction: discord.Interaction[Any], state: _Answer) -> None:
    metrics = getattr(interaction.client, "metrics", None)
    if metrics is not None:
        metrics.deferred()
    _acknowledged(interaction, state)


def _acknowledged(interaction: discord.Interaction[Any], state: _Answer) -> None:
    """The first callback went out: late if past Discord's window since `begin`."""
    if state.began and asyncio.get_running_loop().time() - state.began > WINDOW_S:
        _late(interaction, state, AFTER_WINDOW)


def _late(interaction: discord.Interaction[Any], state: _Answer, reason: str) -> None:
    """Counted once per interaction (a failed answer is followed by the failure's own)."""
    if state.late:
        return
    state.late = True
    metrics = getattr(interaction.client, "metrics", None)
    if metrics is not None:
        metrics.late(reason)


def message(reply: Reply) -> dict[str, Any]:
    """A message's parts for one send by discord.py: its layout (which sets the flag
    IS_COMPONENTS_V2: bot/render/layout.py) and no mention allowed. Never content or embeds:
    Discord refuses them beside a layout."""
    return {"view": layout(reply.card), "allowed_mentions": NO_PINGS}


def _files(reply: Reply) -> list[discord.File]:
    # A discord.File is read once: made anew for every send.
    return [discord.File(io.BytesIO(data), filename=name) for name, data in reply.files]


async def deliver(interaction: discord.Interaction[Any], reply: Reply) -> None:
    """Send `reply` as this interaction's answer (or as a followup, if it has one already)."""
    state = _answer(interaction)
    async with state.lock:
        try:
            await _send(interaction, state, reply)
        except Exception:
            _late(interaction, state, FAILED)
            raise


async def _send(interaction: discord.Interaction[Any], state: _Answer, reply: Reply) -> None:
    kwargs = message(reply)
    if not state.deferred and not interaction.response.is_done():
        try:
            await send_answer(interaction, **kwargs, files=_files(reply), ephemeral=reply.ephemeral)
            _acknowledged(interaction, state)
            return
        except discord.HTTPException as error:
            if not (state.defer_unsure and error.code == ALREADY_ACKNOWLEDGED):
                raise
            state.deferred = True  # the defer that seemed lost was taken: fill it
    if state.deferred and not state.filled:
        await _fill(interaction, reply, kwargs)
        state.filled = True
    else:
        await interaction.followup.send(
            **kwargs, files=_files(reply), ephemeral=reply.ephemeral, wait=True
        )


async def _fill(
    interaction: discord.Interaction[Any], reply: Reply, kwargs: dict[str, Any]
) -> None:
    """The answer of a deferred interaction: in the "thinking" message when public; when
    private, through a followup (the placeholder it needs first is deleted at once)."""
    if not reply.ephemeral:
        await interaction.edit_original_response(**kwargs, attachments=_files(reply))
        return
    await interaction.edit_original_response(**message(Reply(PLACEHOLDER)))
    await interaction.followup.send(**kwargs, files=_files(reply), ephemeral=True, wait=True)
    with contextlib.suppress(discord.HTTPException):  # a placeholder left is no harm
        await interaction.delete_original_response()


async def refuse(interaction: discord.Interaction[Any], text: str) -> None:
    """A refusal or a mistake: private, one or two sentences, nothing else."""
    await deliver(interaction, Reply.refusal(text))


async def redraw(interaction: discord.Interaction[Any], view: discord.ui.LayoutView) -> bool:
    """A click's first answer that redraws the clicked message (its buttons), nothing else on it
    changed; the result follows (`deliver`). False when the click was deferred already: the
    message stays as it was (its buttons refuse a stale press, saying so)."""
    state = _answer(interaction)
    async with state.lock:
        if interaction.response.is_done() or state.deferred:
            log.info("interaction %s: deferred, its message is not redrawn", interaction.id)
            return False
        try:
            await interaction.response.edit_message(view=view, allowed_mentions=NO_PINGS)
        except Exception:
            _late(interaction, state, FAILED)
            raise
        finally:
            dismantle(view)  # sent or not, nothing reads it again
        _acknowledged(interaction, state)
        return True


async def update(interaction: discord.Interaction[Any], reply: Reply) -> None:
    """A click's answer that replaces the clicked message (the delete question's)."""
    state = _answer(interaction)
    async with state.lock:
        try:
            if interaction.response.is_done() or state.deferred:  # a message of its own instead
                await _send(interaction, state, reply)
                return
            # The clicked message may predate layout components (a question asked before an
            # upgrade): an edit that makes it a layout must clear its content and embeds.
            await interaction.response.edit_message(
                **message(reply), content=None, embeds=[], attachments=_files(reply)
            )
        except Exception:
            _late(interaction, state, FAILED)
            raise
        _acknowledged(interaction, state)
