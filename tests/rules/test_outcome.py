"""What a player sees change (U-2): visible changes, bookkeeping, and `is_change`."""

from __future__ import annotations

import pytest

from rules.dice import ScriptedRandom
from rules.outcome import Change, bookkeeping, diff, is_change
from rules.vitality import first_aid, recover
from tests.rules.conftest import COMBAT, dice, make


def test_U_2_a_change_reads_label_before_arrow_after():
    assert str(Change(label="VIT", before="1", after="-1")) == "VIT 1 → -1"


@pytest.mark.parametrize(
    ("fields", "row"),
    [
        ({"name": "Roryn"}, "Name Hero → Roryn"),
        ({"owner_id": 2}, "Owner <@1> → <@2>"),
        ({"max_vit": 12}, "max VIT 10 → 12"),
        ({"res": 3}, "RES 2 → 3"),
        ({"humility": -2}, "Humility +0 → -2"),
        ({"composure": 3}, "Composure +0 → +3"),
        ({"insight": 1}, "Insight +0 → +1"),
        ({"relief_used_today": True}, "Relief used today no → yes"),
        ({"advantage": True}, "Advantage no → yes"),
        ({"daily_bonus": True}, "+3 daily bonus no → yes"),
        ({"stress": 2}, "Stress 0 → 2"),
        ({"guilt": 1}, "Guilt 0/4 → 1/4"),
    ],
)
def test_U_2_every_visible_field_is_a_change(fields, row):
    before = make()
    after = before.update(**fields)
    assert [str(c) for c in diff(before, after)] == [row]
    assert is_change(before, after)


def test_U_2_a_new_threshold_shows_on_its_own_row_not_on_every_stack():
    rows = [str(c) for c in diff(make(), make(threshold=5))]
    assert rows == ["Threshold 4 → 5"]


def test_U_2_a_stack_that_moves_is_written_with_its_threshold():
    rows = [str(c) for c in diff(make(fear=1), make(fear=2, threshold=5))]
    assert rows == ["Fear 1/4 → 2/5", "Threshold 4 → 5"]


def test_U_2_the_base_die_and_the_wounds_are_changes():
    before = make(con_base=10, stamina=8)
    rows = [str(c) for c in diff(before, before.update(con_base=12, con_wounds=1))]
    assert rows == ["base CON d10 → d12", "CON wounds 0 → 1"]
    rows = [str(c) for c in diff(before, before.update(con_wounds=1))]
    assert rows == ["Stamina 8/10 → 8/8", "CON d10 → d8", "CON wounds 0 → 1"]


def test_V_7_U_2_vit_comes_first_then_the_state():
    rows = [str(c) for c in diff(make(vit=1), make(vit=-2, stress=1))]
    assert rows == ["VIT 1 → -2", "State Up → Dying", "Stress 0 → 1"]


@pytest.mark.parametrize(
    ("fields", "row"),
    [
        ({"reactions_taken": 2}, "Next reaction costs 1 → 3"),
        ({"early_this_round": True}, "Acts early this round no → yes"),
        ({"recovered_this_round": True}, "Recovery roll made this round no → yes"),
    ],
)
def test_U_2_counters_and_round_flags_are_bookkeeping_not_a_change(fields, row):
    before = make()
    after = before.update(**fields)
    assert diff(before, after) == []
    assert [str(c) for c in bookkeeping(before, after)] == [row]
    assert not is_change(before, after)


def test_U_2_a_creation_and_a_deletion_are_changes():
    assert is_change(None, make())
    assert is_change(make(), None)
    assert not is_change(None, None)


def test_U_2_a_recovery_roll_without_a_result_is_a_change_all_the_same(settings):
    """U-2 (revised): every roll is a change; the round's flag it set is bookkeeping."""
    outcome = recover(make(vit=0, res=2), settings, dice("MH"), **COMBAT)
    assert outcome.changes == [] and outcome.is_change
    assert [str(c) for c in outcome.bookkeeping] == ["Recovery roll made this round no → yes"]


def test_U_2_first_aid_that_gives_advantage_is_a_change(settings):
    given = first_aid(make(vit=0, res=2), settings, ScriptedRandom(), success=True)
    assert given.is_change
    failed = first_aid(make(vit=0, res=2), settings, ScriptedRandom(), success=False)
    assert not failed.is_change
