"""A card built into Discord's layout components: one container in the card's accent colour
(discord.py's `ui.LayoutView`, sent with the flag IS_COMPONENTS_V2). Members who turned off
embeds and link previews see it all the same (docs/commands.md, "Readable for every member").

    Container(accent colour)
      Section(text: the title and lines, accessory: the one button) or TextDisplay(the same)
      TextDisplay(the rows)
      Separator, TextDisplay(a group of the list) or Section(an entry and its button) …
      MediaGallery(the picture)   File(the attached file)
      ActionRow(the buttons) …  ActionRow(a select menu)
      TextDisplay(-# the small line), or the small line ending the text before it
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import discord
from discord import ui

from bot.render.card import (
    FILE,
    GALLERY,
    ROW,
    SECTION,
    SEPARATOR,
    TEXT,
    Block,
    Card,
    fitted_blocks,
)


def _item(block: Block) -> ui.Item[Any]:
    if block.kind == TEXT:
        return ui.TextDisplay(block.text)
    if block.kind == SECTION:
        return ui.Section(ui.TextDisplay(block.text), accessory=block.items[0])
    if block.kind == SEPARATOR:
        return ui.Separator(spacing=discord.SeparatorSpacing.small)
    if block.kind == GALLERY:
        return ui.MediaGallery(discord.MediaGalleryItem(f"attachment://{block.text}"))
    if block.kind == FILE:
        return ui.File(f"attachment://{block.text}")
    assert block.kind == ROW, block.kind
    return ui.ActionRow(*block.items)


def layout(card: Card) -> ui.LayoutView:
    """The message of `card`, inside Discord's limits. No timeout and no state: every button is
    one of our DynamicItems, dispatched by its custom id, so sending one costs no memory."""
    container: ui.Container[Any] = ui.Container(accent_colour=card.colour)
    for block in fitted_blocks(card):
        container.add_item(_item(block))
    view = ui.LayoutView(timeout=None)
    view.add_item(container)
    return view


@contextmanager
def built(card: Card) -> Iterator[ui.LayoutView]:
    """`layout(card)` for one send, taken apart once sent. discord.py links each item to its
    view and parent both ways; left so, every message's objects wait for the cyclic collector,
    whose pauses stop every command in flight (bench/README.md, "The tail"). Nothing reads a
    view once it is sent: every button is a DynamicItem, dispatched from the message itself."""
    view = layout(card)
    try:
        yield view
    finally:
        dismantle(view)


def dismantle(view: ui.LayoutView) -> None:
    """Let go of a sent view with discord.py's public calls: `stop` ends the 15 minutes
    discord.py keeps a private message's view waiting for clicks in a task of its own (every
    refusal's, though ours are dispatched from the message: bot/render/buttons.py); `clear_items`
    breaks the cycles (a Section keeps its accessory: it has no public way to drop it)."""
    view.stop()  # the bot adds no view of its own to discord.py's store: this removes nothing
    items = list(view.walk_children())
    view.clear_items()  # first: it unlinks every item below from the view
    for item in items:
        if isinstance(item, ui.Container | ui.Section | ui.ActionRow):
            item.clear_items()
