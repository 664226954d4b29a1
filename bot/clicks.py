"""What each button does (the buttons are drawn by bot/render/buttons.py). Thin, like the cogs:
who pressed, the service, the reply. Every click is answered exactly once and logged once."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

import discord

from bot import replies
from bot.cogs.common import send_acted
from bot.db.busy import Busy
from bot.failures import (
    EXPIRED,
    EXPIRED_OUTCOME,
    OK,
    REFUSED,
    answer_failure,
)
from bot.lifecycle import admitted
from bot.limits import SLOWED, slowed
from bot.logs import log_command
from bot.people import caller_of
from bot.questions import CANCELLED_ALREADY, DELETED_ALREADY, Answer, answering
from bot.render.buttons import (
    DeleteButton,
    Expired,
    MySheetButton,
    NextRoundButton,
    OddsButton,
    RecoveryButton,
    handles,
)
from bot.render.odds import odds_reply
from bot.render.sheet import (
    delete_answered,
    delete_cancelled,
    deleted_notice,
    sheet_reply,
)
from bot.render.table import round_started
from bot.services import play, sheet, table
from bot.services.base import NO_ACTIVE, NO_ACTIVE_TO_SHOW
from bot.shards import served
from rules.errors import RuleError

if TYPE_CHECKING:
    from bot.app import LastGaspBot

    Click = discord.Interaction[LastGaspBot]
else:
    Click = discord.Interaction


async def run_click(interaction: Click, handler: Callable[[], Awaitable[str | None]]) -> None:
    """Every click: the shard guard, the member's rate, the 3-second clock, the answer (or the
    failure's), one log line."""
    if not served(interaction):
        return
    started = time.perf_counter()
    outcome = OK
    try:
        if not await admitted(interaction):  # tracked; while draining, told and refused
            outcome = REFUSED
        elif await slowed(interaction):  # over the member's rate: told at once, nothing done
            outcome = SLOWED
        else:
            replies.begin(interaction)
            outcome = await handler() or OK
    except Exception as error:
        if isinstance(error, Busy):
            interaction.client.metrics.busy("click")
        outcome = await answer_failure(interaction, error)
    finally:
        replies.end(interaction)
        seconds = time.perf_counter() - started
        log_command(interaction, outcome=outcome, latency_ms=seconds * 1000)
        interaction.client.metrics.click(interaction, outcome, seconds)


@handles(RecoveryButton)
async def recovery_roll(interaction: Click, button: RecoveryButton) -> None:
    """R-1..R-8 as /recover, for the VIT and RES the announcement showed."""

    async def roll() -> None:
        bot = interaction.client
        acted = await play.recover(
            bot.db,
            caller_of(interaction),
            bot.rng,
            character=button.character_id,
            faces=None,
            seen=(button.vit, button.res),
        )
        await send_acted(interaction, acted)  # posted exactly as /recover posts it

    await run_click(interaction, roll)


@handles(OddsButton)
async def odds(interaction: Click, button: OddsButton) -> None:
    async def show() -> None:
        found = await play.recovery_odds(
            interaction.client.db, caller_of(interaction), character=button.character_id
        )
        await replies.deliver(interaction, odds_reply(found, private=True))

    await run_click(interaction, show)


@handles(DeleteButton)
async def delete(interaction: Click, button: DeleteButton) -> None:
    async def answer() -> str | None:
        if interaction.user.id != button.asker_id:
            raise RuleError(
                "Only the member who asked to delete can answer. Use /character delete yourself."
            )
        if interaction.client.clock().timestamp() > button.until:
            await replies.refuse(interaction, EXPIRED)
            return EXPIRED_OUTCOME
        bot = interaction.client
        key = (button.character_id, button.asker_id, button.until)
        async with answering(bot, key, bot.clock().timestamp()) as question:
            # Answered already (a double click): say what happened, keep the answer shown.
            if question.answer is Answer.DELETED:
                raise RuleError(DELETED_ALREADY)
            if question.answer is Answer.CANCELLED:
                raise RuleError(CANCELLED_ALREADY)
            caller = caller_of(interaction)
            if button.action == "cancel":
                if not await sheet.character_exists(bot.db, caller, button.character_id):
                    raise RuleError(DELETED_ALREADY)  # by another question, or before a restart
                question.answer = Answer.CANCELLED
                await replies.update(interaction, delete_cancelled())
                return None
            gone = await sheet.delete_character(bot.db, caller, button.character_id)
            question.answer = Answer.DELETED
            await replies.update(interaction, delete_answered(gone))
        await replies.deliver(interaction, deleted_notice(gone))
        return None

    await run_click(interaction, answer)


@handles(NextRoundButton)
async def next_round(interaction: Click, button: NextRoundButton) -> None:
    async def start() -> None:
        result = await table.next_round(interaction.client.db, caller_of(interaction))
        await replies.deliver(interaction, round_started(result))

    await run_click(interaction, start)


@handles(MySheetButton)
async def my_sheet(interaction: Click, button: MySheetButton) -> None:
    async def show() -> None:
        try:
            row = await sheet.show_character(interaction.client.db, caller_of(interaction), None)
        except RuleError as refusal:
            if refusal.template == NO_ACTIVE:
                raise RuleError(NO_ACTIVE_TO_SHOW) from None
            raise
        await replies.deliver(interaction, sheet_reply(row.sheet, private=True))

    await run_click(interaction, show)


@handles(Expired)
async def expired(interaction: Click, button: Expired) -> None:
    async def answer() -> str:
        await replies.refuse(interaction, EXPIRED)
        return EXPIRED_OUTCOME

    await run_click(interaction, answer)
