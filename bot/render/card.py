"""One message as one card: what a renderer says, in the order a member reads it.

A renderer fills a `Card` with text it has escaped already (names and typed text, one by one:
rules.text) and the bot's own markdown; bot/render/layout.py builds it into Discord's layout
components. `fitted_blocks` keeps every card inside Discord's limits for one message (4,000
characters of text, 40 components, as discord.py counts them): a long list is cut with "… and N
more", never refused by Discord (docs/commands.md, "Readable for every member").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, NamedTuple

import discord

TEXT_LIMIT = 4000  # characters of text in one message, every text display together
COMPONENTS_LIMIT = 40  # components in one message, nested ones included
BUTTONS_PER_ROW = 5
# Of a list's groups, at most this many are drawn apart (a text display and a separator each);
# more are merged, so that no list can pass the component limit.
GROUPS_LIMIT = 8


@dataclass(frozen=True)
class Entry:
    """An entry of a list with the one button that belongs to it (a Section accessory): a
    character's result in the GM's scene, with its recovery roll."""

    text: str
    button: discord.ui.Item[Any] | None = None


def _text(entry: str | Entry) -> str:
    return entry if isinstance(entry, str) else entry.text


@dataclass(frozen=True)
class Group:
    """Entries of a list drawn together, a separator between groups. `gap`: a blank line
    between entries that take several lines (/history's events)."""

    entries: tuple[str | Entry, ...]
    gap: bool = False


@dataclass(frozen=True)
class Card:
    """One message. `title` is shown as a heading; `lines` follow it (headline first, then the
    change, the dice, notes); `rows` are labelled lines (a sheet's); `groups` a list, cut to fit
    with "… and N more" (`more`: entries the renderer left out already); `picture` an attached
    PNG shown in the card, `file` an attached file offered in it; `accessory` the one button
    that belongs to the title and its lines (a Section), `buttons` a row of them (a select menu
    takes a row alone); `small` the last small line (bookkeeping, rule IDs)."""

    colour: int
    title: str | None = None
    lines: tuple[str, ...] = ()
    rows: tuple[tuple[str, str], ...] = ()
    groups: tuple[Group, ...] = ()
    more: int = 0
    picture: str | None = None
    file: str | None = None
    accessory: discord.ui.Item[Any] | None = None
    buttons: tuple[discord.ui.Item[Any], ...] = ()
    small: str | None = None


def with_buttons(card: Card, items: Sequence[discord.ui.Item[Any]]) -> Card:
    """One button belongs to the card's title and lines (a Section accessory); several make a
    row."""
    if len(items) == 1:
        return replace(card, accessory=items[0], buttons=())
    return replace(card, accessory=None, buttons=tuple(items))


# --- the blocks a card is drawn as, in order ---------------------------------------------------

TEXT, SECTION, SEPARATOR, GALLERY, FILE, ROW = (
    "text",
    "section",
    "separator",
    "gallery",
    "file",
    "row",
)


class Block(NamedTuple):
    """One component of the card's container: its text (a text display's, a section's; a
    gallery's or file's attachment name) and its items (a section's button, a row's). A tuple:
    a card is drawn as blocks for every message, and a frozen dataclass is slow to make."""

    kind: str
    text: str = ""
    items: tuple[discord.ui.Item[Any], ...] = ()

    @property
    def components(self) -> int:
        """As discord.py counts them: a section is itself, its text and its accessory."""
        if self.kind == SECTION:
            return 3
        if self.kind == ROW:
            return 1 + len(self.items)
        return 1


def main_text(card: Card) -> str:
    """The title (a heading) and the lines: the card's first text display."""
    lines = ([f"### {card.title}"] if card.title else []) + list(card.lines)
    return "\n".join(lines)


def rows_text(card: Card) -> str:
    return "\n".join(f"**{label}** · {value}" for label, value in card.rows)


def small_text(card: Card) -> str:
    return f"-# {card.small}" if card.small else ""


def more_line(left_out: int) -> str:
    return f"… and {left_out} more"


def _group_blocks(group: Group, more: str | None) -> list[Block]:
    """A group's runs of plain entries as text displays, an entry with a button as a section."""
    glue = "\n\n" if group.gap else "\n"
    blocks: list[Block] = []
    run: list[str] = []
    for entry in group.entries:
        if isinstance(entry, Entry) and entry.button is not None:
            if run:
                blocks.append(Block(TEXT, glue.join(run)))
                run = []
            blocks.append(Block(SECTION, entry.text, (entry.button,)))
        else:
            run.append(_text(entry))
    if more is not None:
        if run:
            run[-1] += "\n" + more
        else:
            run.append(more)
    if run:
        blocks.append(Block(TEXT, glue.join(run)))
    return blocks


def _rows_of(items: Sequence[discord.ui.Item[Any]]) -> list[Block]:
    """Buttons five to a row; a select menu takes a row alone."""
    rows: list[Block] = []
    buttons: list[discord.ui.Item[Any]] = []
    for item in items:
        if isinstance(item, discord.ui.Select) or isinstance(
            getattr(item, "item", None), discord.ui.Select
        ):
            rows.append(Block(ROW, items=(item,)))
            continue
        buttons.append(item)
        if len(buttons) == BUTTONS_PER_ROW:
            rows.append(Block(ROW, items=tuple(buttons)))
            buttons = []
    if buttons:
        rows.append(Block(ROW, items=tuple(buttons)))
    return rows


def blocks(card: Card) -> list[Block]:
    """The card as the components of its container, in order. The small line ends the text
    before it when nothing else stands between (one text display fewer to build and send)."""
    out: list[Block] = []
    main = main_text(card)
    if card.accessory is not None:
        out.append(Block(SECTION, main or "\u200b", (card.accessory,)))
    elif main:
        out.append(Block(TEXT, main))
    if card.rows:
        out.append(Block(TEXT, rows_text(card)))
    groups = [g for g in card.groups if g.entries] if card.groups else []
    more = more_line(card.more) if card.more else None
    if more is not None and not groups:
        groups = [Group((more,))]
        more = None
    for index, group in enumerate(groups):
        if out:
            out.append(Block(SEPARATOR))
        out += _group_blocks(group, more if index == len(groups) - 1 else None)
    if card.picture:
        out.append(Block(GALLERY, card.picture))
    if card.file:
        out.append(Block(FILE, card.file))
    if card.buttons:
        out += _rows_of(card.buttons)
    if card.small:
        small = small_text(card)
        if out and out[-1].kind == TEXT and not groups:
            out[-1] = Block(TEXT, f"{out[-1].text}\n{small}")
        else:
            out.append(Block(TEXT, small))
    return out


def text_length(drawn: Sequence[Block]) -> int:
    return sum(len(b.text) for b in drawn if b.kind in (TEXT, SECTION))


def component_count(drawn: Sequence[Block]) -> int:
    """Components as discord.py counts them (`LayoutView.total_children_count`), the container
    included."""
    return 1 + sum(b.components for b in drawn)


# --- fitting ---------------------------------------------------------------------------------


def _fits(drawn: Sequence[Block]) -> bool:
    """`text_length` and `component_count` within the limits, in one pass (every message)."""
    text, count = 0, 1
    for block in drawn:
        if block.kind in (TEXT, SECTION):
            text += len(block.text)
        count += block.components
    return text <= TEXT_LIMIT and count <= COMPONENTS_LIMIT


def _merged(groups: tuple[Group, ...], limit: int) -> tuple[Group, ...]:
    """At most `limit` groups: the last ones merged into one."""
    if len(groups) <= limit:
        return groups
    tail = groups[limit - 1 :]
    merged = Group(tuple(e for g in tail for e in g.entries), gap=any(g.gap for g in tail))
    return (*groups[: limit - 1], merged)


def _first(groups: tuple[Group, ...], keep: int) -> tuple[Group, ...]:
    """The groups with only their first `keep` entries, in order; empty groups dropped."""
    kept = []
    for group in groups:
        entries = group.entries[: max(keep, 0)]
        keep -= len(group.entries)
        if entries:
            kept.append(Group(entries, gap=group.gap))
    return tuple(kept)


def _without_buttons(groups: tuple[Group, ...], keep: int) -> tuple[Group, ...]:
    """The entries' buttons, only the first `keep` of them kept (the others' entries stay, as
    text: a scene's late rolls are made with /recover)."""
    out = []
    for group in groups:
        entries: list[str | Entry] = []
        for entry in group.entries:
            if isinstance(entry, Entry) and entry.button is not None:
                entries.append(entry if keep > 0 else entry.text)
                keep -= 1
            else:
                entries.append(entry)
        out.append(Group(tuple(entries), gap=group.gap))
    return tuple(out)


def _cut(text: str, limit: int) -> str:
    """`text` in at most `limit` characters, cut with an ellipsis."""
    if len(text) <= limit:
        return text
    return text[: max(limit - 1, 0)] + "…"


def fitted_blocks(card: Card) -> list[Block]:
    """The card's blocks inside Discord's limits: the list's buttons go first (their entries
    stay), then its entries from the end ("… and N more"), then, if the text alone is still too
    long, the lines are cut."""
    drawn = blocks(card)
    if _fits(drawn):
        return drawn
    card = replace(card, groups=_merged(card.groups, GROUPS_LIMIT))
    with_button = sum(
        1 for g in card.groups for e in g.entries if isinstance(e, Entry) and e.button
    )
    while with_button and component_count(blocks(card)) > COMPONENTS_LIMIT:
        with_button -= 1
        card = replace(card, groups=_without_buttons(card.groups, with_button))
    groups = card.groups
    total = sum(len(g.entries) for g in groups)
    keep = total
    drawn = blocks(card)
    while keep > 0 and not _fits(drawn):
        keep -= 1
        trial = replace(card, groups=_first(groups, keep), more=card.more + total - keep)
        drawn = blocks(trial)
    if _fits(drawn):
        return drawn
    card = replace(card, groups=(), more=card.more + total)
    # Still too long with no entry left: a very long headline or note. The lines are cut; the
    # rows, the small line and "… and N more" stay whole.
    title = _cut(card.title, 256) if card.title else None
    card = replace(card, title=title)
    drawn = blocks(card)
    room = TEXT_LIMIT - (text_length(drawn) - len(main_text(card)))
    heading = len(f"### {title}\n") if title else 0
    if card.lines:
        budget = max(room - heading, 1)
        card = replace(card, lines=tuple(_cut("\n".join(card.lines), budget).split("\n")))
    return blocks(card)
