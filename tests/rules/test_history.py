"""Undo (U-3): the latest change reverted, field by field; later bookkeeping stays."""

from __future__ import annotations

import pytest

from rules.dice import ScriptedRandom
from rules.emotions import raise_emotion
from rules.errors import RuleError
from rules.history import revert
from rules.models import State
from rules.sheet_ops import edit_sheet
from rules.stamina import act_early, push, wound
from rules.table import join_or_leave_combat, new_round, start_turn
from rules.vitality import damage, heal, recover
from tests.rules.conftest import COMBAT, INSTANT, dice, make


def test_U_3_the_fields_the_change_changed_go_back(settings):
    event = damage(make(vit=10, stamina=5), 4, settings)
    outcome = revert(event.after, event.before, event.after, "damage")
    assert outcome.after == event.before
    assert outcome.rules[0] == "U-3"
    assert outcome.headline == "Undone: Hero's latest change is reverted."
    assert [str(c) for c in outcome.changes] == ["VIT 6 → 10"]


def test_U_3_only_the_changed_fields_go_back_others_keep_their_current_value(settings):
    event = damage(make(vit=10), 4, settings)
    # fields the damage did not touch have moved since (a GM's direct edit, say)
    current = event.after.update(stamina=2, humility=3)
    reverted = revert(current, event.before, event.after, "damage").after
    assert reverted.vit == 10
    assert (reverted.stamina, reverted.humility) == (2, 3)


def test_U_3_bookkeeping_logged_after_the_change_stays(settings):
    event = damage(make(vit=10, reactions_taken=2, early_this_round=True), 3, settings)
    later = new_round([event.after], settings)[0].after
    later = join_or_leave_combat(later, joins=True).after
    assert (later.reactions_taken, later.early_this_round) == (0, False)
    reverted = revert(later, event.before, event.after, "damage").after
    assert reverted.vit == 10
    assert (reverted.reactions_taken, reverted.early_this_round) == (0, False)


def test_U_3_a_bookkeeping_field_the_change_itself_set_goes_back_too(settings):
    event = act_early(make(stamina=5), in_combat=True)
    later = start_turn(event.after, settings, in_combat=True).after  # bookkeeping: the count
    reverted = revert(later, event.before, event.after, "early").after
    assert (reverted.stamina, reverted.early_this_round) == (5, False)


def test_U_3_a_rename_is_reverted():
    event = edit_sheet(make(name="Roryn"), name="Taomkin", by_gm=False, in_combat=False)
    outcome = revert(event.after, event.before, event.after, "character edit")
    assert outcome.after.name == "Roryn"
    assert outcome.headline == "Undone: Roryn's latest change is reverted."
    assert [str(c) for c in outcome.changes] == ["Name Taomkin → Roryn"]


def test_U_3_a_failed_last_gasp_is_reverted(settings):
    event = recover(make(vit=-2, res=2), settings, dice("M"), **COMBAT)
    outcome = revert(event.after, event.before, event.after, "recover")
    assert outcome.after.state is State.DYING
    assert not outcome.after.recovered_this_round  # the roll is given back
    assert {"U-3", "V-4", "V-7"} <= set(outcome.rules)


def test_U_3_undoing_a_wake_gives_the_unused_advantage_back(settings):
    event = heal(make(vit=0, res=2, advantage=True), 5, settings)
    assert not event.after.advantage  # H-4
    outcome = revert(event.after, event.before, event.after, "heal")
    assert outcome.after.vit == 0
    assert outcome.after.advantage
    assert outcome.after.state is State.UNCONSCIOUS


def test_U_3_undoing_the_change_that_retired_a_character_brings_it_back():
    event = raise_emotion(make(vit=2, stress=1, anger=4, breakdown="anger"), "fear")
    assert event.after.state is State.RETIRED
    outcome = revert(event.after, event.before, event.after, "emotion")
    assert outcome.after == event.before
    assert outcome.after.state is State.UP


def test_U_3_undoing_an_instant_death_brings_the_character_back():
    event = damage(make(vit=2, res=3), 3, INSTANT)
    assert event.after.dead
    outcome = revert(event.after, event.before, event.after, "damage")
    assert outcome.after == event.before


def test_U_3_a_change_already_undone_by_later_changes_is_refused(settings):
    event = damage(make(vit=10), 3, settings)
    healed = heal(event.after, 3, settings).after
    with pytest.raises(RuleError, match="already undone by later changes") as caught:
        revert(healed, event.before, event.after, "damage")
    assert caught.value.values == {"name": "Hero", "command": "damage"}


def test_U_3_a_sheet_that_no_longer_fits_the_ranges_is_refused():
    pushed = push(make(stamina=8), 3, ScriptedRandom())
    wounded = wound(pushed.after).after  # max Stamina 6 now: 8 would be above it
    with pytest.raises(RuleError, match="no longer fits the rules' ranges") as caught:
        revert(wounded, pushed.before, pushed.after, "push")
    assert caught.value.values == {"name": "Hero", "command": "push"}
