"""A message of the bot's redrawn with fresh buttons, its text left as it is: a Check's
"Raise …" buttons after a press (K-4), drawn for the sheet as it is now."""

from __future__ import annotations

from typing import Any

import discord
from discord import ui

from bot.render.buttons import RaiseButton
from rules.models import EmotionCause, Sheet, State


def _cause(row: ui.ActionRow[Any]) -> EmotionCause | None:
    """The cause the row's Raise buttons carry, or None for a row of other buttons."""
    for item in row.children:
        custom_id = getattr(item, "custom_id", None) or ""
        if custom_id.startswith("lg:raise:"):
            return EmotionCause(custom_id.split(":")[4])
    return None


def raises_redrawn(message: discord.Message, character_id: int, sheet: Sheet) -> ui.LayoutView:
    """`message` as it stands, its Raise buttons drawn for `sheet` (each press of the new ones
    counts once, K-4); none for a character no longer Up (retired by a raise, E-7: it makes no
    more Checks, K-5)."""
    view = ui.LayoutView.from_message(message, timeout=None)
    for container in view.children:
        if not isinstance(container, ui.Container):
            continue
        for item in list(container.children):
            if not isinstance(item, ui.ActionRow) or (cause := _cause(item)) is None:
                continue
            if sheet.state is not State.UP:
                container.remove_item(item)
                continue
            item.clear_items()
            for button in RaiseButton.of(character_id, sheet, cause):
                item.add_item(button)
    return view
