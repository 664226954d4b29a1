"""A card built into Discord's layout components: one container in the card's accent colour
(discord.py's `ui.LayoutView`, sent with the flag IS_COMPONENTS_V2). Members who turned off
embeds and link previews see it all the same (docs/commands.md, "Readable for every member").

    Container(accent colour)
      Section(text: the title and lines, accessory: the one button) or TextDisplay(the same)
      TextDisplay(the rows)
      Separator, TextDisplay(a group of the list) …
      MediaGallery(the picture)   File(the attached file)
      ActionRow(the buttons) …
      TextDisplay(-# the small line), or the small line ending the text before it
"""

from __future__ import annotations

from typing import Any

import discord
from discord import ui

from bot.render.card import (
    BUTTONS_PER_ROW,
    Card,
    fitted,
    group_texts,
    main_text,
    rows_text,
    small_joins,
    small_text,
)


def layout(card: Card) -> ui.LayoutView:
    """The message of `card`, inside Discord's limits. No timeout and no state: every button is
    one of our DynamicItems, dispatched by its custom id, so sending one costs no memory."""
    card = fitted(card)
    container: ui.Container[Any] = ui.Container(accent_colour=card.colour)
    small = small_text(card)
    joined = small_joins(card)
    main = main_text(card)
    if joined and not card.rows:
        main += "\n" + small
    if card.accessory is not None:
        container.add_item(ui.Section(ui.TextDisplay(main or "\u200b"), accessory=card.accessory))
    elif main:
        container.add_item(ui.TextDisplay(main))
    if card.rows:
        container.add_item(ui.TextDisplay(rows_text(card) + ("\n" + small if joined else "")))
    for index, text in enumerate(group_texts(card)):
        if index or main or card.rows:
            container.add_item(ui.Separator(spacing=discord.SeparatorSpacing.small))
        container.add_item(ui.TextDisplay(text))
    if card.picture:
        container.add_item(
            ui.MediaGallery(discord.MediaGalleryItem(f"attachment://{card.picture}"))
        )
    if card.file:
        container.add_item(ui.File(f"attachment://{card.file}"))
    buttons = list(card.buttons)
    for start in range(0, len(buttons), BUTTONS_PER_ROW):
        container.add_item(ui.ActionRow(*buttons[start : start + BUTTONS_PER_ROW]))
    if small and not joined:
        container.add_item(ui.TextDisplay(small))
    view = ui.LayoutView(timeout=None)
    view.add_item(container)
    return view
