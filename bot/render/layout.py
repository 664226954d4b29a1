"""A card built into Discord's layout components: one container in the card's accent colour,
sent with the flag IS_COMPONENTS_V2. Members who turned off embeds and link previews see it all
the same (docs/commands.md, "Readable for every member").

    Container(accent colour)
      Section(text: the title and lines, accessory: the one button) or TextDisplay(the same)
      TextDisplay(the rows)
      Separator, TextDisplay(a group of the list) or Section(an entry and its button) …
      MediaGallery(the picture)   File(the attached file)
      ActionRow(the buttons) …  ActionRow(a select menu)
      TextDisplay(-# the small line), or the small line ending the text before it

The components are written as Discord's JSON straight from the card's blocks, not built from
discord.py's ui objects: those cost three times what an embed did to build and send (each item
linked to its view and parent both ways, a view registered and timed for every message), for
nothing the bot uses. Every button is one of our DynamicItems, dispatched from the message
itself; its own JSON is discord.py's. Every request body is checked against Discord's API
description in the tests.
"""

from __future__ import annotations

from typing import Any

import discord
from discord import ui

from bot.private_api import PrebuiltLayout
from bot.render.card import (
    FILE,
    GALLERY,
    SECTION,
    SEPARATOR,
    TEXT,
    Block,
    Card,
    fitted_blocks,
)

# Discord's numbers for the components, as discord.py names them
CONTAINER = discord.ComponentType.container.value
ACTION_ROW = discord.ComponentType.action_row.value
SECTION_TYPE = discord.ComponentType.section.value
TEXT_DISPLAY = discord.ComponentType.text_display.value
GALLERY_TYPE = discord.ComponentType.media_gallery.value
FILE_TYPE = discord.ComponentType.file.value
SEPARATOR_TYPE = discord.ComponentType.separator.value
SMALL_SPACING = discord.SeparatorSpacing.small.value


def _text(text: str) -> dict[str, Any]:
    return {"type": TEXT_DISPLAY, "content": text}


def _component(block: Block) -> dict[str, Any]:
    kind = block.kind
    if kind == TEXT:
        return _text(block.text)
    if kind == SECTION:
        accessory = block.items[0].to_component_dict()
        return {"type": SECTION_TYPE, "components": [_text(block.text)], "accessory": accessory}
    if kind == SEPARATOR:
        return {"type": SEPARATOR_TYPE, "divider": True, "spacing": SMALL_SPACING}
    if kind == GALLERY:
        media = {"media": {"url": f"attachment://{block.text}"}, "spoiler": False}
        return {"type": GALLERY_TYPE, "items": [media]}
    if kind == FILE:
        return {"type": FILE_TYPE, "file": {"url": f"attachment://{block.text}"}, "spoiler": False}
    return {"type": ACTION_ROW, "components": [item.to_component_dict() for item in block.items]}


def components(card: Card) -> list[dict[str, Any]]:
    """The message's components as Discord's JSON, inside Discord's limits (`fitted_blocks`)."""
    inner = [_component(block) for block in fitted_blocks(card)]
    return [{"type": CONTAINER, "accent_color": card.colour, "spoiler": False, "components": inner}]


def layout(card: Card) -> PrebuiltLayout:
    """The view to send `card` with. It waits for no click and holds nothing: discord.py neither
    keeps it nor times it out, and it needs no taking apart once sent."""
    return PrebuiltLayout(components(card))


def dismantle(view: ui.LayoutView) -> None:
    """Let go of a view discord.py built (a message redrawn from the one Discord sent:
    bot/render/refresh.py) with its public calls: `stop` ends the 15 minutes discord.py keeps a
    private message's view waiting for clicks in a task of its own; `clear_items` breaks the
    cycles of items and their view or parent, which would otherwise wait for the collector,
    whose pauses stop every command in flight (bench/README.md, "The tail"). A Section keeps
    its accessory: it has no public way to drop it."""
    view.stop()  # the bot adds no view of its own to discord.py's store: this removes nothing
    items = list(view.walk_children())
    view.clear_items()  # first: it unlinks every item below from the view
    for item in items:
        if isinstance(item, ui.Container | ui.Section | ui.ActionRow):
            item.clear_items()
