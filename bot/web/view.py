"""What the campaign page shows, from data (sheets, events, odds), as the templates read it.

Numbers are written as everywhere else (docs/commands.md: `VIT 3/10`, `Stamina 5/8`,
`Stress 2`, `Anger 1/4`, `VIT 1 → -1`, `Up → Critical`), with the shared helpers of
bot/render/common.py; no Discord markdown is written here, and no name is escaped here: the
templates escape every value (Jinja2's autoescape), and the few pieces built as HTML here
(a roll's sum, its dice) escape each value with markupsafe, Jinja2's own escaping.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from markupsafe import Markup

from bot.db.records import CharacterRow, Event
from bot.render.board import facts, roll_words
from bot.render.common import (
    STATE_MARKS,
    count,
    emotion,
    short_percent,
    signed,
    stamina,
    vit,
)
from bot.render.dice import FACE_WORDS, roll_label, sum_text, tally
from bot.render.odds import odds_words
from bot.services.board import BoardView
from bot.services.play import Odds
from bot.web.changes import change_texts, told
from rules.condition import DOWN_RULES, injury
from rules.emotion_texts import breakdown_line
from rules.models import Emotion, Sheet, State
from rules.outcome import bookkeeping, diff
from rules.rolls import CRIT, HIT, MISS, NarateerRoll, NumericRoll, Roll

# The die pictures the emoji are drawn from (bot/render/pictures.py), served by the page.
DIE_FILES = {MISS: "miss.png", HIT: "hit.png", CRIT: "crit.png"}
STRUCK_FILE = "miss-rerolled.png"


def state_key(state: State) -> str:
    """The state's CSS class: `up`, `unconscious`, … (its colour: STATE_COLOURS)."""
    return state.value.lower()


# --- a character's line: the board's and the cards' -------------------------------------------


@dataclass(frozen=True)
class Line:
    """`🟠 Roryn · Critical · VIT -1/10 · Stamina 5/8 · Stress 2 · …`, in parts."""

    id: int | None
    name: str
    mark: str
    state: str
    state_key: str
    parts: tuple[str, ...]
    roll: str | None  # when its roll comes, for a character who is down
    roll_now: bool
    yours: bool


def line(sheet: Sheet, *, in_combat: bool, id: int | None, user_id: int) -> Line:
    """The status board's line of a character (docs/commands.md, "The status board")."""
    parts = facts(sheet)
    roll, now = roll_words(sheet, in_combat)
    return Line(
        id=id,
        name=sheet.name,
        mark=STATE_MARKS[sheet.state],
        state=sheet.state.value,
        state_key=state_key(sheet.state),
        parts=tuple(parts),
        roll=roll,
        roll_now=now,
        yours=sheet.owner_id == user_id,
    )


def card(row: CharacterRow, user_id: int) -> Line:
    return line(row.sheet, in_combat=False, id=row.id, user_id=user_id)


@dataclass(frozen=True)
class Board:
    round: int | None  # the combat's round; None: no combat in the channel
    early: tuple[str, ...]  # S-4: who acts early this round
    lines: tuple[Line, ...]
    more: int
    empty: str | None


def board(view: BoardView, user_id: int) -> Board:
    """The board of a channel, as its Discord message reads (bot/render/board.py), each line
    linked to its character's page."""
    combat = view.combat
    fighting = combat is not None
    ids = view.ids or (None,) * len(view.sheets)
    lines = tuple(
        line(s, in_combat=fighting, id=i, user_id=user_id)
        for s, i in zip(view.sheets, ids, strict=True)
    )
    empty = None
    if not lines:
        empty = (
            "Nobody in this combat yet: /combat add." if fighting else "No living characters yet."
        )
    return Board(
        round=combat.round if combat else None,
        early=tuple(s.name for s in view.sheets if s.early_this_round) if fighting else (),
        lines=lines,
        more=view.more,
        empty=empty,
    )


# --- the sheet --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Field:
    title: str
    lines: tuple[str, ...]


@dataclass(frozen=True)
class SheetView:
    owner: str
    due: str | None
    breakdown: str | None
    fields: tuple[Field, ...]
    flags: tuple[str, ...]


def _condition(sheet: Sheet) -> tuple[str, ...]:
    """H-3, and the daily +3 of E-4 (bot/render/sheet.py's Injury field)."""
    if sheet.state.is_out:
        return ("—",)
    hurt = injury(sheet)
    lines = (
        ["none"]
        if not hurt.action
        else [f"{hurt.action} on Action Rolls", f"{hurt.reaction} on Reaction Rolls"]
    )
    if sheet.daily_bonus:
        lines.append("+3 on Action Rolls today")
    return tuple(lines)


def sheet(sheet: Sheet, user_id: int) -> SheetView:
    """The sheet as `/character show` shows it (bot/render/sheet.py), field by field."""
    due = None
    if sheet.state.is_down:
        what = (
            "the Last Gasp"
            if sheet.state is State.DYING
            else f"a recovery roll of {count(sheet.recovery_dice, 'die', 'dice')}"
        )
        due = f"Due at its next turn: {what} ({DOWN_RULES[sheet.state]})."
    con = f"CON d{sheet.con_die}"
    if sheet.con_wounds:
        con += f" ({count(sheet.con_wounds, 'wound')})"
    # Each emotion held to its value (a no-break space): on a phone a pair wraps between the
    # two, never as `Guilt` on one line and `0/4` on the next.
    pairs = [emotion(sheet, e).replace(" ", "\u00a0") for e in Emotion]
    fields = (
        Field("Vitality", (vit(sheet), f"RES {sheet.res}")),
        Field(
            "Stamina",
            (stamina(sheet), con, f"next reaction costs {sheet.reactions_taken + 1}"),
        ),
        Field("Injury", _condition(sheet)),
        Field("Emotions", (f"{pairs[0]} · {pairs[1]}", f"{pairs[2]} · {pairs[3]}")),
        Field("Stress", (f"Stress {sheet.stress}",)),
        Field(
            "Abilities",
            tuple(
                f"{label} {signed(getattr(sheet, label.lower()))}"
                for label in ("Humility", "Composure", "Insight")
            ),
        ),
    )
    flags = [
        text
        for on, text in (
            (sheet.advantage, "advantage on the next recovery roll"),
            (sheet.early_this_round, "acts early this round"),
            (sheet.recovered_this_round, "recovery roll made this round"),
            (sheet.relief_used_today, "relief used today"),
        )
        if on
    ]
    return SheetView(
        owner="your character" if sheet.owner_id == user_id else "another member's character",
        due=due,
        breakdown=breakdown_line(sheet.breakdown) if sheet.breakdown is not None else None,
        fields=fields,
        flags=tuple(flags),
    )


# --- history ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class RollView:
    label: str
    shown: Markup  # the dice as pictures, or the sum of a dice expression


@dataclass(frozen=True)
class EventView:
    id: int
    command: str
    undone: bool
    bookkeeping: bool
    by: str
    at: datetime
    iso: str
    stamp: str
    when: str
    told: str | None
    changes: str
    rolls: tuple[RollView, ...]
    rules: tuple[str, ...]


# What a command that changed nothing on the sheet did (bot/render/table.py's /history rows).
_UNCHANGED = {
    "combat add": "Joins the combat.",
    "combat remove": "Leaves the combat.",
    "combat end": "The combat ends.",
    "turn": "The turn begins.",
}


def by_whom(user_id: int, viewer: int, owner: int | None = None) -> str:
    """Who did it, in the words the page can know: it sees no member's name."""
    if user_id == 0:
        return "the bot's upgrade"
    if user_id == viewer:
        return "you"
    return "its owner" if user_id == owner else "another member"


def ago(then: datetime, now: datetime) -> str:
    """`just now`, `5 minutes ago`, `3 hours ago`, `2 days ago`; the date past a month."""
    seconds = (now - then).total_seconds()
    if seconds < 60:
        return "just now"
    for size, unit in ((86400, "day"), (3600, "hour"), (60, "minute")):
        if seconds >= size and (unit != "day" or seconds < 31 * 86400):
            return f"{count(int(seconds // size), unit)} ago"
    return stamp(then)


def stamp(moment: datetime) -> str:
    """`01 March 2026 12:00 UTC`, as the console writes a Discord timestamp."""
    return moment.strftime("%d %B %Y %H:%M UTC")


def die(root: str, face: str, struck: bool = False) -> Markup:
    """One die as the picture its emoji is drawn from (bot/render/pictures.py)."""
    word = FACE_WORDS[face]
    name, alt = (STRUCK_FILE, f"{word} rerolled") if struck else (DIE_FILES[face], word)
    return Markup(
        '<img class="die" src="{}static/dice/{}" alt="{}" width="24" height="24">'
    ).format(root, name, alt)


def _narateer(roll: NarateerRoll, root: str) -> Markup:
    """D-4: every die; an advantage reroll (D-3) as the struck Miss beside its new face."""
    rerolls = roll.rerolls or (None,) * len(roll.faces)
    dice = []
    for face, reroll in zip(roll.faces, rerolls, strict=True):
        if reroll is None:
            dice.append(die(root, face))
        else:
            dice.append(
                Markup('<span class="reroll">{}{}</span>').format(
                    die(root, face, struck=True), die(root, reroll)
                )
            )
    return Markup('<span class="dice">{}</span> <span class="tally">{}</span>').format(
        Markup(" ").join(dice), tally(roll.final)
    )


def _numeric(roll: NumericRoll) -> Markup:
    """The whole sum (D-4), as /history writes it: `1d20+2` → 8 +2 = 10, +2 push = 12 vs 15 ✗;
    a die dropped by kh/kl struck through."""
    kept = roll.kept or (True,) * len(roll.dice)
    pairs = list(zip(roll.dice, kept, strict=True))
    shown = [Markup("{}").format(d) if k else Markup("<s>{}</s>").format(d) for d, k in pairs]
    text = Markup("<code>{}</code> → {}").format(roll.expression, Markup(", ").join(shown))
    return text + sum_text(roll)  # the bot's own words, escaped as any text


def roll_view(roll: Roll, root: str) -> RollView:
    label = roll_label(roll, shown=str)  # its values as typed: the template escapes the whole
    shown = _narateer(roll, root) if isinstance(roll, NarateerRoll) else _numeric(roll)
    return RollView(label, shown)


def event(event: Event, *, viewer: int, owner: int, now: datetime, root: str) -> EventView:
    if event.before is not None and event.after is not None:
        changes = diff(event.before, event.after) or bookkeeping(event.before, event.after)
        texts = change_texts(changes, event.command, vit=event.after.vit, viewer=viewer)
        said = " · ".join(texts)
        said = said[:1].upper() + said[1:]
        said = said or _UNCHANGED.get(event.command, "Nothing on the sheet changed.")
    elif event.after is not None:
        said = "Created."
    elif event.before is not None:
        said = "Deleted."
    else:
        said = "Nothing on the sheet changed."
    return EventView(
        id=event.id,
        command=f"/{event.command}",
        undone=event.reverted,
        bookkeeping=not event.is_change,
        by=by_whom(event.user_id, viewer, owner),
        at=event.created_at,
        iso=event.created_at.isoformat(),
        stamp=stamp(event.created_at),
        when=ago(event.created_at, now),
        told=told(event.inputs, event.user_id),
        changes=said,
        rolls=tuple(roll_view(roll, root) for roll in event.rolls),
        rules=event.rules,
    )


# --- odds -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class OddsView:
    headline: str
    roll: str
    waits: str | None
    next_name: str
    rows: tuple[str, ...]
    helped: str | None
    spiral: tuple[tuple[int, str, str, str, str], ...]  # roll, Up, Down, Dead, Retired
    retired: bool  # whether any roll has a chance of retirement (E-7): its column shows
    chart_alt: str


def odds(found: Odds) -> OddsView:
    """`/odds` (bot/render/odds.py's words) as text and a table beside the chart."""
    spiral = found.spiral
    words = odds_words(found)
    table = tuple(
        (
            step.roll,
            short_percent(step.up),
            short_percent(step.down),
            short_percent(step.dead),
            short_percent(step.retired),
        )
        for step in spiral
    )
    return OddsView(
        headline=words.headline,
        roll=words.roll,
        waits=words.waits,
        next_name=words.roll_name,
        rows=words.rows,
        helped=words.helped,
        spiral=table,
        retired=any(step.retired for step in spiral),
        chart_alt=f"Chart of the next {len(spiral)} rolls: {words.headline}",
    )
