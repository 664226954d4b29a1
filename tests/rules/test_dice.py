"""Narateer dice: D-1..D-5."""

from __future__ import annotations

import random

import pytest

from rules.dice import ScriptedRandom, manual_narateer, roll_narateer
from rules.errors import RuleError
from rules.models import GuildSettings
from rules.rolls import NarateerRoll
from tests.rules.conftest import DIE, dice


def test_D_1_faces_are_miss_hit_crit_and_crits_count_two_dots():
    roll = roll_narateer(3, DIE, ScriptedRandom([0, 3, 5]), label="r")
    assert roll.faces == ("M", "H", "C")
    assert roll.crits == 1


def test_D_1_every_rolled_face_is_one_of_the_three_results():
    roll = roll_narateer(200, DIE, random.Random(7), label="r")
    assert set(roll.faces) == {"M", "H", "C"}


def test_D_2_default_die_is_three_miss_two_hit_one_crit():
    assert GuildSettings().die_faces == "MMMHHC"
    rng = ScriptedRandom(range(6))
    assert roll_narateer(6, DIE, rng, label="r").faces == tuple("MMMHHC")


def test_D_2_a_guild_die_is_used_face_by_index():
    rng = ScriptedRandom([0, 1, 2])
    assert roll_narateer(3, "CHM", rng, label="r").faces == ("C", "H", "M")


def test_D_2_guild_faces_are_validated():
    with pytest.raises(ValueError):
        GuildSettings(die_faces="MMHH")  # no Crit
    assert GuildSettings(die_faces="mhc").die_faces == "MHC"


def test_D_3_advantage_rerolls_every_miss_once_and_keeps_both():
    # first roll M H M, then the two Misses are rerolled to C and M
    rng = dice("MHM" + "CM")
    roll = roll_narateer(3, DIE, rng, advantage=True, label="r")
    assert roll.faces == ("M", "H", "M")
    assert roll.rerolls == ("C", None, "M")
    assert roll.final == ("C", "H", "M")
    assert roll.crits == 1
    assert rng.remaining == 0


def test_D_3_advantage_without_a_miss_rolls_nothing_more():
    rng = dice("HC")
    roll = roll_narateer(2, DIE, rng, advantage=True, label="r")
    assert roll.rerolls == (None, None)
    assert roll.final == ("H", "C")


def test_D_4_every_face_is_kept_not_only_the_summary():
    roll = roll_narateer(4, DIE, dice("CCMH"), label="Recovery")
    assert roll.faces == ("C", "C", "M", "H")
    assert roll.label == "Recovery"


def test_D_5_scripted_random_replays_exactly():
    first = roll_narateer(5, DIE, dice("MHCMC"), label="r")
    again = roll_narateer(5, DIE, dice("MHCMC"), label="r")
    assert first == again
    assert first.faces == tuple("MHCMC")


def test_D_5_seeded_random_is_reproducible():
    a = roll_narateer(10, DIE, random.Random(42), advantage=True, label="r")
    b = roll_narateer(10, DIE, random.Random(42), advantage=True, label="r")
    assert a == b


def test_D_5_scripted_random_checks_its_range_and_length():
    rng = ScriptedRandom([6])
    with pytest.raises(ValueError):
        rng.randrange(6)
    rng = ScriptedRandom([3, 10])
    assert rng.randrange(1, 4) == 3
    assert rng.randint(1, 10) == 10
    with pytest.raises(IndexError):
        rng.randint(1, 10)


def test_D_5_manual_faces_any_case_with_or_without_spaces():
    roll = manual_narateer("c h m", 3, DIE, advantage=False, label="r")
    assert roll.faces == ("C", "H", "M")
    assert roll.manual is True
    assert manual_narateer("CHM", 3, DIE, advantage=False, label="r").faces == ("C", "H", "M")
    assert manual_narateer(" c,H  m ", 3, DIE, advantage=False, label="r").crits == 1


def test_D_5_manual_faces_need_exactly_the_dice_due():
    with pytest.raises(RuleError, match="exactly 2 letters"):
        manual_narateer("C H M", 2, DIE, advantage=False, label="r")
    with pytest.raises(RuleError, match="exactly 1 letter"):
        manual_narateer("CC", 1, DIE, advantage=False, label="r")
    with pytest.raises(RuleError, match="exactly 5 letters"):
        manual_narateer("C", 5, DIE, advantage=False, label="r")


def test_D_5_manual_faces_only_m_h_c():
    with pytest.raises(RuleError, match="M \\(Miss\\), H \\(Hit\\) or C \\(Crit\\)"):
        manual_narateer("C X", 2, DIE, advantage=False, label="r")
    with pytest.raises(RuleError, match="one per die"):
        manual_narateer("", 1, DIE, advantage=False, label="r")
    with pytest.raises(RuleError, match="one per die"):
        manual_narateer("2", 1, DIE, advantage=False, label="r")


def test_D_5_manual_faces_with_advantage_are_the_faces_after_the_reroll():
    with pytest.raises(RuleError, match="after rerolling the Misses"):
        manual_narateer("C", 2, DIE, advantage=True, label="r")
    roll = manual_narateer("C M", 2, DIE, advantage=True, label="r")
    assert isinstance(roll, NarateerRoll)
    assert roll.final == ("C", "M")


def test_D_5_manual_faces_must_exist_on_the_guild_die():
    with pytest.raises(RuleError, match="has no Hit face"):
        manual_narateer("H C", 2, "MMC", advantage=False, label="r")
