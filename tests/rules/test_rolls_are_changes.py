"""Issue 21 in the rules: every roll is a change (U-2, revised) and its undo strikes it (U-3,
R-8); E-6 on a recovery roll; R-6's waiting advantage only for a character that lives. Exact
dice throughout."""

from __future__ import annotations

import pytest

from rules.dice import ScriptedRandom
from rules.emotion_texts import breakdown_line
from rules.emotions import situational_breakdown
from rules.errors import RuleError
from rules.history import revert
from rules.models import Emotion, GuildSettings, State
from rules.outcome import is_change
from rules.stamina import push
from rules.table import new_round
from rules.vitality import first_aid, recover
from tests.rules.conftest import COMBAT, dice, make

GM_OUTSIDE_COMBAT = {"in_combat": False, "by_gm": True}
WAITS = "waits for the next recovery roll"


# --- U-2: a roll is a change, whatever its result ----------------------------------------------


def test_U_2_every_roll_is_a_change_even_when_nothing_else_changes(settings):
    down = make(vit=0, res=2)
    rolls = [
        recover(down, settings, dice("MH"), **COMBAT),  # only the round's flag
        recover(down, settings, dice("MH"), **GM_OUTSIDE_COMBAT),  # nothing at all
        recover(make(vit=-2, res=2), settings, dice("C"), **GM_OUTSIDE_COMBAT),  # a Last Gasp
        first_aid(down, settings, ScriptedRandom([3]), roll="1d20", target=15),  # fails
        situational_breakdown(make(composure=2), "fear", 4, settings, ScriptedRandom(), roll=9),
    ]
    for outcome in rolls:
        assert outcome.rolls and outcome.is_change, outcome.headline
    assert [bool(o.changes) for o in rolls] == [False, False, True, False, False]
    assert rolls[1].after == rolls[1].before
    # No dice, nothing a player sees: still bookkeeping; the same sheets with a roll: a change.
    reported = first_aid(down, settings, ScriptedRandom(), success=False)
    assert not reported.is_change
    assert is_change(down, down, rolls[1].rolls) and not is_change(down, down)


# --- U-3: the undo of a roll --------------------------------------------------------------------


def test_U_3_a_roll_that_set_only_the_rounds_flag_gives_the_roll_back(settings):
    event = recover(make(vit=0, res=2), settings, dice("MH"), **COMBAT)
    outcome = revert(event.after, event.before, event.after, "recover", rolled=True)
    assert not outcome.after.recovered_this_round  # it may be made again
    assert outcome.after == event.before
    assert outcome.headline == (
        "Undone: Hero's /recover is struck from the record; the roll may be made again."
    )
    assert outcome.rules[:2] == ("U-3", "R-8")
    again = recover(outcome.after, settings, dice("CH"), **COMBAT)
    assert again.after.state is State.UP


def test_U_3_a_roll_that_changed_no_field_is_struck_all_the_same(settings):
    """Outside combat the GM's roll sets no flag: nothing differs, and the undo still goes
    through (a change that is not a roll is refused as already undone)."""
    event = recover(make(vit=0, res=2), settings, dice("MH"), **GM_OUTSIDE_COMBAT)
    assert event.after == event.before
    outcome = revert(event.after, event.before, event.after, "recover", rolled=True)
    assert outcome.after == outcome.before == event.before
    assert outcome.changes == [] and outcome.rules == ("U-3",)
    assert "struck from the record" in outcome.headline
    with pytest.raises(RuleError, match="already undone"):
        revert(event.after, event.before, event.after, "recover")


def test_U_3_an_undone_last_gasp_death_may_be_rolled_again_once(settings):
    event = recover(make(vit=-2, res=2), settings, dice("M"), **COMBAT)
    assert event.after.state is State.DEAD
    back = revert(event.after, event.before, event.after, "recover", rolled=True).after
    assert (back.state, back.recovered_this_round) == (State.DYING, False)
    survived = recover(back, settings, dice("C"), **COMBAT)
    assert survived.after.recovered_this_round  # the flag is set again: one roll this round
    with pytest.raises(RuleError, match="already made its recovery roll this round"):
        recover(survived.after, settings, dice("C"), **COMBAT)


def test_U_3_a_roll_whose_flag_a_new_round_reset_is_still_struck(settings):
    event = recover(make(vit=0, res=2), settings, dice("MH"), **COMBAT)
    later = new_round([event.after], settings)[0].after
    outcome = revert(later, event.before, event.after, "recover", rolled=True)
    assert outcome.after == later and outcome.rules == ("U-3",)  # nothing came back: no R-8


def test_U_3_a_pushed_check_gives_its_stamina_back():
    event = push(make(stamina=5), 2, ScriptedRandom([12]), roll="1d20", target=10)
    outcome = revert(event.after, event.before, event.after, "push", rolled=True)
    assert outcome.after.stamina == 5
    assert [str(c) for c in outcome.changes] == ["Stamina 3/8 → 5/8"]


# --- E-6: the Breakdown line on a recovery roll -------------------------------------------------


@pytest.mark.parametrize(("vit", "faces"), [(0, "MH"), (-1, "MH"), (-2, "M"), (-2, "C")])
def test_E_6_a_recovery_roll_in_breakdown_shows_the_breakdown_line(settings, vit, faces):
    sheet = make(vit=vit, res=2, fear=4, breakdown="fear")
    outcome = recover(sheet, settings, dice(faces), **GM_OUTSIDE_COMBAT)
    assert breakdown_line(Emotion.FEAR) in outcome.notes
    assert "E-6" in outcome.rules
    calm = recover(make(vit=vit, res=2), settings, dice(faces), **GM_OUTSIDE_COMBAT)
    assert "E-6" not in calm.rules and not any("Breakdown" in n for n in calm.notes)


# --- advantage waits only for a character that will roll again ----------------------------


def test_R_6_a_failed_last_gasp_says_nothing_of_waiting_advantage():
    no = GuildSettings(last_gasp_advantage="no")
    died = recover(make(vit=-2, res=2, advantage=True), no, dice("M"), **COMBAT)
    assert died.after.dead
    assert not any(WAITS in note for note in died.notes)
    assert "R-6" not in died.rules
    lived = recover(make(vit=-2, res=2, advantage=True), no, dice("C"), **COMBAT)
    assert any(WAITS in note for note in lived.notes) and "R-6" in lived.rules
