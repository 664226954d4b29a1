"""The round's limits and the readings marked [interpretation] in docs/rules.md, with exact
values: R-8 (when a recovery roll may be made, one rule for /turn, the button and the board),
S-4a (no acting early after other spending in the round), S-5 (outside combat the reaction
count resets at the turn and each day), S-9 (a rest in combat is the GM's), H-5 (the down spend
no Stamina), F-1 (no first aid on a character who is Up), H-4 (waking loses unused advantage)
and E-7 (no revive into an immediate retirement)."""

from __future__ import annotations

import json

import pytest

from rules.condition import RollDue, roll_due
from rules.errors import RuleError
from rules.models import GuildSettings, ReactionReset, RestKind, State
from rules.outcome import BOOKKEEPING_FIELDS
from rules.sheet_ops import import_sheet, revive, set_fields
from rules.stamina import act_early, push, react, rest, rest_all, spend
from rules.table import join_or_leave_combat, new_day, new_round, start_turn
from rules.vitality import first_aid, heal, recover
from tests.rules.conftest import dice, make

ROUND_RESET = GuildSettings(reaction_reset=ReactionReset.ROUND)


# --- a roll is due only when one may be made now -----------------------------------------


@pytest.mark.parametrize(
    ("fields", "in_combat", "due"),
    [
        ({"vit": 0}, True, RollDue.NOW),
        ({"vit": -1}, True, RollDue.NOW),
        ({"vit": -1, "recovered_this_round": True}, True, RollDue.NEXT_ROUND),
        ({"vit": -3, "recovered_this_round": True}, True, RollDue.NEXT_ROUND),  # Dying
        ({"vit": 0}, False, RollDue.GM_CALLS),
        ({"vit": -3}, False, RollDue.GM_CALLS),
        ({"vit": 5}, True, None),
        ({"vit": -5, "dead": True}, True, None),
    ],
)
def test_R_8_roll_due(fields, in_combat, due):
    assert roll_due(make(**fields), in_combat=in_combat) is due


def test_R_8_the_turn_of_a_downed_character_in_combat_says_the_roll_is_due_now(settings):
    outcome = start_turn(make(vit=-1), settings, in_combat=True)
    assert outcome.headline == (
        "Hero is Critical: a recovery roll is due now, at the start of its turn (/recover)."
    )
    assert outcome.headline.values == {"name": "Hero"}
    assert "R-8" not in outcome.rules


@pytest.mark.parametrize(
    ("vit", "text"),
    [
        (
            -1,
            "Hero is Critical: this round's recovery roll is made; the next one comes next "
            "round (R-8).",
        ),
        (
            -3,
            "Hero is Dying: this round's recovery roll is made; the Last Gasp comes next "
            "round (R-8).",
        ),
    ],
)
def test_R_8_the_turn_after_this_rounds_roll_says_it_comes_next_round(settings, vit, text):
    outcome = start_turn(make(vit=vit, recovered_this_round=True), settings, in_combat=True)
    assert outcome.headline == text
    assert "R-8" in outcome.rules


@pytest.mark.parametrize(
    ("vit", "text"),
    [
        (0, "Hero is Unconscious: outside combat the GM calls for a recovery roll (R-8)."),
        (-3, "Hero is Dying: outside combat the GM calls for the Last Gasp (R-8)."),
    ],
)
def test_R_8_the_turn_outside_combat_says_the_gm_calls_for_the_roll(settings, vit, text):
    outcome = start_turn(make(vit=vit), settings, in_combat=False)
    assert outcome.headline == text


def test_R_8_a_critical_roll_that_bleeds_into_dying_leaves_the_last_gasp_for_next_round(settings):
    """RES 2 at VIT -1, all Misses: 1 VIT lost, Dying; this round's roll is used."""
    outcome = recover(make(vit=-1, res=2), settings, dice("MM"), in_combat=True, by_gm=False)
    assert outcome.after.state is State.DYING
    assert roll_due(outcome.after, in_combat=True) is RollDue.NEXT_ROUND
    with pytest.raises(RuleError, match="already made its recovery roll this round"):
        recover(outcome.after, settings, dice("C"), in_combat=True, by_gm=True)


# --- S-4a: acting early is decided before anything else happens -------------------------------


@pytest.mark.parametrize(
    "spending",
    [
        lambda s: react(s),
        lambda s: push(s, 2, dice("")),
        lambda s: spend(s, 1, "resisting the cold"),
    ],
    ids=["react", "push", "spend"],
)
def test_S_4a_early_is_refused_after_a_reaction_a_push_or_spending(spending):
    spent = spending(make(stamina=8)).after
    assert spent.spent_this_round
    with pytest.raises(RuleError) as caught:
        act_early(spent, in_combat=True)
    assert str(caught.value) == (
        "Hero has already reacted, pushed or spent Stamina this round: acting early is decided "
        "at the start of the round, before anything else happens (S-4a). It acts after the "
        "enemy this round; nothing was spent."
    )


def test_S_4a_early_first_then_other_spending_is_fine():
    early = act_early(make(stamina=8), in_combat=True)
    assert early.rules == ("S-4",)
    assert not early.after.spent_this_round
    reacted = react(early.after).after
    assert (reacted.stamina, reacted.reactions_taken) == (6, 1)


def test_S_4a_a_new_round_and_a_new_fight_clear_the_flag(settings):
    spent = spend(make(stamina=8), 1, "a spell").after
    (round_,) = new_round([spent], settings)
    assert not round_.after.spent_this_round
    assert act_early(round_.after, in_combat=True).after.stamina == 6
    for joins in (True, False):
        assert not join_or_leave_combat(spent, joins=joins).after.spent_this_round


def test_S_4a_the_flag_is_bookkeeping_and_never_imported(settings):
    assert "spent_this_round" in BOOKKEEPING_FIELDS
    (round_,) = new_round([make(spent_this_round=True)], settings)
    assert not round_.is_change
    assert [str(c) for c in round_.bookkeeping] == ["Spent Stamina this round yes → no"]
    data = {"name": "Hero", "spent_this_round": True, "stamina": 3}
    sheet, _ = import_sheet(json.loads(json.dumps(data)), 1, settings, by_gm=True)
    assert (sheet.stamina, sheet.spent_this_round) == (3, False)  # P-6


# --- S-5: outside combat the count resets at the turn and at each new day ---------------------


def test_S_5_outside_combat_the_turn_resets_the_count_whatever_reaction_reset_says():
    outcome = start_turn(make(reactions_taken=3), ROUND_RESET, in_combat=False)
    assert outcome.after.reactions_taken == 0
    assert outcome.rules == ("C-3", "S-5")
    assert outcome.headline == "Hero's turn begins: the next reaction costs 1."
    # in combat the setting decides: with `round`, the turn keeps the count
    kept = start_turn(make(reactions_taken=3), ROUND_RESET, in_combat=True)
    assert kept.after.reactions_taken == 3


def test_S_5_outside_combat_a_gm_called_recovery_roll_marks_the_turn_too():
    outcome = recover(
        make(vit=0, reactions_taken=2), ROUND_RESET, dice("MH"), in_combat=False, by_gm=True
    )
    assert outcome.after.reactions_taken == 0
    in_combat = recover(
        make(vit=0, reactions_taken=2), ROUND_RESET, dice("MH"), in_combat=True, by_gm=False
    )
    assert in_combat.after.reactions_taken == 2


def test_S_5_a_new_day_resets_the_count_of_those_in_no_combat():
    sheets = [make(name="Out", reactions_taken=2), make(name="Fights", reactions_taken=2)]
    out, fights = new_day(sheets, in_combat={"Fights"})
    assert (out.after.reactions_taken, fights.after.reactions_taken) == (0, 2)
    assert out.rules == ("C-4", "S-5")
    assert fights.rules == ("C-4",)
    assert not out.is_change  # bookkeeping only (U-2)
    assert react(out.after).after.stamina == 7  # the first reaction of the day costs 1


# --- S-9: a rest is narrative time -------------------------------------------------------------


def test_S_9_in_combat_only_the_gm_rests_a_character():
    tired = make(stamina=2)
    with pytest.raises(RuleError) as caught:
        rest(tired, RestKind.SAFE_LONG, in_combat=True, by_gm=False)
    assert str(caught.value) == (
        "Hero is in a combat: a rest is narrative time, so while it fights only the GM may rest "
        "it (S-9). Ask the GM, or rest once the combat is over. Nothing was changed."
    )
    assert rest(tired, RestKind.SAFE_LONG, in_combat=True, by_gm=True).after.stamina == 7
    assert rest(tired, RestKind.SAFE_LONG, in_combat=False, by_gm=False).after.stamina == 7
    assert [o.after.stamina for o in rest_all([tired], RestKind.SHORT)] == [3]


# --- H-5: a character that is down spends no Stamina -------------------------------------------


@pytest.mark.parametrize("vit", [0, -1, -3], ids=["Unconscious", "Critical", "Dying"])
@pytest.mark.parametrize(
    "action",
    [
        lambda s: act_early(s, in_combat=True),
        lambda s: react(s),
        lambda s: push(s, 1, dice("")),
        lambda s: spend(s, 1, "a spell"),
    ],
    ids=["early", "react", "push", "spend"],
)
def test_H_5_the_down_spend_no_stamina(vit, action):
    sheet = make(vit=vit, stamina=8)
    with pytest.raises(RuleError) as caught:
        action(sheet)
    assert str(caught.value) == (
        f"Hero is {sheet.state.value} and cannot act or spend Stamina until it is back up "
        "(H-5): heal it (/heal), give first aid (/aid) or make its recovery roll (/recover). "
        "Nothing was spent."
    )


# --- F-1, H-4, E-7: the readings marked [interpretation] ---------------------------------------


def test_F_1_first_aid_on_a_character_who_is_up_is_refused(settings):
    with pytest.raises(RuleError) as caught:
        first_aid(make(vit=3), settings, dice(""), success=True)
    assert str(caught.value) == (
        "Hero is Up: first aid helps only a character that is Unconscious, Critical or Dying."
    )


def test_H_4_waking_by_healing_loses_the_unused_advantage(settings):
    outcome = heal(make(vit=0, advantage=True), 3, settings)
    assert (outcome.after.vit, outcome.after.advantage) == (3, False)
    assert "H-4" in outcome.rules
    still_down = heal(make(vit=-2, advantage=True), 1, settings)  # stabilised, not awake
    assert still_down.after.advantage and "H-4" not in still_down.rules


def test_E_7_revive_refused_while_stress_is_at_least_vit_then_allowed_once_set_lowers_it(settings):
    retired = make(vit=3, stress=5, retired=True)
    with pytest.raises(RuleError) as caught:
        revive(retired)
    assert str(caught.value) == (
        "Hero would retire again at once: Stress 5 is at least its VIT 3 (E-7). Lower Stress "
        "first: with the revive's stress option (e.g. stress:0) or with /character set."
    )
    lowered = set_fields(retired, settings, stress=2).after
    assert lowered.state is State.RETIRED  # lowering Stress does not bring it back by itself
    assert revive(lowered).after.state is State.UP
