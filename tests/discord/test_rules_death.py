"""V-6, V-8, R-5, R-6 (and /odds following it), H-2 through the command tree (docs/rules.md,
Vitality states, Recovery rolls, Damage and healing): payload in, exact dice, reply and database
out; a refusal leaves every table as it was. On SQLite, and on PostgreSQL when
TEST_DATABASE_URL names a server."""

from __future__ import annotations

import pytest

from bot.render.common import LAST_GASP_COLOUR, STATE_COLOURS
from rules.models import State
from tests.discord.conftest import lines

KILLED = (
    "**Killed outright: Roryn dies at VIT {vit}, for this server plays with instant death "
    "(VIT below 0).**"
)


@pytest.fixture
def harness(any_harness):
    return any_harness


# --- V-6: instant death, from any cause, with the reason in the reply -------------------------


async def test_V_6_damage_below_0_kills_and_says_why(harness):
    await harness.settings(death_rule="instant")
    await harness.add_character("Roryn", vit=2)
    result = await harness.run(harness.owner, "damage", character="Roryn", amount=3)
    assert result.card.title == "💀 Roryn · Damage"
    assert lines(result)[:2] == [KILLED.format(vit=-1), "VIT 2 → -1 · Up → Dead"]
    assert result.card.colour == STATE_COLOURS[State.DEAD]
    assert result.card.small == "Rules: V-6 · H-1 · V-5"  # the headline's rule first
    assert (await harness.sheet("Roryn")).dead


async def test_V_6_a_vit_lost_on_a_critical_roll_kills(harness):
    """The issue's case: under instant death a Critical roll's lost VIT left a living
    Critical character."""
    await harness.add_character("Roryn", res=3)
    await harness.update("Roryn", vit=-1)  # Critical from before the setting
    await harness.settings(death_rule="instant")
    harness.script("M M")  # all Misses: R-4 costs 1 VIT
    result = await harness.run(harness.gm, "recover", character="Roryn")
    assert result.card.title == "💀 Roryn · Recovery roll"
    assert lines(result)[:3] == [
        KILLED.format(vit=-2),
        "VIT -1 → -2 · Critical → Dead",
        "Critical recovery roll: ⬜ ⬜  2 Misses",
    ]
    assert "V-6" in result.card.small
    assert (await harness.sheet("Roryn")).dead


async def test_V_6_the_gm_setting_vit_below_0_kills(harness):
    await harness.settings(death_rule="instant")
    await harness.add_character("Roryn")
    result = await harness.run(harness.gm, "character set", character="Roryn", vit=-1)
    assert lines(result)[:2] == [KILLED.format(vit=-1), "VIT 10 → -1 · Up → Dead"]
    assert (await harness.sheet("Roryn")).dead


async def test_V_6_vit_0_still_follows_V_2(harness):
    await harness.settings(death_rule="instant")
    await harness.add_character("Roryn", vit=3)
    result = await harness.run(harness.owner, "damage", character="Roryn", amount=3)
    assert lines(result)[:2] == [
        "**Roryn falls Unconscious at VIT 0: a recovery roll is due at its next turn.**",
        "VIT 3 → 0 · Up → Unconscious",
    ]
    assert not (await harness.sheet("Roryn")).dead


async def test_V_6_thresholds_by_default(harness):
    await harness.add_character("Roryn", vit=2)
    result = await harness.run(harness.owner, "damage", character="Roryn", amount=3)
    assert lines(result)[1] == "VIT 2 → -1 · Up → Critical"


async def test_V_6_the_reply_of_an_instant_death_says_nothing_of_a_roll_to_come(harness):
    """The headline the death replaced ('Roryn sinks to Critical at VIT -1: 2 recovery dice
    …') was once kept as a note, telling the table of a Dead character that it will roll."""
    await harness.settings(death_rule="instant")
    await harness.add_character("Roryn", res=3, vit=0)
    result = await harness.run(harness.owner, "damage", character="Roryn", amount=1)
    assert lines(result)[0] == KILLED.format(vit=-1)
    rest = " ".join(lines(result)[1:])
    assert "Critical at" not in rest and "recovery dice" not in rest


# --- V-8: damage while Dying ---------------------------------------------------------------------


async def test_V_8_by_default_a_dying_character_still_rolls_its_last_gasp(harness):
    await harness.add_character("Roryn", vit=-3)
    result = await harness.run(harness.owner, "damage", character="Roryn", amount=4)
    assert result.card.title == "🔴 Roryn · Damage"
    assert lines(result) == [
        "**Roryn takes 4 damage and is still Dying at VIT -7: the Last Gasp decides, at its "
        "next turn.**",
        "VIT -3 → -7",
    ]
    assert result.card.small == "Rules: H-1 · V-8 · H-3"
    sheet = await harness.sheet("Roryn")
    assert (sheet.vit, sheet.state) == (-7, State.DYING)


async def test_V_8_dying_damage_kills(harness):
    await harness.settings(dying_damage="kills")
    await harness.add_character("Roryn", vit=-3)
    result = await harness.run(harness.owner, "damage", character="Roryn", amount=1)
    assert result.card.title == "💀 Roryn · Damage"
    assert lines(result) == [
        "**Roryn dies: on this server any damage to a Dying character kills.**",
        "VIT -3 → -4 · Dying → Dead",
    ]
    assert (await harness.sheet("Roryn")).dead


async def test_V_8_kills_only_the_dying(harness):
    await harness.settings(dying_damage="kills")
    await harness.add_character("Roryn", vit=-1, res=3)
    result = await harness.run(harness.owner, "damage", character="Roryn", amount=1)
    assert lines(result)[1] == "VIT -1 → -2"  # Critical, one die left: not yet Dying
    assert not (await harness.sheet("Roryn")).dead


# --- the Last Gasp -----------------------------------------------------------------------


async def test_R_5_a_crit_stabilises_at_vit_0_unconscious(harness):
    await harness.add_character("Roryn", vit=-4)
    harness.script("C")
    result = await harness.run(harness.gm, "recover", character="Roryn")
    assert not result.ephemeral  # always public
    assert result.card.title == "🟡 Roryn · The Last Gasp"
    assert lines(result) == [
        "**A Crit on the Last Gasp: Roryn survives, stabilised and Unconscious at VIT 0.**",
        "VIT -4 → 0 · Dying → Unconscious",
        "Last Gasp: 💥  1 Crit",
    ]
    assert result.card.colour == LAST_GASP_COLOUR
    [(name, png)] = result.reply.files
    assert result.card.pictures == (name,) and png.startswith(b"\x89PNG")


async def test_R_5_with_res_0_a_crit_leaves_it_dying_and_says_so(harness):
    await harness.add_character("Roryn", res=0, vit=-2)
    harness.script("C")
    result = await harness.run(harness.gm, "recover", character="Roryn")
    assert result.card.title == "🔴 Roryn · The Last Gasp"
    assert lines(result) == [
        "**A Crit on the Last Gasp: Roryn survives, but with RES 0 it is still Dying: another Last "
        "Gasp at its next turn.**",
        "VIT -2 → 0",
        "Last Gasp: 💥  1 Crit",
    ]
    sheet = await harness.sheet("Roryn")
    assert (sheet.vit, sheet.state, sheet.dead) == (0, State.DYING, False)
    # ... and its next roll is a Last Gasp again
    harness.script("H")
    again = await harness.run(harness.gm, "recover", character="Roryn")
    assert lines(again)[0] == "**The Last Gasp fails: Roryn is dead.**"


@pytest.mark.parametrize("face", ["M", "H"])
async def test_R_5_anything_but_a_crit_is_dead(harness, face):
    await harness.add_character("Roryn", vit=-2)
    harness.script(face)
    result = await harness.run(harness.gm, "recover", character="Roryn")
    assert result.card.title == "💀 Roryn · The Last Gasp"
    assert lines(result)[:2] == [
        "**The Last Gasp fails: Roryn is dead.**",
        "VIT -2 · Dying → Dead",
    ]
    assert result.card.colour == LAST_GASP_COLOUR  # its own colour, whatever its verdict
    assert not result.card.buttons
    assert (await harness.sheet("Roryn")).dead


async def test_R_5_a_dead_character_rolls_no_more(harness):
    await harness.add_character("Roryn", vit=-2, dead=True)
    await harness.refusal(
        harness.gm, "recover", "Roryn is Dead: a recovery roll is not possible", character="Roryn"
    )


# --- advantage on the Last Gasp, by the guild setting ----------------------------------


async def test_R_6_by_default_advantage_rerolls_the_last_gasps_miss(harness):
    await harness.add_character("Roryn", vit=-2, advantage=True)
    harness.script("M C")
    result = await harness.run(harness.gm, "recover", character="Roryn")
    assert lines(result)[:3] == [
        "**A Crit on the Last Gasp: Roryn survives, stabilised and Unconscious at VIT 0.**",
        "VIT -2 → 0 · Dying → Unconscious",
        "Last Gasp · advantage: (⬜→💥)  1 Crit",  # the Miss beside its new face
    ]
    assert result.card.small.startswith("advantage used · Rules: R-5")
    assert not (await harness.sheet("Roryn")).advantage


async def test_R_6_last_gasp_advantage_no_keeps_it_for_the_next_roll(harness):
    await harness.settings(last_gasp_advantage="no")
    await harness.add_character("Roryn", vit=-2, advantage=True)
    harness.script("C")  # one die, never rerolled
    result = await harness.run(harness.gm, "recover", character="Roryn")
    assert lines(result) == [
        "**A Crit on the Last Gasp: Roryn survives, stabilised and Unconscious at VIT 0.**",
        "VIT -2 → 0 · Dying → Unconscious",
        "Last Gasp: 💥  1 Crit",
        "On this server advantage does not apply to the Last Gasp: it waits for the next "
        "recovery roll.",
    ]
    assert (await harness.sheet("Roryn")).advantage
    # the next recovery roll (Unconscious, RES 2: two dice) has it
    harness.script("M M C H")
    woke = await harness.run(harness.gm, "recover", character="Roryn")
    assert lines(woke)[:3] == [
        "**Roryn wakes up! One Crit: VIT 1/10.**",
        "VIT 0 → 1 · Unconscious → Up",
        "Unconscious recovery roll · advantage: (⬜→💥) (⬜→⚪)  1 Crit · 1 Hit",
    ]
    assert not (await harness.sheet("Roryn")).advantage


async def test_R_6_a_miss_on_the_last_gasp_without_advantage_kills(harness):
    await harness.settings(last_gasp_advantage="no")
    await harness.add_character("Roryn", vit=-2, advantage=True)
    script = harness.script("M C")
    result = await harness.run(harness.gm, "recover", character="Roryn")
    assert lines(result)[:3] == [
        "**The Last Gasp fails: Roryn is dead.**",
        "VIT -2 · Dying → Dead",
        "Last Gasp: ⬜  1 Miss",
    ]  # and no note of advantage waiting: the dead roll no more (issue 21)
    assert script.remaining == 1  # the Miss was not rerolled


@pytest.mark.parametrize(
    ("setting", "dead"),
    [("yes", "3/4 (75.00%): Dead"), ("no", "5/6 (83.33%): Dead")],
)
async def test_R_6_odds_follow_last_gasp_advantage(harness, setting, dead):
    await harness.settings(last_gasp_advantage=setting)
    await harness.add_character("Roryn", vit=-2, advantage=True)
    result = await harness.run(harness.owner, "odds", character="Roryn")
    assert dead in lines(result)


async def test_R_6_odds_do_not_promise_advantage_to_a_last_gasp_that_has_none(harness):
    """Under last_gasp_advantage:no the odds once read 'with advantage from first aid' for a
    Last Gasp that is never rerolled; they say the advantage waits, and offer no F-1 line."""
    await harness.settings(last_gasp_advantage="no")
    await harness.add_character("Roryn", vit=-2, advantage=True)
    result = await harness.run(harness.owner, "odds", character="Roryn")
    assert lines(result)[1:3] == [
        "Dying at VIT -2/10: the Last Gasp is 1 die (each: Crit 1 in 6, Hit 2 in 6, Miss 3 in 6).",
        "Its advantage from first aid waits: on this server it does not apply to the Last Gasp "
        "(R-6).",
    ]
    assert "(F-1)" not in result.card.body
    assert result.card.small.startswith("Rules: R-5 · R-6")


# --- H-2: magic healing, and healing that changes nothing --------------------------------------


async def test_H_2_healing_that_changes_nothing_says_so_and_why(harness):
    """The issue's case: RES 0 at VIT 0 healed by 1 said nothing."""
    await harness.add_character("Roryn", res=0, vit=0)
    result = await harness.run(harness.owner, "heal", character="Roryn", amount=1)
    assert not result.ephemeral
    assert result.card.title == "🔴 Roryn · Magic healing"
    assert lines(result) == [
        "**The healing changes nothing: Roryn is still Dying at VIT 0.**",
        "The first point of healing only stabilises at VIT 0, where it already is; with RES 0, "
        "VIT 0 is still Dying. Heal 2 or more to wake it.",
    ]
    assert (await harness.sheet("Roryn")).vit == 0


async def test_H_2_healing_2_wakes_a_dying_character(harness):
    await harness.add_character("Roryn", res=0, vit=-3)
    result = await harness.run(harness.owner, "heal", character="Roryn", amount=2)
    assert lines(result)[:2] == ["**Roryn wakes up at VIT 1/10.**", "VIT -3 → 1 · Dying → Up"]


async def test_H_2_healing_1_lifts_a_res_0_character_to_0_still_dying(harness):
    await harness.add_character("Roryn", res=0, vit=-3)
    result = await harness.run(harness.owner, "heal", character="Roryn", amount=1)
    assert lines(result) == [
        "**Roryn rises to VIT 0, but with RES 0 it is still Dying: heal 2 or more to wake it.**",
        "VIT -3 → 0",
    ]


async def test_H_2_healing_the_unconscious_sets_vit_to_the_amount(harness):
    await harness.add_character("Roryn", vit=0)
    result = await harness.run(harness.owner, "heal", character="Roryn", amount=4)
    assert lines(result)[:2] == ["**Roryn wakes up at VIT 4/10.**", "VIT 0 → 4 · Unconscious → Up"]


async def test_H_4_waking_clears_an_unused_advantage(harness):
    await harness.add_character("Roryn", vit=-1, advantage=True)
    result = await harness.run(harness.owner, "heal", character="Roryn", amount=3)
    assert "H-4" in (await harness.history("Roryn"))[0].rules
    assert not (await harness.sheet("Roryn")).advantage
    assert result.card.small.endswith("Rules: H-2 · H-4 · V-1")


async def test_H_4_an_advantage_lost_on_waking_is_not_said_used(harness):
    """H-4 clears an advantage that was never used: the reply once said 'advantage used'."""
    await harness.add_character("Roryn", vit=-1, advantage=True)
    result = await harness.run(harness.owner, "heal", character="Roryn", amount=3)
    assert result.card.small == "advantage lost on waking · Rules: H-2 · H-4 · V-1"
