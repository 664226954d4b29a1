"""The recap (`/recap`): the story of a period told from the event log (U-1).

Pure: the events come in as plain `Step`s, oldest first, and a `Recap` comes out: per
character its falls, recovery rolls and Crits, Last Gasps, Breakdowns, Stress gained, Stamina
spent, retirement and death; the most dramatic moment of all (the highlight); and the VIT of
each character step by step, with its moments on it for the picture.

What counts is written here once (docs/rules.md, "The recap"):

- Only changes count (U-2). A change that was undone, and the undo itself, are not part of the
  story (U-3): the story is what stands.
- A fall is going down from Up: Unconscious, Critical or Dying (V-2..V-4). Dying straight from
  Up is one fall; sinking deeper while down is not a new one.
- A recovery roll is a `/recover` of a character Unconscious or Critical (R-1..R-4); its Crits
  are the faces that stand after advantage (D-3). A Last Gasp is the `/recover` of a Dying
  character (R-5): survived unless it ends Dead.
- Stress gained: every rise of Stress, whatever caused it (E-1, E-2). Stamina spent: what
  acting early, reactions, pushes and other spending took (S-4..S-7), not what a CON wound's
  smaller die took away (S-2).
- The highlight is the first moment in `Kind`'s order; within one kind the weightier one (a
  death on a failed Last Gasp before any other death, more Crits, a deeper fall), then the
  later one (the climax of a night comes late).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import IntEnum, StrEnum

from rules.errors import RuleError
from rules.models import Emotion, State, vitality_state
from rules.rolls import NarateerRoll
from rules.text import Text, say

RECOVER = "recover"
UNDO = "undo"
SITUATIONAL = "breakdown"  # E-8: the GM's situational breakdown
HEAL = "heal"
SPENDING = frozenset({"early", "react", "push", "spend"})  # S-4..S-7


# --- the period ------------------------------------------------------------------------------


class Since(StrEnum):
    """Where the story starts (docs/commands.md, `/recap since:`)."""

    DAY = "day"  # the current in-game day began (C-4)
    SESSION = "session"  # the last recap
    HOURS = "hours"  # N hours ago


HOURS_DEFAULT = 4  # `since:hours` without `hours`: a night at the table
HOURS_MAX = 72
FIRST_RECAP_HOURS = 24  # `since:session` when the server never had a recap


def period(since: str | None, hours: int | None) -> tuple[Since, int | None]:
    """The period asked for: `session` unless told; `hours` alone means `since:hours`, and
    `since:hours` alone HOURS_DEFAULT hours. Hours go with `since:hours` only."""
    kind = Since(since) if since is not None else Since.SESSION
    if since is None and hours is not None:
        kind = Since.HOURS
    if kind is not Since.HOURS:
        if hours is not None:
            raise RuleError(
                "`hours` counts only with since:hours (or alone): /recap hours:{hours} tells the "
                "last {hours} hours; since:{since} needs no hours.",
                hours=hours,
                since=kind.value,
            )
        return kind, None
    hours = HOURS_DEFAULT if hours is None else hours
    if not 1 <= hours <= HOURS_MAX:
        raise RuleError(f"`hours` must be between 1 and {HOURS_MAX}.")
    return kind, hours


# --- the log, as the recap reads it ------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Snapshot:
    """The few fields of a logged sheet the story needs (U-1: the sheet before and after)."""

    name: str
    vit: int
    max_vit: int = 10
    res: int = 2
    stamina: int = 0
    stress: int = 0
    breakdown: Emotion | None = None
    dead: bool = False
    retired: bool = False
    state: State = field(init=False, compare=False)

    def __post_init__(self) -> None:
        # As Sheet.state: V-1..V-5, Dead and Retired on top (E-7); read often, made once.
        if self.dead:
            state = State.DEAD
        elif self.retired:
            state = State.RETIRED
        else:
            state = vitality_state(self.vit, self.res)
        object.__setattr__(self, "state", state)


@dataclass(frozen=True, slots=True)
class Step:
    """One event of the log (U-1), oldest first: `before` None for a creation, `after` None
    for a deletion. `roll`: the Narateer dice of a recovery roll or a Last Gasp."""

    event_id: int
    character_id: int
    command: str
    before: Snapshot | None
    after: Snapshot | None
    roll: NarateerRoll | None = None
    change: bool = True  # U-2: bookkeeping is no part of the story
    reverted: bool = False  # U-3: undone


def told(step: Step) -> bool:
    """U-2, U-3: a change that stands; an undo and what it undid tell nothing."""
    return step.change and not step.reverted and step.command != UNDO


# --- moments ---------------------------------------------------------------------------------


class Kind(IntEnum):
    """What a moment is, the most dramatic first: the highlight's order."""

    LAST_GASP_SURVIVED = 0
    DEATH = 1  # V-5
    RETIREMENT = 2  # E-7
    WAKE_ON_CRITS = 3  # up again on two Crits or more
    BREAKDOWN = 4  # E-1, E-9
    FALL = 5  # V-2..V-4
    WAKE = 6  # one Crit, or healing (H-2)
    REVIVAL = 7  # the GM's revive (V-5, E-7)


# Drawn on the picture: what a player must see happen to a line.
MARKED = frozenset({Kind.FALL, Kind.LAST_GASP_SURVIVED, Kind.DEATH, Kind.RETIREMENT})
_DEPTH = {State.UNCONSCIOUS: 1, State.CRITICAL: 2, State.DYING: 3}


@dataclass(frozen=True, slots=True)
class Moment:
    """One dramatic moment of one character: `step` is its position in the period (0 is the
    period's first change); `weight` orders moments of one kind."""

    kind: Kind
    character_id: int
    name: str
    step: int
    event_id: int
    state_before: State
    state_after: State
    vit: int  # after it
    stress: int = 0
    weight: int = 0
    crits: int = 0
    emotion: Emotion | None = None
    roll: NarateerRoll | None = None
    by_last_gasp: bool = False  # a death on a failed Last Gasp
    command: str = ""

    @property
    def rank(self) -> tuple[int, int, int]:
        """Greater is more dramatic: the kind, then the weight, then the later."""
        return (-self.kind, self.weight, self.step)

    @property
    def sentence(self) -> Text:
        """The moment in one plain sentence, the name a value (escaped where shown)."""
        name, vit = self.name, self.vit
        kind = self.kind
        if kind is Kind.LAST_GASP_SURVIVED:
            return say("{name} survives the Last Gasp with a Crit.", name=name)
        if kind is Kind.DEATH:
            if self.by_last_gasp:
                return say("{name} dies: the Last Gasp fails.", name=name)
            return say("{name} dies at VIT {vit}.", name=name, vit=vit)
        if kind is Kind.RETIREMENT:
            return say(
                "{name} must retire: Stress {stress} at VIT {vit}.",
                name=name,
                stress=self.stress,
                vit=vit,
            )
        if kind is Kind.WAKE_ON_CRITS:
            return say(
                "{name} wakes up on {crits} Crits, at VIT {vit}.",
                name=name,
                crits=self.crits,
                vit=vit,
            )
        if kind is Kind.BREAKDOWN:
            label = self.emotion.label if self.emotion else "an emotion"
            return say("{name} breaks down: a Breakdown of {label} begins.", name=name, label=label)
        if kind is Kind.FALL:
            return say(
                "{name} falls: {before} → {after} at VIT {vit}.",
                name=name,
                before=self.state_before.value,
                after=self.state_after.value,
                vit=vit,
            )
        if kind is Kind.WAKE:
            return say("{name} wakes up at VIT {vit}.", name=name, vit=vit)
        return say(
            "{name} is brought back: {before} → Up.", name=name, before=self.state_before.value
        )

    @property
    def rules(self) -> tuple[str, ...]:
        """The rules behind the moment, the most telling first."""
        kind = self.kind
        if kind is Kind.LAST_GASP_SURVIVED:
            return ("R-5",)
        if kind is Kind.DEATH:
            return ("R-5", "V-5") if self.by_last_gasp else ("V-5",)
        if kind is Kind.RETIREMENT:
            return ("E-7",)
        if kind in (Kind.WAKE_ON_CRITS, Kind.WAKE):
            if self.roll is not None:
                return ("R-2",) if self.state_before is State.UNCONSCIOUS else ("R-3",)
            return ("H-2",) if self.command == HEAL else ()  # the GM's /character set: none
        if kind is Kind.BREAKDOWN:
            return ("E-9",) if self.command == SITUATIONAL else ("E-1",)
        if kind is Kind.FALL:
            return {State.UNCONSCIOUS: ("V-2",), State.CRITICAL: ("V-3",)}.get(
                self.state_after, ("V-4",)
            )
        return ("V-5", "E-7")


def _moments(step: Step, position: int) -> list[Moment]:
    """What one change did that a story tells; several at once (a fall that retires)."""
    before, after = step.before, step.after
    if before is None or after is None:  # a creation or a deletion: no drama of its own
        return []
    was, now = before.state, after.state
    last_gasp = step.command == RECOVER and was is State.DYING
    if was is now and not last_gasp and after.breakdown in (None, before.breakdown):
        return []  # most changes of a night: no state moved, no Breakdown began
    roll = step.roll
    crits = roll.crits if roll is not None else 0

    def moment(
        kind: Kind, weight: int = 0, emotion: Emotion | None = None, by_last_gasp: bool = False
    ) -> Moment:
        return Moment(
            kind=kind,
            character_id=step.character_id,
            name=after.name,
            step=position,
            event_id=step.event_id,
            state_before=was,
            state_after=now,
            vit=after.vit,
            stress=after.stress,
            weight=weight,
            crits=crits,
            emotion=emotion,
            roll=roll if step.command == RECOVER else None,
            by_last_gasp=by_last_gasp,
            command=step.command,
        )

    found = []
    if last_gasp and now is not State.DEAD:
        found.append(moment(Kind.LAST_GASP_SURVIVED))
    if now is State.DEAD and was is not State.DEAD:
        found.append(moment(Kind.DEATH, weight=int(last_gasp), by_last_gasp=last_gasp))
    if now is State.RETIRED and was is not State.RETIRED:
        found.append(moment(Kind.RETIREMENT))
    if was.is_down and now is State.UP:
        several = step.command == RECOVER and crits >= 2
        found.append(moment(Kind.WAKE_ON_CRITS if several else Kind.WAKE, weight=crits))
    if after.breakdown is not None and after.breakdown != before.breakdown:
        found.append(moment(Kind.BREAKDOWN, emotion=after.breakdown))
    if was is State.UP and now.is_down:
        found.append(moment(Kind.FALL, weight=_DEPTH[now]))
    if was.is_out and not now.is_out:
        found.append(moment(Kind.REVIVAL))
    return found


# --- stories ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Story:
    """One character's part of the period. `series` is its VIT as the picture draws it: the
    (position, VIT) points where VIT changed, the first one where the line starts (0 for a
    character there from the start, the position after its creation otherwise), up to `until`
    (the period's end, or its deletion)."""

    character_id: int
    name: str  # its latest name
    start: Snapshot | None  # before its first change; None: created in the period
    end: Snapshot | None  # after its last change; None: deleted in the period
    last: Snapshot  # the latest sheet known (before a deletion, the one deleted)
    began: Snapshot  # where its line starts: `start`, or the sheet it was created with
    changes: int = 0
    falls: int = 0
    rolls: int = 0  # recovery rolls, Last Gasps apart (R-1..R-4)
    crits: int = 0  # Crits standing on those rolls (D-3)
    wake_ups: int = 0
    last_gasps: tuple[bool, ...] = ()  # each Last Gasp: survived or not
    last_gasp_faces: tuple[str, ...] = ()  # the face of each, as it stood (D-1)
    deaths: int = 0
    retirements: int = 0
    revivals: int = 0
    breakdowns: tuple[Emotion, ...] = ()  # each Breakdown begun, in order
    stress_gained: int = 0
    stamina_spent: int = 0
    moments: tuple[Moment, ...] = ()
    series: tuple[tuple[int, int], ...] = ()
    until: int = 0

    @property
    def best(self) -> Moment | None:
        return max(self.moments, key=lambda m: m.rank, default=None)

    @property
    def marks(self) -> tuple[Moment, ...]:
        """The moments drawn on its line: falls, Last Gasps survived, death, retirement."""
        return tuple(m for m in self.moments if m.kind in MARKED)

    @property
    def last_gasps_survived(self) -> int:
        return sum(self.last_gasps)

    @property
    def created(self) -> bool:
        return self.start is None

    @property
    def deleted(self) -> bool:
        return self.end is None


@dataclass
class _Teller:
    """A story as the steps come: counts, moments and the VIT line."""

    character_id: int
    start: Snapshot | None
    last: Snapshot
    began: Snapshot
    end: Snapshot | None = None
    changes: int = 0
    falls: int = 0
    rolls: int = 0
    crits: int = 0
    wake_ups: int = 0
    last_gasps: list[bool] = field(default_factory=list)
    last_gasp_faces: list[str] = field(default_factory=list)
    deaths: int = 0
    retirements: int = 0
    revivals: int = 0
    breakdowns: list[Emotion] = field(default_factory=list)
    stress_gained: int = 0
    stamina_spent: int = 0
    moments: list[Moment] = field(default_factory=list)
    series: list[tuple[int, int]] = field(default_factory=list)
    until: int | None = None

    def add(self, step: Step, position: int) -> None:
        before, after = step.before, step.after
        self.changes += 1
        self.end = after
        if before is not None and self.series and self.series[-1][1] != before.vit:
            self.series.append((position, before.vit))  # a gap in the log: the line follows it
        if after is not None:
            self.last = after
            if not self.series or self.series[-1][1] != after.vit:
                self.series.append((position + 1, after.vit))
        else:
            self.last = before or self.last
            self.until = position + 1
        if before is None or after is None:
            return
        self._count(step, before, after)
        for moment in _moments(step, position):
            self.moments.append(moment)
            self._tally(moment)

    def _count(self, step: Step, before: Snapshot, after: Snapshot) -> None:
        was = before.state
        if step.command == RECOVER and was in (State.UNCONSCIOUS, State.CRITICAL):
            self.rolls += 1
            self.crits += step.roll.crits if step.roll is not None else 0
        if step.command == RECOVER and was is State.DYING:
            self.last_gasps.append(after.state is not State.DEAD)
            if step.roll is not None and step.roll.final:
                self.last_gasp_faces.append(step.roll.final[-1])
        self.stress_gained += max(0, after.stress - before.stress)
        if step.command in SPENDING:
            self.stamina_spent += max(0, before.stamina - after.stamina)

    def _tally(self, moment: Moment) -> None:
        kind = moment.kind
        if kind is Kind.FALL:
            self.falls += 1
        elif kind is Kind.DEATH:
            self.deaths += 1
        elif kind is Kind.RETIREMENT:
            self.retirements += 1
        elif kind in (Kind.WAKE, Kind.WAKE_ON_CRITS):
            self.wake_ups += 1
        elif kind is Kind.BREAKDOWN and moment.emotion is not None:
            self.breakdowns.append(moment.emotion)
        elif kind is Kind.REVIVAL:
            self.revivals += 1

    def story(self, steps: int) -> Story:
        return Story(
            character_id=self.character_id,
            name=self.last.name,
            start=self.start,
            end=self.end,
            last=self.last,
            began=self.began,
            changes=self.changes,
            falls=self.falls,
            rolls=self.rolls,
            crits=self.crits,
            wake_ups=self.wake_ups,
            last_gasps=tuple(self.last_gasps),
            last_gasp_faces=tuple(self.last_gasp_faces),
            deaths=self.deaths,
            retirements=self.retirements,
            revivals=self.revivals,
            breakdowns=tuple(self.breakdowns),
            stress_gained=self.stress_gained,
            stamina_spent=self.stamina_spent,
            moments=tuple(self.moments),
            series=tuple(self.series),
            until=steps if self.until is None else self.until,
        )


def _teller(step: Step) -> _Teller | None:
    """A story begins at the character's first change of the period: from its sheet before
    (its line from the period's start), or from its creation."""
    before, after, who = step.before, step.after, step.character_id
    if before is not None:
        return _Teller(who, before, before, before, series=[(0, before.vit)])
    if after is not None:
        return _Teller(who, None, after, after)
    return None  # a deletion of a character never seen: nothing to tell


# --- the recap -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Recap:
    """The period's story: `steps` changes told, the stories the most dramatic first."""

    steps: int
    stories: tuple[Story, ...]
    highlight: Moment | None

    def total(self, what: str) -> int:
        """A count over every story: `falls`, `rolls`, `crits`, `deaths` …"""
        return sum(int(getattr(story, what)) for story in self.stories)

    @property
    def last_gasps(self) -> int:
        return sum(len(story.last_gasps) for story in self.stories)

    @property
    def last_gasps_survived(self) -> int:
        return sum(story.last_gasps_survived for story in self.stories)

    @property
    def breakdowns(self) -> int:
        return sum(len(story.breakdowns) for story in self.stories)


def _order(story: Story) -> tuple[tuple[int, int, int], int, int]:
    """The most dramatic story first: its best moment, then the busiest, then the oldest."""
    best = story.best
    rank = best.rank if best is not None else (-len(Kind), 0, 0)
    return (rank, story.changes, -story.character_id)


def tell(steps: Iterable[Step]) -> Recap:
    """U-1: the story of these events, oldest first (what is not told is left out: `told`)."""
    tellers: dict[int, _Teller] = {}
    position = 0
    for step in steps:
        if not told(step):
            continue
        teller = tellers.get(step.character_id)
        if teller is None:
            teller = _teller(step)
            if teller is None:
                continue
            tellers[step.character_id] = teller
        teller.add(step, position)
        position += 1
    stories = sorted((t.story(position) for t in tellers.values()), key=_order, reverse=True)
    moments = (m for story in stories for m in story.moments)
    highlight = max(moments, key=lambda m: m.rank, default=None)
    return Recap(position, tuple(stories), highlight)
