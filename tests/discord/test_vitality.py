"""/damage, /heal, /recover, /aid, /odds driven as Discord drives them (seed 000).

Each command: its success path and its refusals, for the owner, another player, the GM (Manage
Server, or the GM role) and a member of another guild. A refusal is ephemeral and changes nothing.
"""

from __future__ import annotations

import pytest

from bot.render.common import STATE_COLOURS, escape
from rules.dice import ScriptedRandom
from rules.models import State
from tests.discord.conftest import assert_refused

RED, ORANGE, GREEN, YELLOW, BLACK = (
    STATE_COLOURS[s][0]
    for s in (State.DYING, State.CRITICAL, State.UP, State.UNCONSCIOUS, State.DEAD)
)


async def unchanged(harness, name, before):
    assert await harness.sheet(name) == before
    assert await harness.history(name) == []


# /damage (H-1, V-7, P-4)


async def test_owner_damage_announces_the_state_change_V_7(harness):
    await harness.add_character("Roryn", vit=1)
    result = await harness.run(harness.owner, "damage", character="Roryn", amount=2)
    assert not result.ephemeral
    embed = result.embed
    assert embed["title"] == "Roryn · Damage"
    assert embed["description"].startswith("**VIT 1 → -1 · Up → Critical**")
    assert embed["color"] == ORANGE
    assert (
        "Injury condition (H-3): -8 on Action Rolls, -2 on Reaction Rolls." in embed["description"]
    )
    assert embed["footer"]["text"] == "Rules: H-1 · V-3 · V-7 · H-3"
    assert (await harness.sheet("Roryn")).vit == -1
    [event] = await harness.history("Roryn")
    assert (event.command, event.user_id, event.inputs) == (
        "damage",
        harness.owner.user_id,
        {"amount": 2},
    )


async def test_damage_to_dying_is_red_H_1(harness):
    await harness.add_character("Roryn", vit=1)
    result = await harness.run(harness.owner, "damage", character="Roryn", amount=3)
    assert result.embed["color"] == RED
    assert "Up → Dying" in result.embed["description"]


async def test_another_player_cannot_damage_P_4(harness):
    before = await harness.add_character("Roryn")
    result = await harness.run(harness.player, "damage", character="Roryn", amount=3)
    assert_refused(result, "belongs to another player", "/character select")
    await unchanged(harness, "Roryn", before)


async def test_gm_damages_any_character_P_2(harness):
    await harness.add_character("Roryn")
    result = await harness.run(harness.gm, "damage", character="Roryn", amount=4)
    assert not result.ephemeral
    assert "VIT 10 → 6" in result.embed["description"]
    [event] = await harness.history("Roryn")
    assert event.user_id == harness.gm.user_id


async def test_the_gm_role_makes_a_gm_P_1(harness):
    before = await harness.add_character("Roryn")
    refused = await harness.run(harness.gm_role, "damage", character="Roryn", amount=1)
    assert_refused(refused, "belongs to another player")
    await unchanged(harness, "Roryn", before)
    await harness.settings(gm_role_id=harness.guild.roles["GM"])
    result = await harness.run(harness.gm_role, "damage", character="Roryn", amount=1)
    assert "VIT 10 → 9" in result.embed["description"]


async def test_a_member_of_another_guild_reaches_nothing_P_2(harness):
    before = await harness.add_character("Roryn")
    result = await harness.run(harness.outsider, "damage", character="Roryn", amount=3)
    assert_refused(result, "No character named Roryn in this server")
    await unchanged(harness, "Roryn", before)


async def test_the_active_character_is_the_default(harness):
    await harness.add_character("Roryn")
    refused = await harness.run(harness.owner, "damage", amount=1)
    assert_refused(refused, "You have no active character", "/character select")
    await harness.select(harness.owner, "Roryn")
    result = await harness.run(harness.owner, "damage", amount=1)
    assert result.embed["title"] == "Roryn · Damage"
    assert (await harness.sheet("Roryn")).vit == 9


@pytest.mark.parametrize("amount", [0, -5, 10_001])
async def test_the_bot_checks_the_declared_range_again(harness, amount):
    before = await harness.add_character("Roryn")
    result = await harness.run(harness.owner, "damage", character="Roryn", amount=amount)
    assert_refused(result, "`amount` must be between 1 and 10000")
    await unchanged(harness, "Roryn", before)


async def test_damage_to_the_dead_is_refused_V_5(harness):
    before = await harness.add_character("Roryn", vit=-3, dead=True)
    result = await harness.run(harness.gm, "damage", character="Roryn", amount=1)
    assert_refused(result, "Roryn is Dead", "/character revive")
    await unchanged(harness, "Roryn", before)


async def test_names_are_escaped_and_nothing_pings(harness):
    await harness.add_character("*Ro*_@everyone")
    result = await harness.run(harness.owner, "damage", character="*ro*_@everyone", amount=1)
    title = result.embed["title"]
    assert title == escape("*Ro*_@everyone") + " · Damage"
    assert "@everyone" not in title and "\\*Ro\\*" in title
    assert result.requests[0].payload["data"]["allowed_mentions"] == {"parse": []}


async def test_instant_death_rule_V_6(harness):
    await harness.settings(death_rule="instant")
    await harness.add_character("Roryn", vit=1)
    result = await harness.run(harness.owner, "damage", character="Roryn", amount=2)
    assert "VIT 1 → -1 · Up → Dead" in result.embed["description"]
    assert result.embed["color"] == BLACK


# /heal (H-2)


async def test_heal_wakes_a_critical_character_H_2(harness):
    await harness.add_character("Roryn", vit=-1)
    result = await harness.run(harness.owner, "heal", character="Roryn", amount=3)
    assert not result.ephemeral
    assert result.embed["title"] == "Roryn · Magic healing"
    assert result.embed["description"].startswith("**VIT -1 → 2 · Critical → Up**")
    assert result.embed["color"] == GREEN


async def test_heal_permissions_P_4(harness):
    before = await harness.add_character("Roryn", vit=5)
    assert_refused(await harness.run(harness.player, "heal", character="Roryn", amount=1), "owner")
    assert_refused(
        await harness.run(harness.outsider, "heal", character="Roryn", amount=1), "No character"
    )
    await unchanged(harness, "Roryn", before)
    result = await harness.run(harness.gm, "heal", character="Roryn", amount=100)
    assert "VIT 5 → 10" in result.embed["description"]


async def test_heal_range_is_checked_again(harness):
    await harness.add_character("Roryn", vit=5)
    assert_refused(
        await harness.run(harness.owner, "heal", character="Roryn", amount=10_001), "`amount`"
    )


# /recover (R-1..R-8, D-4, D-5)


async def test_outside_combat_only_the_gm_calls_a_recovery_roll_R_8(harness):
    before = await harness.add_character("Roryn", vit=-1)
    harness.script("C")
    assert_refused(await harness.run(harness.owner, "recover", character="Roryn"), "(R-8)")
    assert_refused(await harness.run(harness.player, "recover", character="Roryn"), "owner")
    assert_refused(
        await harness.run(harness.outsider, "recover", character="Roryn"), "No character"
    )
    await unchanged(harness, "Roryn", before)
    result = await harness.run(harness.gm, "recover", character="Roryn")
    assert not result.ephemeral
    embed = result.embed
    assert embed["title"] == "Roryn · Recovery roll"
    assert embed["description"].startswith("**VIT -1 → 0 · Critical → Unconscious**")
    assert embed["color"] == YELLOW
    [field] = embed["fields"]
    assert field["value"] == "◉ C\n1 Crit"  # D-4: every face, symbol and letter


async def test_in_combat_the_owner_rolls_once_per_round_R_8(harness):
    await harness.add_character("Roryn", vit=0, res=3)
    await harness.start_combat(["Roryn"])
    harness.script("MHM")
    result = await harness.run(harness.owner, "recover", character="Roryn")
    assert result.embed["fields"][0]["value"] == "○ M  ● H  ○ M\n1 Hit · 2 Misses"
    assert "No change." in result.embed["description"]
    again = await harness.run(harness.owner, "recover", character="Roryn")
    assert_refused(again, "already made its recovery roll this round")


async def test_the_last_gasp_is_public_and_can_kill_R_5(harness):
    await harness.add_character("Roryn", vit=-2)
    harness.script("H")
    result = await harness.run(harness.gm, "recover", character="Roryn")
    assert not result.ephemeral
    assert result.embed["title"] == "Roryn · The Last Gasp"
    assert "Dying → Dead" in result.embed["description"]
    assert result.embed["color"] == BLACK
    assert (await harness.sheet("Roryn")).dead


async def test_faces_rolled_by_hand_wake_the_unconscious_D_5_R_2_V_2(harness):
    await harness.add_character("Roryn", vit=0)
    result = await harness.run(harness.gm, "recover", character="Roryn", faces="C H")
    assert result.embed["description"].startswith("**VIT 0 → 1 · Unconscious → Up**")
    [field] = result.embed["fields"]
    assert field["name"].endswith("· entered by hand")
    assert field["value"] == "◉ C  ● H\n1 Crit · 1 Hit"


async def test_wrong_faces_are_refused_and_change_nothing(harness):
    before = await harness.add_character("Roryn", vit=0)
    result = await harness.run(harness.gm, "recover", character="Roryn", faces="C")
    assert_refused(result, "This roll is 2 dice")
    await unchanged(harness, "Roryn", before)


async def test_advantage_shows_the_reroll_D_3(harness):
    await harness.add_character("Roryn", vit=-1, advantage=True)
    harness.script("MC")
    result = await harness.run(harness.gm, "recover", character="Roryn")
    [field] = result.embed["fields"]
    assert field["name"].endswith("· advantage")
    assert field["value"] == "○ M → ◉ C\n1 Crit"
    assert "Advantage yes → no" in result.embed["description"]


async def test_recover_refuses_a_character_that_is_up(harness):
    await harness.add_character("Roryn")
    assert_refused(await harness.run(harness.gm, "recover", character="Roryn"), "is Up")


# /aid (F-1): any member may give aid


async def test_any_member_gives_first_aid_F_1(harness):
    await harness.add_character("Roryn", vit=-1)
    result = await harness.run(harness.player, "aid", character="Roryn", success=True)
    assert not result.ephemeral
    assert result.embed["title"] == "Roryn · First aid"
    assert "Advantage no → yes" in result.embed["description"]
    assert (await harness.sheet("Roryn")).advantage


async def test_aid_rolled_by_the_bot_F_1(harness):
    await harness.add_character("Roryn", vit=-1)
    harness.script_values(12)
    result = await harness.run(harness.gm, "aid", character="Roryn", roll="1d20+3", target=10)
    [field] = result.embed["fields"]
    assert field == {
        "name": "Medicine check",
        "value": "`1d20+3` [12] = **15** vs 10: success",
        "inline": False,
    }


async def test_aid_refusals(harness):
    before = await harness.add_character("Roryn", vit=-1)
    both = await harness.run(harness.owner, "aid", character="Roryn", success=True, roll="1d20")
    assert_refused(both, "not both")
    outsider = await harness.run(harness.outsider, "aid", character="Roryn", success=True)
    assert_refused(outsider, "No character named Roryn")
    await unchanged(harness, "Roryn", before)


# /odds (D-2, R-*)


async def test_odds_are_exact_and_change_nothing(harness):
    before = await harness.add_character("Roryn", vit=-2)
    result = await harness.run(harness.player, "odds", character="Roryn")
    assert not result.ephemeral
    embed = result.embed
    assert embed["title"] == "Roryn · odds of the next Last Gasp (R-5)"
    next_roll, with_advantage, spiral = embed["fields"]
    assert next_roll["value"] == (
        "5/6 (83.33%): Dead\n1/6 (16.67%): stabilise at VIT 0, now Unconscious"
    )
    assert with_advantage["value"].startswith("3/4 (75.00%): Dead")
    assert spiral["value"].splitlines()[0] == " 1: up 0% · down 16.67% · dead 83.33%"
    await unchanged(harness, "Roryn", before)


async def test_odds_refusals(harness):
    await harness.add_character("Roryn")
    assert_refused(await harness.run(harness.owner, "odds", character="Roryn"), "Roryn is Up")
    assert_refused(await harness.run(harness.outsider, "odds", character="Roryn"), "No character")
    assert_refused(await harness.run(harness.owner, "odds"), "no active character")


async def test_odds_follow_the_guild_die(harness):
    await harness.settings(die_faces="MHC")
    await harness.add_character("Roryn", vit=-2)
    result = await harness.run(harness.gm, "odds", character="Roryn")
    assert result.embed["fields"][0]["value"].startswith("2/3 (66.67%): Dead")
    assert isinstance(harness.bot.rng, ScriptedRandom)  # nothing was rolled
    assert harness.bot.rng.remaining == 0


async def test_the_owner_reports_a_failed_check_F_1(harness):
    await harness.add_character("Roryn", vit=0)
    result = await harness.run(harness.owner, "aid", character="Roryn", success=False)
    assert not result.ephemeral
    assert result.embed["description"] == (
        "No change.\n\nThe Medicine check fails: Roryn gets no advantage."
    )


async def test_recovery_dice_are_not_spent_R_7(harness):
    """Two rolls without a Crit: the second rolls as many dice as the first; nothing is kept."""
    await harness.add_character("Roryn", vit=0, res=3)
    await harness.start_combat(["Roryn"])
    harness.script("MHMHMM")
    first = await harness.run(harness.owner, "recover", character="Roryn")
    await harness.update("Roryn", recovered_this_round=False)  # the next round (C-1)
    second = await harness.run(harness.owner, "recover", character="Roryn")
    assert first.embed["fields"][0]["value"] == "○ M  ● H  ○ M\n1 Hit · 2 Misses"
    assert second.embed["fields"][0]["value"] == "● H  ○ M  ○ M\n1 Hit · 2 Misses"
    sheet = await harness.sheet("Roryn")
    assert (sheet.vit, sheet.res, sheet.recovery_dice) == (0, 3, 3)


async def test_the_heaviest_answers_come_well_within_discords_3_seconds(harness):
    """No command defers: the biggest roll and the biggest odds table answer directly."""
    import time

    await harness.add_character("Roryn", max_vit=999, vit=0, res=20)
    harness.script("M" * 20)
    for command in ("odds", "recover"):
        started = time.perf_counter()
        result = await harness.run(harness.gm, command, character="Roryn")
        assert time.perf_counter() - started < 1.5, command
        assert result.requests[0].payload["type"] == 4  # answered in the first response
        assert len(result.embed["fields"]) <= 25
