"""`/recap`: the story of a period, public. A headline naming the highlight (its dice beside
it), the period and its totals, then one entry per character, the most dramatic first (a long
night is cut between entries, with "… and N more"), and the picture of every character's VIT.

Its words are made once (`recap_words`), for the card and for the campaign page's recap
(bot/web/recap_view.py), which differ only in how a name, a time and a die are written.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

import discord

from bot.render.card import Card, Group
from bot.render.common import (
    EMOTION_COLOUR,
    INFO_COLOUR,
    LAST_GASP_COLOUR,
    STATE_COLOURS,
    STATE_MARKS,
    escape,
    rule_footer,
)
from bot.render.dice import Faces, narateer_text, roll_label
from bot.render.recap_chart import (
    LINES_LIMIT,
    RECAP_FILENAME,
    Line,
    Mark,
    MarkKind,
    drawable,
    recap_chart_png,
)
from bot.render.reply import Reply
from bot.services.recap import Told, Window
from rules.models import State
from rules.recap import Kind, Moment, Recap, Since, Snapshot, Story
from rules.rolls import NarateerRoll

LOGGED = "Logged: the next /recap starts here."
LONGER_LOOK = (
    "For a longer look: /recap since:day (the whole in-game day) or /recap hours:72 "
    "(the last three days)."
)
FEW = 3  # Last Gasps and Breakdowns told one by one; more are counted

_MARKS = {  # rules.recap.MARKED, as the picture draws each
    Kind.FALL: MarkKind.FALL,
    Kind.LAST_GASP_SURVIVED: MarkKind.SURVIVED,
    Kind.DEATH: MarkKind.DIED,
    Kind.RETIREMENT: MarkKind.RETIRED,
}


def _hours(hours: int | None) -> str:
    return "the last hour" if hours == 1 else f"the last {hours} hours"


def _when(stamp: datetime) -> str:
    return discord.utils.format_dt(stamp, "f")  # each member's own time zone


# --- the period ------------------------------------------------------------------------------


def period_name(window: Window) -> str:
    """The period in a few words, as the title and the campaign page's list of recaps name it:
    `day 3`, `since the last recap`, `the last 6 hours`."""
    if window.since is Since.DAY:
        return f"day {window.day}"
    if window.since is Since.SESSION and not window.first:
        return "since the last recap"
    return _hours(window.hours)


def _title(window: Window) -> str:
    return f"Recap · {period_name(window)}"


def _period(window: Window, when: Callable[[datetime], str]) -> str:
    """Where the story starts, as words that end a sentence (`since the last recap, …`);
    `when` writes its time."""
    if window.since is Since.DAY:
        if window.start is None:
            return f"since this server's first change (day {window.day})"
        return f"since day {window.day} began, {when(window.start)}"
    if window.since is Since.SESSION and not window.first:
        assert window.start is not None
        return f"since the last recap, {when(window.start)}"
    if window.first:
        return f"in {_hours(window.hours)} (no recap before this one)"
    return f"in {_hours(window.hours)}"


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def _highlight_of(window: Window) -> str:
    if window.since is Since.DAY:
        return f"The highlight of day {window.day}"
    if window.since is Since.SESSION:
        return "The session's highlight"
    return f"The highlight of {_hours(window.hours)}"


# --- the totals and the entries --------------------------------------------------------------


def _count(n: int, noun: str, plural: str | None = None) -> str:
    """`1 fall`, `1,200 recovery rolls`: a long night's numbers are read at a glance."""
    return f"{n:,} {noun if n == 1 else plural or noun + 's'}"


def _totals(recap: Recap) -> str | None:
    parts = []
    falls, rolls, crits = recap.total("falls"), recap.total("rolls"), recap.total("crits")
    if falls:
        parts.append(_count(falls, "fall"))
    if rolls:
        parts.append(f"{_count(rolls, 'recovery roll')} ({_count(crits, 'Crit')})")
    if recap.last_gasps:
        survived = recap.last_gasps_survived
        parts.append(f"{_count(recap.last_gasps, 'Last Gasp')} ({survived:,} survived)")
    for what, noun in (("deaths", "death"), ("retirements", "retirement")):
        if recap.total(what):
            parts.append(_count(recap.total(what), noun))
    if recap.breakdowns:
        parts.append(_count(recap.breakdowns, "Breakdown"))
    return " · ".join(parts) or None


def _times(n: int, verb: str) -> str:
    return verb if n == 1 else f"{verb} {n:,} times"


def _name(sheet: Snapshot) -> str:
    """`🟠 **Roryn**`: the state mark, the name escaped."""
    return f"{STATE_MARKS[sheet.state]} **{escape(sheet.name)}**"


def _where(story: Story) -> str:
    """Its state and VIT, from where the period found it (or its creation) to the end."""
    began, end, last = story.began, story.end, story.last
    new = "new · " if story.created else ""
    if end is None:
        return f"{new}deleted at VIT {last.vit}/{last.max_vit}"
    state = end.state.value
    vit = f"VIT {end.vit}/{end.max_vit}"
    if began.state is not end.state:
        state = f"{began.state.value} → {state}"
    if began.vit != end.vit:
        vit = f"VIT {began.vit} → {end.vit}"
    return f"{new}{state} · {vit}"


def _last_gasps(story: Story, faces: Faces) -> str:
    """Each Last Gasp's die and verdict (R-5); a long night's, counted."""
    gasps = story.last_gasps
    if len(gasps) > FEW:
        return f"{_count(len(gasps), 'Last Gasp')}, {story.last_gasps_survived:,} survived"
    said = [
        f"{faces.face(face)} {'survived' if survived else 'died'}"
        for face, survived in zip(story.last_gasp_faces, gasps, strict=False)
    ]
    return ("Last Gasp: " if len(gasps) == 1 else "Last Gasps: ") + ", ".join(said)


def _breakdowns(story: Story) -> str:
    """E-1, E-9: each Breakdown begun; a long night's, counted."""
    begun = story.breakdowns
    if len(begun) > FEW:
        return _count(len(begun), "Breakdown")
    noun = "Breakdown" if len(begun) == 1 else "Breakdowns"
    return f"{noun} of " + ", ".join(e.label for e in begun)


def _happened(story: Story, faces: Faces) -> str:
    """What the character went through, counted: a long night stays one line."""
    parts = []
    if story.falls:
        parts.append(_times(story.falls, "fell"))
    if story.rolls:
        parts.append(f"{_count(story.rolls, 'recovery roll')}, {_count(story.crits, 'Crit')}")
    if story.wake_ups:
        parts.append(_times(story.wake_ups, "woke up"))
    if story.last_gasps:
        parts.append(_last_gasps(story, faces))
    died_otherwise = story.deaths - (len(story.last_gasps) - story.last_gasps_survived)
    if died_otherwise > 0:
        parts.append(_times(died_otherwise, "died"))
    if story.retirements:
        parts.append(_times(story.retirements, "retired"))
    if story.revivals:
        parts.append(_times(story.revivals, "brought back"))
    if story.breakdowns:
        parts.append(_breakdowns(story))
    if story.stress_gained:
        parts.append(f"Stress +{story.stress_gained}")
    if story.stamina_spent:
        parts.append(f"Stamina {story.stamina_spent} spent")
    if not parts:
        return f"{_count(story.changes, 'change')}: no fall, roll or Breakdown"
    return " · ".join(parts)


@dataclass(frozen=True)
class Entry:
    """One character's part: `where` its state and VIT went, what it went through."""

    story: Story
    where: str
    happened: str


def _entry(entry: Entry) -> str:
    return f"{_name(entry.story.last)} · {entry.where}\n{entry.happened}"


# --- the picture -----------------------------------------------------------------------------


def _line(story: Story) -> Line:
    marks = tuple(Mark(_MARKS[m.kind], m.step + 1, m.vit) for m in story.marks)
    return Line(drawable(story.name), story.series, story.until, marks)


def _chart_title(window: Window) -> str:
    if window.since is Since.DAY:
        return f"VIT on day {window.day}, change by change"
    if window.since is Since.SESSION and not window.first:
        return "VIT since the last recap, change by change"
    return f"VIT in {_hours(window.hours)}, change by change"


def picture(recap: Recap, window: Window) -> bytes:
    """The most dramatic characters' VIT, LINES_LIMIT at most; the rest counted."""
    drawn = recap.stories[:LINES_LIMIT]
    lines = [_line(s) for s in drawn]
    left_out = len(recap.stories) - len(drawn)
    return recap_chart_png(lines, recap.steps, title=_chart_title(window), left_out=left_out)


def _listed(names: list[str]) -> str:
    """`Roryn`, `Roryn and Sera`, `Roryn, Sera and Tam`."""
    if len(names) < 2:
        return "".join(names)
    return f"{', '.join(names[:-1])} and {names[-1]}"


_MARK_NOUNS = (
    (Kind.FALL, "fall", None),
    (Kind.LAST_GASP_SURVIVED, "Last Gasp survived", "Last Gasps survived"),
    (Kind.DEATH, "death", None),
    (Kind.RETIREMENT, "retirement", None),
)


def chart_alt(recap: Recap, window: Window) -> str:
    """The picture in words, for a reader who cannot see it (the campaign page's alt text):
    whose VIT it draws over how many changes, and the moments marked on the lines."""
    drawn = recap.stories[:LINES_LIMIT]
    who = _listed([story.name for story in drawn])
    left_out = len(recap.stories) - len(drawn)
    if left_out:
        who += f" ({left_out:,} more not drawn)"
    text = f"Chart of {_chart_title(window)}, over {_count(recap.steps, 'change')}: {who}"
    marked = Counter(moment.kind for story in drawn for moment in story.marks)
    said = [_count(marked[k], noun, plural) for k, noun, plural in _MARK_NOUNS if marked[k]]
    if said:
        text += "; marked: " + ", ".join(said)
    return text + "."


# --- the reply -------------------------------------------------------------------------------


def _colour(moment: Moment | None) -> int:
    """The colour of what happened most: the highlight's."""
    if moment is None:
        return INFO_COLOUR
    if moment.kind is Kind.LAST_GASP_SURVIVED:
        return LAST_GASP_COLOUR
    if moment.kind is Kind.BREAKDOWN:
        return EMOTION_COLOUR
    if moment.kind in (Kind.WAKE, Kind.WAKE_ON_CRITS, Kind.REVIVAL):
        return STATE_COLOURS[State.UP]
    return STATE_COLOURS[moment.state_after]


@dataclass(frozen=True)
class RecapWords:
    """`/recap` in words, the same in Discord and on the campaign page: the title, the headline
    (the highlight, a quiet time, or no change at all), the highlight's dice, the period with
    its changes (None: no change), the totals, where to look further (when nothing changed),
    each character's entry, and the rules behind it, U-1 first."""

    title: str
    headline: str
    roll: NarateerRoll | None
    period: str | None
    totals: str | None
    tip: str | None
    entries: tuple[Entry, ...]
    rules: tuple[str, ...]


def recap_words(
    told: Told,
    faces: Faces,
    *,
    shown: Callable[[str], str] = escape,
    when: Callable[[datetime], str] = _when,
) -> RecapWords:
    """`shown`: how a name goes into the headline (escaped for Discord; the page's templates
    escape for HTML instead); `when`: how a time is written (Discord's timestamp shows each
    member's own time zone; the page writes UTC); `faces`: how a Last Gasp's die is written."""
    recap, window = told.recap, told.window
    title = _title(window)
    if not recap.stories:
        headline = f"No character changed {_period(window, when)}."
        return RecapWords(title, headline, None, None, None, LONGER_LOOK, (), ("U-1",))
    highlight = recap.highlight
    changes = _count(recap.steps, "change")
    if highlight is None:
        # Only what no moment means: a recovery roll that left its character down is no moment.
        headline = f"A quiet time: {changes}; nobody fell, woke up, broke down or died."
    else:
        headline = f"{_highlight_of(window)}: {highlight.sentence.render(shown)}"
    characters = _count(len(recap.stories), "character")
    period = f"{_capital(_period(window, when))}: {changes} to {characters}."
    entries = tuple(Entry(s, _where(s), _happened(s, faces)) for s in recap.stories)
    return RecapWords(
        title=title,
        headline=headline,
        roll=highlight.roll if highlight is not None else None,
        period=period,
        totals=_totals(recap),
        tip=None,
        entries=entries,
        rules=("U-1", *(highlight.rules if highlight else ())),
    )


def _small(told: Told, rules: tuple[str, ...]) -> str:
    footer = rule_footer(rules, told.settings)
    return " · ".join(filter(None, [footer, LOGGED]))


def recap_reply(told: Told, faces: Faces) -> Reply:
    recap, window = told.recap, told.window
    words = recap_words(told, faces)
    headline = f"**{words.headline}**"
    small = _small(told, words.rules)
    if words.period is None:  # no change: no entry, no picture
        empty = (headline, LONGER_LOOK)
        return Reply(Card(colour=INFO_COLOUR, title=words.title, lines=empty, small=small))
    lines = [headline]
    if words.roll is not None:
        lines.append(f"{roll_label(words.roll)}: {narateer_text(words.roll, faces)}")
    lines.append(words.period)
    if words.totals:
        lines.append(words.totals)
    card = Card(
        colour=_colour(recap.highlight),
        title=words.title,
        lines=tuple(lines),
        groups=(Group(tuple(_entry(e) for e in words.entries), gap=True),),
        picture=RECAP_FILENAME,
        small=small,
    )
    return Reply(card, files=[(RECAP_FILENAME, picture(recap, window))])
