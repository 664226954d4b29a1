"""What each button does (the buttons are drawn by bot/render/buttons.py). Thin, like the cogs:
who pressed, the service, the reply. Every click is answered exactly once and logged once."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import discord

from bot import replies
from bot.cogs.common import send_acted
from bot.db.busy import Busy
from bot.failures import (
    EXPIRED,
    EXPIRED_MENU,
    EXPIRED_OUTCOME,
    OK,
    REFUSED,
    answer_failure,
)
from bot.lifecycle import admitted
from bot.limits import SLOWED, slowed
from bot.logs import log_command
from bot.people import caller_of, faces_for
from bot.questions import CANCELLED_ALREADY, CHOSEN_ALREADY, DELETED_ALREADY, Answer, answering
from bot.render.buttons import (
    DeleteButton,
    Expired,
    MySheetButton,
    NextRoundButton,
    OddsButton,
    RaiseButton,
    RecoveryButton,
    SceneMenu,
    handles,
)
from bot.render.odds import odds_reply
from bot.render.refresh import raises_redrawn
from bot.render.scene import menu_answered, scene_reply
from bot.render.sheet import (
    delete_answered,
    delete_cancelled,
    deleted_notice,
    sheet_reply,
)
from bot.render.table import round_started
from bot.services import checks, play, scene, sheet, table
from bot.services.base import NO_ACTIVE, NO_ACTIVE_TO_SHOW
from bot.services.checks import StalePress
from bot.shards import served
from rules.errors import RuleError
from rules.models import Emotion

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
        replies.done(interaction)


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


@handles(RaiseButton)
async def raise_emotion(interaction: Click, button: RaiseButton) -> None:
    """K-4: one stage of the emotion, as /emotion; the Check's buttons redrawn for the sheet as
    it is now, so that only a press on the new ones counts again (never two from a double
    click)."""

    async def press() -> None:
        bot = interaction.client
        message = interaction.message
        try:
            acted = await checks.raise_from_check(
                bot.db,
                caller_of(interaction),
                bot.rng,
                character_id=button.character_id,
                emotion=button.emotion,
                cause=button.cause,
                seen=(button.stack, button.stress),
            )
        except StalePress as stale:
            if message is not None:
                await replies.redraw(
                    interaction, raises_redrawn(message, button.character_id, stale.sheet)
                )
            raise  # told privately, after the redraw
        if message is not None:
            await replies.redraw(
                interaction, raises_redrawn(message, button.character_id, acted.outcome.after)
            )
        await send_acted(interaction, acted)  # posted as /emotion posts it

    await run_click(interaction, press)


def _chosen_ids(interaction: Click, menu: SceneMenu) -> list[int]:
    """The characters chosen, as the menu offered them (a value it did not offer is refused)."""
    data: Any = interaction.data or {}
    values = data.get("values") or []
    offered = {option.value for option in menu.item.options}
    if not values or any(not isinstance(v, str) or v not in offered for v in values):
        raise RuleError("That choice is not one the menu offered. Run the command again.")
    return [int(v) for v in values]


@handles(SceneMenu)
async def scene_chosen(interaction: Click, menu: SceneMenu) -> None:
    """G-1, G-2: the GM's choice; answered once (a second choice is told what happened), the
    menu replaced by where the results are, the results public."""

    async def choose() -> str | None:
        bot = interaction.client
        if interaction.user.id != menu.asker_id:
            raise RuleError("Only the GM who asked can choose. Run the command yourself.")
        now = bot.clock().timestamp()
        if now > menu.until:
            await replies.refuse(interaction, EXPIRED_MENU)
            return EXPIRED_OUTCOME
        ids = _chosen_ids(interaction, menu)
        caller = caller_of(interaction)
        async with answering(bot, menu.key, now) as question:
            if question.answer is not None:
                raise RuleError(CHOSEN_ALREADY)
            if menu.what == "breakdown":
                emotion, pressure = menu.arg.split("-")
                result = await scene.breakdown(
                    bot.db,
                    caller,
                    bot.rng,
                    emotion=Emotion(emotion),
                    pressure=int(pressure),
                    ids=ids,
                )
            elif menu.what == "damage":
                result = await scene.damage(bot.db, caller, amount=int(menu.arg), ids=ids)
            else:
                result = await scene.heal(bot.db, caller, amount=int(menu.arg), ids=ids)
            question.answer = Answer.CHOSEN
            await replies.update(interaction, menu_answered(result))
        await replies.deliver(
            interaction, scene_reply(menu.what, menu.arg, result, faces_for(interaction))
        )
        return None

    await run_click(interaction, choose)


@handles(Expired)
async def expired(interaction: Click, button: Expired) -> None:
    async def answer() -> str:
        await replies.refuse(interaction, EXPIRED)
        return EXPIRED_OUTCOME

    await run_click(interaction, answer)
