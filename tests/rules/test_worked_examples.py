"""The three worked examples of the Death & Recovery rules, step by step (R-2, R-3, R-5)."""

from __future__ import annotations

from rules.models import State
from rules.vitality import damage, recover
from tests.rules.conftest import COMBAT, dice, make


def test_R_2_roryn_wakes_from_unconscious(settings):
    # Roryn, RES 2, hits VIT 0; her 2 dice show a Hit and a Crit: she wakes at VIT 1.
    roryn = damage(make(name="Roryn", vit=3, res=2), 3, settings).after
    assert roryn.state is State.UNCONSCIOUS
    assert roryn.recovery_dice == 2
    outcome = recover(roryn, settings, dice("HC"), **COMBAT)
    assert outcome.rolls[0].faces == ("H", "C")
    assert outcome.after.vit == 1
    assert outcome.after.state is State.UP
    assert [str(c) for c in outcome.changes] == ["VIT 0 → 1", "State Unconscious → Up"]
    assert outcome.headline == "Roryn wakes up! One Crit: VIT 1/10."


def test_R_3_taomkin_stabilises_from_critical(settings):
    # Taomkin, RES 3, at 1 VIT takes 2 damage: -1 VIT, Critical, 3 - 1 = 2 dice.
    hit = damage(make(name="Taomkin", vit=1, res=3), 2, settings)
    taomkin = hit.after
    assert [str(c) for c in hit.changes] == ["VIT 1 → -1", "State Up → Critical"]
    assert taomkin.recovery_dice == 2
    # a Miss and a Crit: stabilised at 0 VIT, unconscious
    outcome = recover(taomkin, settings, dice("MC"), **COMBAT)
    assert outcome.rolls[0].faces == ("M", "C")
    assert outcome.after.vit == 0
    assert outcome.after.state is State.UNCONSCIOUS
    assert outcome.headline == "Stabilised! One Crit: Taomkin is Unconscious at VIT 0."
    # next turn he tries an Unconscious Recovery Roll with his 3 dice
    assert outcome.after.recovery_dice == 3


def test_R_5_lenora_fails_her_last_gasp(settings):
    # Lenora's Recovery Dice are exhausted: Dying, 1 Last Gasp die; a single dot (Hit): dead.
    lenora = make(name="Lenora", vit=-2, res=2)
    assert lenora.state is State.DYING
    outcome = recover(lenora, settings, dice("H"), **COMBAT)
    assert outcome.rolls[0].label == "Last Gasp"
    assert outcome.rolls[0].faces == ("H",)
    assert outcome.after.state is State.DEAD
    assert outcome.public
    assert str(outcome.state_change) == " Dying → Dead"
    assert outcome.headline == "The Last Gasp fails: Lenora is dead."
