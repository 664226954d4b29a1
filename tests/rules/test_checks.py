"""Checks: K-1..K-5 (docs/rules.md, Checks), the pure rule: an Action or Reaction Roll of a dice
expression with every modifier the sheet puts on it (H-3, E-4, S-6, E-6), the whole sum kept,
Disadvantage (K-3), the Raise buttons' cause (K-4) and the refusals (K-5). Every die scripted
(`ScriptedRandom`: each `randint(1, sides)` takes the next value)."""

from __future__ import annotations

import pytest

from rules.checks import (
    DAILY_BONUS,
    NEARBY_PENALTY,
    CheckKind,
    check,
    nearby_breakdown,
)
from rules.dice import ScriptedRandom
from rules.emotion_texts import RELATED_ACTIONS
from rules.errors import RuleError
from rules.models import Emotion, EmotionCause, GuildSettings, Sheet, State
from rules.rolls import NumericRoll
from tests.rules.conftest import MARKDOWN_NAME, make

SETTINGS = GuildSettings()
ACTION, REACTION = CheckKind.ACTION, CheckKind.REACTION


def rolled(*values: int) -> ScriptedRandom:
    return ScriptedRandom(values)


def only_roll(outcome) -> NumericRoll:
    [roll] = outcome.rolls
    assert isinstance(roll, NumericRoll)
    return roll


# --- K-1: the roll, its die, its sum, its verdict


def test_K_1_an_action_roll_of_the_default_die_is_the_die_alone():
    sheet = make()
    rng = rolled(12)
    outcome = check(sheet, SETTINGS, rng)
    roll = only_roll(outcome)
    assert (roll.label, roll.expression, roll.dice, roll.value) == (
        "Action Roll",
        "1d20",
        (12,),
        12,
    )
    assert (roll.bonuses, roll.total, roll.target, roll.success) == ((), 12, None, None)
    assert outcome.headline == "Hero's Action Roll totals 12."
    assert outcome.action == "action_roll"
    assert outcome.rules == ("K-1",)
    assert outcome.after == sheet  # a plain check changes nothing on the sheet
    assert not outcome.failed
    assert outcome.raise_cause is None
    assert outcome.notes == ()
    assert rng.remaining == 0


def test_K_1_the_guilds_check_die_is_the_default():
    settings = GuildSettings(check_die="2d6")
    roll = only_roll(check(make(), settings, rolled(3, 4)))
    assert (roll.expression, roll.dice, roll.value, roll.total) == ("2d6", (3, 4), 7, 7)


def test_K_1_roll_names_the_dice_over_the_guilds_default():
    settings = GuildSettings(check_die="2d6")
    roll = only_roll(check(make(), settings, rolled(5), roll="1d8+2"))
    assert (roll.expression, roll.dice, roll.value, roll.total) == ("1d8+2", (5,), 7, 7)


def test_K_1_a_bad_expression_is_refused_before_anything_is_rolled():
    rng = rolled(5)
    with pytest.raises(RuleError, match="not a dice expression"):
        check(make(), SETTINGS, rng, roll="1d8+")
    assert rng.remaining == 1


@pytest.mark.parametrize(
    ("die", "target", "success", "verdict"),
    [(12, 12, True, "succeeds"), (11, 12, False, "fails"), (13, 12, True, "succeeds")],
)
def test_K_1_success_is_a_total_at_least_the_target(die, target, success, verdict):
    outcome = check(make(), SETTINGS, rolled(die), target=target)
    roll = only_roll(outcome)
    assert (roll.target, roll.success) == (target, success)
    assert outcome.headline == f"Hero's Action Roll {verdict}: {die} against {target}."
    assert outcome.failed is (not success)


def test_K_1_the_target_is_compared_with_the_total_modifiers_included():
    # 12 on the die, -3 injury: 9, one short of 10.
    outcome = check(make(vit=7), SETTINGS, rolled(12), target=10)
    roll = only_roll(outcome)
    assert (roll.value, roll.total, roll.success) == (12, 9, False)
    assert outcome.headline == "Hero's Action Roll fails: 9 against 10."
    assert outcome.failed


def test_K_1_a_reaction_roll_is_titled_so():
    outcome = check(make(), SETTINGS, rolled(7), kind="reaction")
    assert only_roll(outcome).label == "Reaction Roll"
    assert outcome.action == "reaction_roll"
    assert outcome.headline == "Hero's Reaction Roll totals 7."


def test_K_1_what_the_roll_is_for_is_in_its_label_as_a_value():
    outcome = check(make(), SETTINGS, rolled(7), what="  climb the **wall** ")
    label = only_roll(outcome).label
    assert label == "Action Roll (climb the **wall**)"
    assert (
        label.render(lambda s: s.replace("*", "\\*")) == "Action Roll (climb the \\*\\*wall\\*\\*)"
    )


def test_K_1_a_name_stays_a_value_of_the_headline():
    outcome = check(make(name=MARKDOWN_NAME), SETTINGS, rolled(7))
    assert outcome.headline == f"{MARKDOWN_NAME}'s Action Roll totals 7."
    assert outcome.headline.values["name"] == MARKDOWN_NAME


def test_K_5_a_check_is_a_change_even_when_nothing_else_changes():
    """U-2: every roll is a change (/history lists it, /undo may revert it)."""
    outcome = check(make(), SETTINGS, rolled(7))
    assert outcome.after == outcome.before
    assert outcome.is_change


# --- K-2: the modifiers -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("max_vit", "vit", "action", "reaction"),
    [
        (10, 10, 0, 0),
        (10, 8, 0, 0),  # r = 0.2
        (20, 15, 0, 0),  # r = 0.25
        (20, 14, -3, -1),  # r = 0.30 exactly: injured
        (10, 7, -3, -1),  # r = 0.3
        (10, 4, -3, -1),  # r = 0.6 exactly: still injured
        (20, 8, -3, -1),  # r = 0.6
        (20, 7, -8, -2),  # r = 0.65
        (10, 3, -8, -2),  # r = 0.7
        (10, 1, -8, -2),  # r = 0.9
    ],
)
def test_K_2_the_injury_column_of_H_3(max_vit, vit, action, reaction):
    sheet = make(max_vit=max_vit, vit=vit)
    acted = check(sheet, SETTINGS, rolled(10))
    reacted = check(sheet, SETTINGS, rolled(10), kind=REACTION)
    assert only_roll(acted).bonuses == ((("injury", action),) if action else ())
    assert only_roll(acted).total == 10 + action
    assert only_roll(reacted).bonuses == ((("injury", reaction),) if reaction else ())
    assert only_roll(reacted).total == 10 + reaction
    assert ("H-3" in acted.rules) is bool(action)
    assert ("H-3" in reacted.rules) is bool(reaction)


def test_K_2_the_daily_bonus_of_E_4_is_on_action_rolls_only():
    sheet = make(daily_bonus=True)
    acted = check(sheet, SETTINGS, rolled(10))
    assert only_roll(acted).bonuses == (("daily bonus", DAILY_BONUS),)
    assert only_roll(acted).total == 13
    assert "E-4" in acted.rules
    assert acted.after.daily_bonus  # it lasts the day: a check does not use it up
    reacted = check(sheet, SETTINGS, rolled(10), kind=REACTION)
    assert only_roll(reacted).bonuses == ()
    assert only_roll(reacted).total == 10
    assert "E-4" not in reacted.rules


def test_K_2_a_push_is_paid_first_and_adds_one_per_stamina_S_6():
    sheet = make(stamina=5)
    outcome = check(sheet, SETTINGS, rolled(9), push=2, target=12)
    roll = only_roll(outcome)
    assert roll.bonuses == (("push", 2),)
    assert (roll.total, roll.success) == (11, False)
    assert outcome.after.stamina == 3
    assert outcome.after.spent_this_round  # S-4a: no acting early after it
    assert outcome.after == sheet.update(stamina=3, spent_this_round=True)  # nothing else
    assert outcome.rules == ("K-1", "S-6", "K-2")
    assert "The Stamina is spent whether the Check succeeds or not." in outcome.notes
    assert outcome.failed  # lost whatever the result: the Stamina is gone all the same


def test_K_2_a_push_may_spend_the_last_stamina():
    outcome = check(make(stamina=3), SETTINGS, rolled(1), push=3)
    assert outcome.after.stamina == 0
    assert only_roll(outcome).total == 4


@pytest.mark.parametrize(
    ("stamina", "push", "said"),
    [
        (2, 3, "costs 3 Stamina but Hero has only 2/8: nothing was spent"),
        (0, 1, "has 0 Stamina and cannot spend any (S-8)"),
    ],
)
def test_K_2_a_push_without_the_stamina_is_refused_and_nothing_is_rolled(stamina, push, said):
    rng = rolled(9)
    with pytest.raises(RuleError) as refused:
        check(make(stamina=stamina), SETTINGS, rng, push=push)
    assert said in str(refused.value)
    assert rng.remaining == 1  # refused before the roll: the push is declared and paid first


@pytest.mark.parametrize("push", [0, 21, -1, True])
def test_K_2_a_push_is_a_whole_number_from_1_to_20(push):
    with pytest.raises(RuleError, match="from 1 to 20"):
        check(make(), SETTINGS, rolled(9), push=push)


def test_K_2_a_push_is_only_for_an_action_roll():
    rng = rolled(9)
    with pytest.raises(RuleError, match=r"leave out push on a Reaction Roll\. Nothing was spent\."):
        check(make(), SETTINGS, rng, kind=REACTION, push=1)
    assert rng.remaining == 1


def test_K_2_an_allys_breakdown_nearby_is_minus_3_on_action_rolls_E_6():
    outcome = check(make(), SETTINGS, rolled(10), nearby="Tam")
    roll = only_roll(outcome)
    assert roll.bonuses == (("ally's Breakdown", NEARBY_PENALTY),)
    assert roll.total == 7
    assert "E-6" in outcome.rules
    assert "Tam nearby is in a Breakdown: -3 on Action Rolls (E-6)." in outcome.notes


def test_K_2_an_allys_breakdown_puts_nothing_on_a_reaction_roll():
    outcome = check(make(), SETTINGS, rolled(10), kind=REACTION, nearby="Tam")
    roll = only_roll(outcome)
    assert roll.bonuses == ()
    assert roll.total == 10
    assert "E-6" not in outcome.rules


def test_K_2_a_reaction_roll_says_nothing_of_a_penalty_it_does_not_take():
    outcome = check(make(), SETTINGS, rolled(10), kind=REACTION, nearby="Tam")
    assert not [note for note in outcome.notes if "nearby" in note]


def test_K_2_every_modifier_at_once_in_the_order_shown():
    """The docs' example: `1d20+2` → 8 +2 = 10, -3 injury, +3 daily bonus, +2 push … = 9."""
    sheet = make(vit=7, daily_bonus=True)
    outcome = check(
        sheet, SETTINGS, rolled(8), roll="1d20+2", target=15, push=2, nearby="Tam", what="climb"
    )
    roll = only_roll(outcome)
    assert roll.label == "Action Roll (climb)"
    assert (roll.dice, roll.value) == ((8,), 10)
    assert roll.bonuses == (
        ("injury", -3),
        ("daily bonus", 3),
        ("push", 2),
        ("ally's Breakdown", -3),
    )
    assert (roll.total, roll.success) == (9, False)
    assert outcome.rules == ("K-1", "S-6", "E-4", "E-6", "H-3", "K-2")
    assert outcome.notes == (
        "Tam nearby is in a Breakdown: -3 on Action Rolls (E-6).",
        "The Stamina is spent whether the Check succeeds or not.",
    )
    assert outcome.headline == "Hero's Action Roll fails: 9 against 15."


def test_K_2_a_check_with_a_modifier_cites_K_2():
    outcome = check(make(vit=7, daily_bonus=True), SETTINGS, rolled(8), push=1, nearby="Tam")
    assert "K-2" in outcome.rules


# --- K-2 [interpretation]: who is nearby ----------------------------------------------------------


def _ally(name: str, **fields) -> Sheet:
    return Sheet(name=name, owner_id=2).update(**fields)


TAM = _ally("Tam", fear=4, breakdown="fear")
BEA = _ally("Bea", anger=4, breakdown="anger")
CALM = _ally("Cal")


@pytest.mark.parametrize(
    ("allies", "said", "nearby"),
    [
        ([TAM], False, "Tam"),  # in combat the combat decides…
        ([TAM], True, "Tam"),
        ([CALM, TAM, BEA], False, "Tam"),  # the first in a Breakdown
        ([CALM], True, None),  # …whatever the roller says
        ([], False, None),
        (None, True, "An ally"),  # outside combat only when the roller says so
        (None, False, None),
    ],
)
def test_K_2_nearby_is_the_same_combat_or_outside_combat_the_rollers_word(allies, said, nearby):
    assert nearby_breakdown(allies, said) == nearby


@pytest.mark.parametrize("out", [{"dead": True, "vit": -4}, {"retired": True, "stress": 12}])
def test_K_2_an_ally_out_of_the_story_is_not_nearby(out):
    """V-5, E-7: a Dead or Retired member still in its Breakdown takes no part."""
    assert nearby_breakdown([TAM.update(**out)], False) is None


def test_K_2_outside_combat_the_rollers_word_names_an_ally():
    outcome = check(make(), SETTINGS, rolled(10), nearby=nearby_breakdown(None, True))
    assert only_roll(outcome).total == 7
    assert "An ally nearby is in a Breakdown: -3 on Action Rolls (E-6)." in outcome.notes


# --- K-3: Disadvantage ----------------------------------------------------------------------------


@pytest.mark.parametrize(("first", "second"), [(15, 6), (6, 15)])
def test_K_3_a_reaction_roll_in_breakdown_keeps_the_lower_of_two(first, second):
    sheet = make(fear=4, breakdown="fear")
    rng = rolled(first, second)
    outcome = check(sheet, SETTINGS, rng, kind=REACTION, target=8)
    kept, other = outcome.rolls
    assert (kept.dice, kept.total, kept.dropped, kept.success) == ((6,), 6, False, False)
    assert (other.dice, other.total, other.dropped) == ((15,), 15, True)
    assert outcome.headline == "Hero's Reaction Roll fails: 6 against 8."
    assert outcome.failed
    assert {"K-3", "E-6"} <= set(outcome.rules)
    assert (
        "Disadvantage (every Reaction Roll in a Breakdown): rolled twice, the lower total counts."
        in outcome.notes
    )
    assert not [n for n in outcome.notes if n.startswith("Related to")]
    assert rng.remaining == 0


def test_K_3_a_tie_keeps_the_first_and_drops_the_second():
    outcome = check(make(anger=4, breakdown="anger"), SETTINGS, rolled(9, 9), kind=REACTION)
    kept, other = outcome.rolls
    assert (kept.total, kept.dropped, other.total, other.dropped) == (9, False, 9, True)


def test_K_3_disadvantage_keeps_the_lower_total_with_every_modifier_on_both():
    sheet = make(vit=7, guilt=4, breakdown="guilt")  # -1 on Reaction Rolls
    outcome = check(sheet, SETTINGS, rolled(4, 3), kind=REACTION, roll="1d6")
    kept, other = outcome.rolls
    assert (kept.value, kept.bonuses, kept.total) == (3, (("injury", -1),), 2)
    assert (other.value, other.bonuses, other.total, other.dropped) == (
        4,
        (("injury", -1),),
        3,
        True,
    )


def test_K_3_an_action_roll_in_breakdown_has_no_disadvantage_unless_related():
    sheet = make(fear=4, breakdown="fear")
    rng = rolled(4, 17)
    outcome = check(sheet, SETTINGS, rng)
    assert only_roll(outcome).total == 4
    assert rng.remaining == 1  # rolled once
    assert "K-3" not in outcome.rules


def test_K_3_E_6_an_unrelated_action_roll_in_breakdown_still_recalls_the_breakdown():
    outcome = check(make(fear=4, breakdown="fear"), SETTINGS, rolled(5))
    assert [n for n in outcome.notes if "Breakdown of Fear" in n and "Disadvantage" in n]


def test_K_3_a_related_action_in_breakdown_has_disadvantage_and_names_the_related_actions():
    sheet = make(fear=4, breakdown="fear")
    outcome = check(sheet, SETTINGS, rolled(17, 4), related=True, target=5)
    kept, other = outcome.rolls
    assert (kept.total, other.total, other.dropped) == (4, 17, True)
    assert outcome.headline == "Hero's Action Roll fails: 4 against 5."
    assert {"K-3", "E-6"} <= set(outcome.rules)
    assert outcome.notes == (
        "Disadvantage (an action related to Fear): rolled twice, the lower total counts.",
        f"Related to Fear: {RELATED_ACTIONS[Emotion.FEAR]}",
    )


def test_K_3_related_outside_a_breakdown_changes_nothing_and_says_so():
    rng = rolled(11, 2)
    outcome = check(make(), SETTINGS, rng, related=True)
    assert only_roll(outcome).total == 11
    assert rng.remaining == 1
    assert outcome.notes == ("No Breakdown: a related action rolls as any other.",)
    assert "K-3" not in outcome.rules


# --- K-4: the Daring Throw and the Reaction Roll offer to raise an emotion ------------------------


def test_K_4_a_daring_throw_is_an_action_roll_that_offers_the_raise():
    sheet = make(vit=7, daily_bonus=True)
    outcome = check(sheet, SETTINGS, rolled(10), daring=True)
    roll = only_roll(outcome)
    assert roll.label == "Daring Throw"
    assert roll.bonuses == (("injury", -3), ("daily bonus", 3))  # an Action Roll's modifiers
    assert outcome.action == "daring_throw"
    assert outcome.headline == "Hero's Daring Throw totals 10."
    assert outcome.raise_cause is EmotionCause.DARING_THROW
    assert {"K-4", "E-10"} <= set(outcome.rules)
    assert "If the Daring Throw stirred an emotion, raise it below (E-10)." in outcome.notes


def test_K_4_every_reaction_roll_offers_the_raise():
    outcome = check(make(), SETTINGS, rolled(10), kind=REACTION)
    assert outcome.raise_cause is EmotionCause.REACTION_ROLL
    assert {"K-4", "E-10"} <= set(outcome.rules)
    assert "If the Reaction Roll stirred an emotion, raise it below (E-10)." in outcome.notes


def test_K_4_a_plain_action_roll_offers_no_raise():
    outcome = check(make(), SETTINGS, rolled(10), target=3)
    assert outcome.raise_cause is None
    assert "K-4" not in outcome.rules and "E-10" not in outcome.rules


def test_K_4_a_daring_throw_is_only_an_action_roll():
    rng = rolled(10)
    with pytest.raises(RuleError, match="A Daring Throw is an Action Roll"):
        check(make(), SETTINGS, rng, kind=REACTION, daring=True)
    assert rng.remaining == 1


def test_K_4_raise_cause_of_a_reaction_roll_in_breakdown_with_disadvantage():
    outcome = check(make(anger=4, breakdown="anger"), SETTINGS, rolled(3, 8), kind=REACTION)
    assert outcome.raise_cause is EmotionCause.REACTION_ROLL
    assert len(outcome.rolls) == 2


# --- K-5: who makes no Check --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fields", "state", "said"),
    [
        ({"vit": 0, "res": 2}, State.UNCONSCIOUS, "a character who is down makes no Check (K-5)"),
        ({"vit": -1, "res": 2}, State.CRITICAL, "a character who is down makes no Check (K-5)"),
        ({"vit": -2, "res": 2}, State.DYING, "a character who is down makes no Check (K-5)"),
        ({"vit": -5, "dead": True}, State.DEAD, "it makes no Check (K-5)"),
        ({"stress": 12, "retired": True}, State.RETIRED, "it makes no Check (K-5)"),
    ],
)
@pytest.mark.parametrize(
    "options",
    [{}, {"kind": "reaction"}, {"push": 1}, {"daring": True}, {"related": True}],
)
def test_K_5_no_check_for_a_character_down_dead_or_retired(fields, state, said, options):
    sheet = make(**fields)
    assert sheet.state is state
    rng = rolled(10, 10)
    with pytest.raises(RuleError) as refused:
        check(sheet, SETTINGS, rng, **options)
    text = str(refused.value)
    assert text.startswith(f"Hero is {state.value}: ")
    assert said in text
    assert refused.value.values == {"name": "Hero"}
    assert rng.remaining == 2  # nothing rolled, nothing spent


def test_K_5_the_refusals_say_what_to_do_instead():
    with pytest.raises(RuleError) as down:
        check(make(vit=0), SETTINGS, rolled(10))
    assert str(down.value).endswith("Its recovery roll is /recover.")
    with pytest.raises(RuleError) as dead:
        check(make(vit=-5, dead=True), SETTINGS, rolled(10))
    assert str(dead.value).endswith("The GM can bring it back with /character revive.")


def test_K_1_the_kind_is_given_as_its_value_too():
    assert check(make(), SETTINGS, rolled(1), kind="reaction").action == "reaction_roll"
    assert check(make(), SETTINGS, rolled(1), kind=ACTION).action == "action_roll"
