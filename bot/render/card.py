"""One message as one card: what a renderer says, in the order a member reads it.

A renderer fills a `Card` with text it has escaped already (names and typed text, one by one:
rules.text) and the bot's own markdown; bot/render/layout.py builds it into Discord's layout
components. `fitted` keeps every card inside Discord's limits for one message (4,000 characters
of text, 40 components, as discord.py counts them): a long list is cut with "… and N more",
never refused by Discord (docs/commands.md, "Readable for every member").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import discord

TEXT_LIMIT = 4000  # characters of text in one message, every text display together
COMPONENTS_LIMIT = 40  # components in one message, nested ones included
BUTTONS_PER_ROW = 5
# Of a list's groups, at most this many are drawn apart (a text display and a separator each);
# more are merged, so that no list can pass the component limit.
GROUPS_LIMIT = 8


@dataclass(frozen=True)
class Group:
    """Entries of a list drawn together (one text display), a separator between groups.
    `gap`: a blank line between entries that take several lines (/history's events)."""

    entries: tuple[str, ...]
    gap: bool = False

    def text(self) -> str:
        return ("\n\n" if self.gap else "\n").join(self.entries)


@dataclass(frozen=True)
class Card:
    """One message. `title` is shown as a heading; `lines` follow it (headline first, then the
    change, the dice, notes); `rows` are labelled lines (a sheet's); `groups` a list, cut to fit
    with "… and N more" (`more`: entries the renderer left out already); `picture` an attached
    PNG shown in the card, `file` an attached file offered in it; `accessory` the one button
    that belongs to the title and its lines (a Section), `buttons` a row of them (and select
    menus); `small` the last small line (bookkeeping, rule IDs)."""

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


# --- the text as Discord counts it ----------------------------------------------------------


def main_text(card: Card) -> str:
    """The title (a heading) and the lines: the card's first text display."""
    lines = ([f"### {card.title}"] if card.title else []) + list(card.lines)
    return "\n".join(lines)


def rows_text(card: Card) -> str:
    return "\n".join(f"**{label}** · {value}" for label, value in card.rows)


def small_text(card: Card) -> str:
    return f"-# {card.small}" if card.small else ""


def small_joins(card: Card) -> bool:
    """The small line ends the text display before it when nothing else stands between (the
    common case: one text display fewer to build and send)."""
    return bool(
        card.small
        and not (card.groups or card.more or card.picture or card.file or card.buttons)
        and (card.rows or (card.accessory is None and (card.title or card.lines)))
    )


def more_line(left_out: int) -> str:
    return f"… and {left_out} more"


def group_texts(card: Card) -> list[str]:
    """Each group's text; the last one says how many entries were left out."""
    texts = [g.text() for g in card.groups if g.entries]
    if card.more:
        line = more_line(card.more)
        if texts:
            texts[-1] += "\n" + line
        else:
            texts.append(line)
    return texts


def _lines_length(lines: Sequence[str], separator: int = 1) -> int:
    return sum(map(len, lines)) + separator * max(len(lines) - 1, 0)


def text_length(card: Card) -> int:
    """The characters of every text display together, as the layout builds them (counted
    without building them: this runs for every reply)."""
    length = _lines_length(card.lines) + (len(card.title) + 4 if card.title else 0)
    if card.title and card.lines:
        length += 1
    if card.rows:
        length += sum(len(label) + len(value) + 7 for label, value in card.rows)
        length += len(card.rows) - 1
    groups = [g for g in card.groups if g.entries]
    for group in groups:
        length += _lines_length(group.entries, 2 if group.gap else 1)
    if card.more:
        length += len(more_line(card.more)) + (1 if groups else 0)
    if card.small:
        length += len(card.small) + 3 + (1 if small_joins(card) else 0)
    return length


def component_count(card: Card) -> int:
    """Components as discord.py counts them (`LayoutView.total_children_count`), the container
    included: a text display or separator 1, a section 2 plus its accessory, a media gallery or
    file 1, an action row 1 plus its items."""
    count = 1  # the container
    main = bool(card.title or card.lines)
    if card.accessory is not None:
        count += 3  # the section, its text, its button
    elif main:
        count += 1
    count += 1 if card.rows else 0
    groups = sum(1 for g in card.groups if g.entries) or (1 if card.more else 0)
    if groups:
        count += 2 * groups - (0 if main or card.rows else 1)  # a separator before each group
    count += 1 if card.picture else 0
    count += 1 if card.file else 0
    if card.buttons:
        rows = -(-len(card.buttons) // BUTTONS_PER_ROW)
        count += rows + len(card.buttons)
    if card.small and not small_joins(card):
        count += 1
    return count


# --- fitting ---------------------------------------------------------------------------------


def _merged(groups: tuple[Group, ...], limit: int) -> tuple[Group, ...]:
    """At most `limit` groups: the last ones merged into one."""
    if len(groups) <= limit:
        return groups
    tail = groups[limit - 1 :]
    merged = Group(tuple(e for g in tail for e in g.entries), gap=any(g.gap for g in tail))
    return (*groups[: limit - 1], merged)


def _fits(card: Card) -> bool:
    return text_length(card) <= TEXT_LIMIT and component_count(card) <= COMPONENTS_LIMIT


def _cut(text: str, limit: int) -> str:
    """`text` in at most `limit` characters, cut with an ellipsis."""
    if len(text) <= limit:
        return text
    return text[: max(limit - 1, 0)] + "…"


def _first(groups: tuple[Group, ...], keep: int) -> tuple[Group, ...]:
    """The groups with only their first `keep` entries, in order; empty groups dropped."""
    kept = []
    for group in groups:
        entries = group.entries[: max(keep, 0)]
        keep -= len(group.entries)
        if entries:
            kept.append(Group(entries, gap=group.gap))
    return tuple(kept)


def fitted(card: Card) -> Card:
    """The card inside Discord's limits: the list loses entries from its end ("… and N more"),
    then, if the text alone is still too long, the lines are cut."""
    if _fits(card):
        return card
    groups = _merged(card.groups, GROUPS_LIMIT)
    total = sum(len(g.entries) for g in groups)
    keep = total
    trial = replace(card, groups=groups)
    while keep > 0 and not _fits(trial):
        keep -= 1
        trial = replace(card, groups=_first(groups, keep), more=card.more + total - keep)
    card = trial
    if _fits(card):
        return card
    # Still too long with no entry left: a very long headline or note. The lines are cut; the
    # rows, the small line and "… and N more" stay whole.
    title = _cut(card.title, 256) if card.title else None
    card = replace(card, title=title)
    room = TEXT_LIMIT - (text_length(card) - len(main_text(card)))
    heading = len(f"### {title}\n") if title else 0
    if card.lines:
        budget = max(room - heading, 1)
        card = replace(card, lines=tuple(_cut("\n".join(card.lines), budget).split("\n")))
    return card
