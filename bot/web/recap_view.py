"""The recaps as the campaign page shows them: the list of the server's recaps, and one recap
told as `/recap` told it in Discord.

Every text is `/recap`'s own (bot/render/recap.py `recap_words`, one copy for both): here
names go in as typed (the templates escape every value), a time is written in UTC as the page
writes times, a Last Gasp's die by its word, and the highlight's dice as the die pictures of
the history (bot/web/view.py `roll_view`).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from bot.render.common import STATE_MARKS, count, rule_footer
from bot.render.dice import Faces
from bot.render.recap import chart_alt, period_name, recap_words
from bot.services.recap import Remembered
from bot.services.web import RecapPage
from bot.web.view import RollView, ago, by_whom, roll_view, stamp, state_key


@dataclass(frozen=True)
class RecapItem:
    """One recap of the list: its period, when and by whom it was told, how much it read."""

    id: int
    period: str
    by: str
    iso: str
    stamp: str
    when: str
    changes: str


def _changes(read: int) -> str:
    return count(read, "change") if read else "no change"


def item(recap: Remembered, *, viewer: int, now: datetime) -> RecapItem:
    period = period_name(recap.window)
    return RecapItem(
        id=recap.id,
        period=period[:1].upper() + period[1:],
        by=by_whom(recap.user_id, viewer),
        iso=recap.created_at.isoformat(),
        stamp=stamp(recap.created_at),
        when=ago(recap.created_at, now),
        changes=_changes(recap.read),
    )


def items(recaps: list[Remembered], *, viewer: int, now: datetime) -> list[RecapItem]:
    return [item(recap, viewer=viewer, now=now) for recap in recaps]


@dataclass(frozen=True)
class StoryView:
    """One character's entry: its mark and name as the period left it, then `/recap`'s two
    lines (where its state and VIT went, what it went through)."""

    character_id: int
    name: str
    mark: str
    state_key: str
    where: str
    happened: str
    openable: bool  # its page opens for this member (a deleted character's, for the GM)


@dataclass(frozen=True)
class RecapView:
    told: RecapItem
    title: str
    headline: str
    roll: RollView | None
    period: str | None
    totals: str | None
    tip: str | None
    stories: tuple[StoryView, ...]
    chart_alt: str | None  # None: no change, no picture (as in Discord)
    rules: str | None


def recap(page: RecapPage, *, viewer: int, now: datetime, root: str) -> RecapView:
    told = page.told
    words = recap_words(told, Faces.words(), shown=str, when=stamp)
    stories = tuple(
        StoryView(
            character_id=entry.story.character_id,
            name=entry.story.last.name,
            mark=STATE_MARKS[entry.story.last.state],
            state_key=state_key(entry.story.last.state),
            where=entry.where,
            happened=entry.happened,
            openable=entry.story.character_id in page.openable,
        )
        for entry in words.entries
    )
    return RecapView(
        told=item(page.recap, viewer=viewer, now=now),
        title=words.title,
        headline=words.headline,
        roll=roll_view(words.roll, root) if words.roll is not None else None,
        period=words.period,
        totals=words.totals,
        tip=words.tip,
        stories=stories,
        chart_alt=chart_alt(told.recap, told.window) if stories else None,
        rules=rule_footer(words.rules, told.settings),
    )
