"""The recap's story (rules/recap.py, docs/rules.md "The recap"): what counts, what is left out
(U-2, U-3), the periods, and the order that picks the highlight."""

from __future__ import annotations

import pytest

from rules.errors import RuleError
from rules.models import Emotion, State
from rules.recap import (
    HOURS_DEFAULT,
    Kind,
    Since,
    Snapshot,
    Step,
    period,
    tell,
)
from rules.rolls import NarateerRoll


def snap(vit: int = 10, *, name: str = "Roryn", res: int = 2, **fields: object) -> Snapshot:
    return Snapshot(name=name, vit=vit, res=res, **fields)  # type: ignore[arg-type]


def roll(faces: str, label: str = "Recovery roll", rerolls: str = "") -> NarateerRoll:
    return NarateerRoll(
        label=label,
        faces=tuple(faces.split()),
        rerolls=tuple(None if r == "-" else r for r in rerolls.split()),
    )


class Log:
    """Steps as the log holds them, numbered in order; each character's sheet chained."""

    def __init__(self) -> None:
        self.steps: list[Step] = []
        self.sheets: dict[int, Snapshot | None] = {}

    def add(
        self,
        character: int,
        command: str,
        after: Snapshot | None,
        *,
        before: Snapshot | None = None,
        dice: NarateerRoll | None = None,
        **flags: bool,
    ) -> Step:
        was = before if before is not None else self.sheets.get(character)
        n = len(self.steps)
        step = Step(n + 1, character, command, was, after, dice, **flags)
        self.steps.append(step)
        if flags.get("change", True) and not flags.get("reverted", False) and command != "undo":
            self.sheets[character] = after
        return step

    def start(self, character: int, sheet: Snapshot) -> None:
        """The character as the period finds it (its sheet before its first change)."""
        self.sheets[character] = sheet


# --- the period ------------------------------------------------------------------------------


def test_session_unless_told():
    assert period(None, None) == (Since.SESSION, None)
    assert period("session", None) == (Since.SESSION, None)
    assert period("day", None) == (Since.DAY, None)


def test_hours_alone_means_since_hours_and_since_hours_alone_has_a_default():
    assert period(None, 6) == (Since.HOURS, 6)
    assert period("hours", None) == (Since.HOURS, HOURS_DEFAULT)
    assert period("hours", 72) == (Since.HOURS, 72)


@pytest.mark.parametrize("since", ["day", "session"])
def test_hours_with_another_period_is_refused(since):
    with pytest.raises(RuleError, match="counts only with since:hours"):
        period(since, 3)


@pytest.mark.parametrize("hours", [0, 73])
def test_hours_out_of_range_is_refused(hours):
    with pytest.raises(RuleError, match="between 1 and 72"):
        period("hours", hours)


# --- what counts ---------------------------------------------------------------------------------


def test_V_2_to_V_4_a_fall_is_going_down_from_up():
    log = Log()
    log.start(1, snap(3, res=3))
    log.add(1, "damage", snap(0, res=3))  # Up → Unconscious: a fall
    log.add(1, "damage", snap(-1, res=3))  # Unconscious → Critical: deeper, not a new fall
    log.add(1, "heal", snap(2, res=3))  # H-2: up again
    log.add(1, "damage", snap(-3, res=3))  # Up → Dying at once: one fall
    [story] = tell(log.steps).stories
    assert story.falls == 2
    assert story.wake_ups == 1
    falls = [m for m in story.moments if m.kind is Kind.FALL]
    assert [(m.state_after, m.weight) for m in falls] == [(State.UNCONSCIOUS, 1), (State.DYING, 3)]
    [woke] = [m for m in story.moments if m.kind is Kind.WAKE]
    assert woke.rules == ("H-2",) and str(woke.sentence) == "Roryn wakes up at VIT 2."


def test_R_1_to_R_4_recovery_rolls_count_their_standing_crits():
    log = Log()
    log.start(1, snap(0, res=3))
    log.add(1, "recover", snap(0, res=3), dice=roll("M H M"))
    log.add(1, "recover", snap(0, res=3), dice=roll("M C H", rerolls="C - -"))  # D-3
    log.add(1, "recover", snap(2, res=3), dice=roll("C C H"))  # wakes at VIT 2
    [story] = tell(log.steps).stories
    assert (story.rolls, story.crits, story.wake_ups) == (3, 4, 1)
    [wake] = story.moments
    assert wake.kind is Kind.WAKE_ON_CRITS and wake.crits == 2 and wake.rules == ("R-2",)
    assert str(wake.sentence) == "Roryn wakes up on 2 Crits, at VIT 2."


def test_R_5_a_last_gasp_survived_or_not_and_its_face():
    log = Log()
    log.start(1, snap(-3, res=2))
    log.start(2, snap(-2, name="Sera", res=0))
    log.add(1, "recover", snap(0, res=2), dice=roll("C", "Last Gasp"))
    log.add(2, "recover", snap(0, name="Sera", res=0), dice=roll("C", "Last Gasp"))  # V-4
    log.add(2, "recover", snap(0, name="Sera", res=0, dead=True), dice=roll("H", "Last Gasp"))
    recap = tell(log.steps)
    roryn, sera = sorted(recap.stories, key=lambda s: s.character_id)
    assert roryn.last_gasps == (True,) and roryn.last_gasp_faces == ("C",)
    assert roryn.rolls == 0  # a Last Gasp is not a recovery roll of the count
    # RES 0: the Crit leaves it Dying, survived all the same; then the Hit kills it.
    assert sera.last_gasps == (True, False) and sera.last_gasp_faces == ("C", "H")
    assert sera.deaths == 1
    [death] = [m for m in sera.moments if m.kind is Kind.DEATH]
    assert death.by_last_gasp and death.rules == ("R-5", "V-5")
    assert str(death.sentence) == "Sera dies: the Last Gasp fails."
    assert (recap.last_gasps, recap.last_gasps_survived) == (3, 2)


def test_E_7_retirement_and_E_1_E_9_breakdowns():
    log = Log()
    log.start(1, snap(4, stress=3))
    log.add(1, "emotion", snap(4, stress=3, breakdown=Emotion.FEAR))
    log.add(1, "damage", snap(3, stress=3, breakdown=Emotion.FEAR, retired=True))
    log.start(2, snap(8, name="Sera"))
    log.add(2, "breakdown", snap(8, name="Sera", breakdown=Emotion.ANGER))
    stories = {s.name: s for s in tell(log.steps).stories}
    roryn, sera = stories["Roryn"], stories["Sera"]
    assert roryn.breakdowns == (Emotion.FEAR,) and roryn.retirements == 1
    retired = next(m for m in roryn.moments if m.kind is Kind.RETIREMENT)
    assert str(retired.sentence) == "Roryn must retire: Stress 3 at VIT 3."
    [begun] = sera.moments
    assert begun.kind is Kind.BREAKDOWN and begun.rules == ("E-9",)
    assert str(begun.sentence) == "Sera breaks down: a Breakdown of Anger begins."


def test_stress_gained_counts_rises_and_stamina_spent_counts_spending_only():
    log = Log()
    log.start(1, snap(stamina=8, stress=0))
    log.add(1, "emotion", snap(stamina=8, stress=2))
    log.add(1, "quest complete", snap(stamina=8, stress=0))  # E-5: a drop gains nothing
    log.add(1, "emotion", snap(stamina=8, stress=1))
    log.add(1, "react", snap(stamina=6, stress=1))  # S-5
    log.add(1, "spend", snap(stamina=3, stress=1))  # S-7
    log.add(1, "wound", snap(stamina=2, stress=1))  # S-2: a smaller die, nothing spent
    log.add(1, "rest", snap(stamina=4, stress=1))
    log.add(1, "push", snap(stamina=3, stress=1))  # S-6
    [story] = tell(log.steps).stories
    assert story.stress_gained == 3
    assert story.stamina_spent == 2 + 3 + 1


# --- what is left out -------------------------------------------------------------------------


def test_U_3_what_was_undone_and_the_undo_tell_nothing():
    log = Log()
    log.start(1, snap(3))
    log.add(1, "damage", snap(0), reverted=True)  # undone: the fall never stands
    log.add(1, "undo", snap(3), before=snap(0))
    log.add(1, "damage", snap(2))
    recap = tell(log.steps)
    [story] = recap.stories
    assert story.falls == 0 and story.changes == 1 and recap.steps == 1
    assert story.series == ((0, 3), (1, 2))
    assert recap.highlight is None


def test_U_2_bookkeeping_tells_nothing():
    log = Log()
    log.start(1, snap(0))
    log.add(1, "turn", snap(0), change=False)
    recap = tell(log.steps)
    assert recap.stories == () and recap.steps == 0 and recap.highlight is None


def test_an_empty_period():
    recap = tell([])
    assert (recap.steps, recap.stories, recap.highlight) == (0, (), None)


# --- the highlight ---------------------------------------------------------------------------


def _scene(kind: Kind, log: Log, character: int) -> None:
    """One moment of `kind`, on a character of its own."""
    name = f"C{character}"
    if kind is Kind.LAST_GASP_SURVIVED:
        log.start(character, snap(-3, name=name))
        log.add(character, "recover", snap(0, name=name), dice=roll("C", "Last Gasp"))
    elif kind is Kind.DEATH:
        log.start(character, snap(-3, name=name))
        log.add(character, "recover", snap(-3, name=name, dead=True), dice=roll("M", "Last Gasp"))
    elif kind is Kind.RETIREMENT:
        log.start(character, snap(4, name=name, stress=3))
        log.add(character, "damage", snap(3, name=name, stress=3, retired=True))
    elif kind is Kind.WAKE_ON_CRITS:
        log.start(character, snap(0, name=name, res=3))
        log.add(character, "recover", snap(3, name=name, res=3), dice=roll("C C C"))
    elif kind is Kind.BREAKDOWN:
        log.start(character, snap(name=name))
        log.add(character, "emotion", snap(name=name, breakdown=Emotion.GUILT))
    elif kind is Kind.FALL:
        log.start(character, snap(2, name=name))
        log.add(character, "damage", snap(-1, name=name))
    elif kind is Kind.WAKE:
        log.start(character, snap(0, name=name))
        log.add(character, "recover", snap(1, name=name), dice=roll("C M"))
    else:
        log.start(character, snap(-3, name=name, dead=True))
        log.add(character, "character revive", snap(1, name=name))


ORDER = list(Kind)


def test_the_order_of_drama_is_written_down():
    """docs/rules.md: a survived Last Gasp, a death, a retirement, a wake-up on several Crits,
    a Breakdown begun, a fall, a wake-up, a revival."""
    assert ORDER == [
        Kind.LAST_GASP_SURVIVED,
        Kind.DEATH,
        Kind.RETIREMENT,
        Kind.WAKE_ON_CRITS,
        Kind.BREAKDOWN,
        Kind.FALL,
        Kind.WAKE,
        Kind.REVIVAL,
    ]


@pytest.mark.parametrize("first", range(len(ORDER)))
def test_the_highlight_is_the_most_dramatic_whatever_came_when(first):
    """Every kind from `first` on happens, the less dramatic ones last (the latest would win a
    tie): the highlight is still the kind `first`."""
    log = Log()
    for character, kind in enumerate(ORDER[first:], start=1):
        _scene(kind, log, character)
    recap = tell(log.steps)
    assert recap.highlight is not None and recap.highlight.kind is ORDER[first]
    assert recap.stories[0].best == recap.highlight  # its character comes first


def test_a_survived_last_gasp_beats_a_wake_up_on_three_crits():
    log = Log()
    _scene(Kind.LAST_GASP_SURVIVED, log, 1)
    _scene(Kind.WAKE_ON_CRITS, log, 2)
    highlight = tell(log.steps).highlight
    assert highlight is not None and highlight.name == "C1"
    assert str(highlight.sentence) == "C1 survives the Last Gasp with a Crit."
    assert highlight.roll is not None and highlight.roll.final == ("C",)


def test_within_a_kind_the_weightier_then_the_later():
    log = Log()
    log.start(1, snap(0, name="Early", res=4))
    log.start(2, snap(0, name="Late", res=4))
    log.start(3, snap(0, name="Most", res=4))
    log.add(1, "recover", snap(2, name="Early", res=4), dice=roll("C C M M"))
    log.add(3, "recover", snap(3, name="Most", res=4), dice=roll("C C C M"))
    log.add(2, "recover", snap(2, name="Late", res=4), dice=roll("C C M M"))
    recap = tell(log.steps)
    assert recap.highlight is not None and recap.highlight.name == "Most"  # more Crits
    assert [s.name for s in recap.stories] == ["Most", "Late", "Early"]  # then the later


def test_a_death_on_the_last_gasp_beats_one_by_damage_and_a_deeper_fall_a_shallower():
    log = Log()
    log.start(1, snap(-3, name="Gasped"))
    log.start(2, snap(1, name="Struck"))
    log.add(1, "recover", snap(-3, name="Gasped", dead=True), dice=roll("M", "Last Gasp"))
    log.add(2, "damage", snap(-2, name="Struck", dead=True))  # death_rule: instant
    highlight = tell(log.steps).highlight
    assert highlight is not None and highlight.name == "Gasped"

    log = Log()
    log.start(1, snap(2, name="Deep"))
    log.start(2, snap(2, name="Shallow"))
    log.add(1, "damage", snap(-3, name="Deep"))  # Dying
    log.add(2, "damage", snap(0, name="Shallow"))  # Unconscious, later
    highlight = tell(log.steps).highlight
    assert highlight is not None and highlight.name == "Deep"
    assert str(highlight.sentence) == "Deep falls: Up → Dying at VIT -3."


# --- the VIT line -------------------------------------------------------------------------------


def test_the_vit_line_starts_at_the_period_or_at_creation_and_ends_at_deletion():
    log = Log()
    log.start(1, snap(10))
    log.add(1, "damage", snap(6))  # position 0
    log.add(2, "character create", snap(8, name="New"), before=None)  # position 1
    log.add(1, "spend", snap(6, stamina=3))  # position 2: VIT unchanged, no point
    log.add(2, "damage", snap(5, name="New"))  # position 3
    log.add(1, "character delete", None)  # position 4
    recap = tell(log.steps)
    stories = {s.name: s for s in recap.stories}
    old, new = stories["Roryn"], stories["New"]
    assert old.series == ((0, 10), (1, 6)) and old.until == 5 and old.deleted
    assert new.series == ((2, 8), (4, 5)) and new.until == recap.steps == 5 and new.created
    assert old.last.vit == 6  # the sheet it was deleted with
    assert (old.began.vit, new.began.vit) == (10, 8)  # where each line starts


def test_marks_are_the_falls_last_gasps_deaths_and_retirements():
    log = Log()
    log.start(1, snap(2))
    log.add(1, "damage", snap(-3))  # fall, position 0
    log.add(1, "recover", snap(0), dice=roll("C", "Last Gasp"))  # survived, position 1
    log.add(1, "recover", snap(2), dice=roll("C C"))  # a wake-up: not a mark
    [story] = tell(log.steps).stories
    assert [(m.kind, m.step, m.vit) for m in story.marks] == [
        (Kind.FALL, 0, -3),
        (Kind.LAST_GASP_SURVIVED, 1, 0),
    ]


def test_names_stay_values_of_the_sentence():
    """The renderer escapes each name on its own (rules.text): the rule keeps it as typed."""
    name = "**Ro_ryn** <@123> @everyone"
    log = Log()
    log.start(1, snap(2, name=name))
    log.add(1, "damage", snap(0, name=name))
    highlight = tell(log.steps).highlight
    assert highlight is not None
    assert highlight.sentence.values["name"] == name
    assert highlight.sentence.render(lambda text: "<" + text + ">").startswith(f"<{name}> falls")
