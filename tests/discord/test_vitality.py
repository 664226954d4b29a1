"""/damage, /heal, /recover, /aid, /odds driven as Discord drives them (docs/rules.md, Death and
recovery).

Each command: its success path and its refusals, for the owner, another player, the GM (Manage
Server, or the GM role) and a member of another guild. A result opens with its headline, then
the change line, the dice (text faces here: the application's emoji are not registered), the
notes; bookkeeping and at most three rule IDs in the footer (docs/commands.md, "What every reply
does"). A refusal is private plain text and changes nothing.
"""

from __future__ import annotations

import time

import pytest

from bot.render.common import FAILURE_COLOUR, LAST_GASP_COLOUR, STATE_COLOURS, escape
from rules.models import State
from tests.discord.conftest import assert_refused, lines

RED, ORANGE, GREEN, YELLOW, CRIMSON = (
    STATE_COLOURS[s] for s in (State.DYING, State.CRITICAL, State.UP, State.UNCONSCIOUS, State.DEAD)
)


async def unchanged(harness, name, before):
    """A refusal: the sheet as it was, nothing logged."""
    assert await harness.sheet(name) == before
    assert await harness.history(name, bookkeeping=True) == []


def buttons(result) -> list[tuple[str, str]]:
    """(label, custom id) of every button of the reply."""
    return [(b.label, b.custom_id) for b in result.card.buttons]


# /damage (H-1, V-7, P-4)


async def test_owner_damage_announces_the_state_change_V_7(harness):
    await harness.add_character("Roryn", vit=1)
    result = await harness.run(harness.owner, "damage", character="Roryn", amount=2)
    assert not result.ephemeral
    card = result.card
    assert card.title == "🟠 Roryn · Damage"
    assert lines(result) == [
        "**Roryn collapses, Critical at VIT -1: 1 recovery die at its next turn.**",
        "VIT 1 → -1 · Up → Critical",
    ]
    assert card.colour == ORANGE
    assert card.small == "Rules: H-1 · V-3 · V-7"
    row = await harness.row("Roryn")
    assert buttons(result) == [
        ("Recovery roll", f"lg:recover:{row.id}:-1:2"),
        ("Odds", f"lg:odds:{row.id}"),
    ]
    assert row.sheet.vit == -1
    [event] = await harness.history("Roryn")
    assert (event.command, event.user_id, event.inputs) == (
        "damage",
        harness.owner.user_id,
        {"amount": 2},
    )


async def test_damage_that_leaves_the_character_up_notes_the_injury_H_3(harness):
    await harness.add_character("Roryn")
    result = await harness.run(harness.owner, "damage", character="Roryn", amount=9)
    assert lines(result) == [
        "**Roryn takes 9 damage.**",
        "VIT 10 → 1",
        "Injury: -8 on Action Rolls, -2 on Reaction Rolls.",
    ]
    assert result.card.colour == GREEN
    assert not result.card.buttons  # no roll is due: no button


async def test_damage_to_dying_is_red_and_offers_the_last_gasp_H_1(harness):
    await harness.add_character("Roryn", vit=1)
    result = await harness.run(harness.owner, "damage", character="Roryn", amount=3)
    assert result.card.colour == RED
    assert result.card.title == "🔴 Roryn · Damage"
    assert lines(result)[:2] == [
        "**Roryn is Dying at VIT -2: only the Last Gasp is left, at its next turn.**",
        "VIT 1 → -2 · Up → Dying",
    ]
    [(label, custom_id), _odds] = buttons(result)
    assert label == "Roll the Last Gasp" and custom_id.endswith(":-2:2")


async def test_another_player_cannot_damage_P_4(harness):
    before = await harness.add_character("Roryn")
    result = await harness.run(harness.player, "damage", character="Roryn", amount=3)
    assert_refused(result, "belongs to another player", "(P-4)", "/character select")
    await unchanged(harness, "Roryn", before)


async def test_gm_damages_any_character_P_2(harness):
    await harness.add_character("Roryn")
    result = await harness.run(harness.gm, "damage", character="Roryn", amount=4)
    assert not result.ephemeral
    assert "VIT 10 → 6" in lines(result)
    [event] = await harness.history("Roryn")
    assert event.user_id == harness.gm.user_id


async def test_the_gm_role_makes_a_gm_P_1(harness):
    before = await harness.add_character("Roryn")
    refused = await harness.run(harness.gm_role, "damage", character="Roryn", amount=1)
    assert_refused(refused, "belongs to another player")
    await unchanged(harness, "Roryn", before)
    await harness.settings(gm_role_id=harness.guild.roles["GM"])
    result = await harness.run(harness.gm_role, "damage", character="Roryn", amount=1)
    assert "VIT 10 → 9" in lines(result)


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
    assert result.card.title == "🟢 Roryn · Damage"
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
    title = result.card.title
    assert title == "🟢 " + escape("*Ro*_@everyone") + " · Damage"
    assert "\\@everyone" in title and "\\*Ro\\*" in title  # escaped: no mention
    assert lines(result)[0] == f"**{escape('*Ro*_@everyone')} takes 1 damage.**"
    assert "@everyone" not in result.card.body.replace("\\@everyone", "")
    assert result.requests[0].payload["data"]["allowed_mentions"] == {"parse": []}


async def test_a_refusal_escapes_the_name_too(harness):
    await harness.add_character("*Ro*_@everyone", vit=-1, dead=True)
    result = await harness.run(harness.gm, "damage", character="*ro*_@everyone", amount=1)
    text = assert_refused(result, escape("*Ro*_@everyone") + " is Dead")
    assert "@everyone" not in text.replace("\\@everyone", "")


async def test_instant_death_says_why_V_6(harness):
    await harness.settings(death_rule="instant")
    await harness.add_character("Roryn", vit=1)
    result = await harness.run(harness.owner, "damage", character="Roryn", amount=2)
    assert result.card.title == "💀 Roryn · Damage"
    assert lines(result)[:2] == [
        "**Killed outright: Roryn dies at VIT -1, for this server plays with instant death "
        "(VIT below 0).**",
        "VIT 1 → -1 · Up → Dead",
    ]
    assert result.card.colour == CRIMSON
    assert "V-6" in result.card.small
    assert not result.card.buttons  # nothing left to roll


# /heal (H-2)


async def test_heal_wakes_a_critical_character_H_2(harness):
    await harness.add_character("Roryn", vit=-1)
    result = await harness.run(harness.owner, "heal", character="Roryn", amount=3)
    assert not result.ephemeral
    assert result.card.title == "🟢 Roryn · Magic healing"
    assert lines(result)[:2] == ["**Roryn wakes up at VIT 2/10.**", "VIT -1 → 2 · Critical → Up"]
    assert result.card.colour == GREEN


async def test_heal_of_one_stabilises_a_critical_character_H_2(harness):
    await harness.add_character("Roryn", vit=-3, res=5)
    result = await harness.run(harness.owner, "heal", character="Roryn", amount=1)
    assert lines(result)[:2] == [
        "**Roryn is stabilised at VIT 0: Unconscious, no longer bleeding. Heal 2 or more to "
        "wake a character below 0.**",
        "VIT -3 → 0 · Critical → Unconscious",
    ]
    assert result.card.colour == YELLOW


async def test_heal_at_full_vit_says_it_changes_nothing_H_2(harness):
    await harness.add_character("Roryn")
    result = await harness.run(harness.owner, "heal", character="Roryn", amount=3)
    assert lines(result) == [
        "**The healing changes nothing: Roryn is already at full VIT (10/10).**"
    ]


async def test_heal_permissions_P_4(harness):
    before = await harness.add_character("Roryn", vit=5)
    assert_refused(await harness.run(harness.player, "heal", character="Roryn", amount=1), "owner")
    assert_refused(
        await harness.run(harness.outsider, "heal", character="Roryn", amount=1), "No character"
    )
    await unchanged(harness, "Roryn", before)
    result = await harness.run(harness.gm, "heal", character="Roryn", amount=100)
    assert lines(result)[:2] == ["**Roryn heals 5: VIT 10/10.**", "VIT 5 → 10"]


async def test_heal_range_is_checked_again(harness):
    before = await harness.add_character("Roryn", vit=5)
    assert_refused(
        await harness.run(harness.owner, "heal", character="Roryn", amount=10_001), "`amount`"
    )
    await unchanged(harness, "Roryn", before)


async def test_healing_the_dead_is_refused_H_2(harness):
    before = await harness.add_character("Roryn", vit=-3, dead=True)
    result = await harness.run(harness.gm, "heal", character="Roryn", amount=5)
    assert_refused(result, "Roryn is Dead: healing is not possible", "/character revive")
    await unchanged(harness, "Roryn", before)


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
    card = result.card
    assert card.title == "🟡 Roryn · Recovery roll"
    assert lines(result) == [
        "**Stabilised! One Crit: Roryn is Unconscious at VIT 0.**",
        "VIT -1 → 0 · Critical → Unconscious",
        "Critical recovery roll: 💥  1 Crit",  # D-4: every face
    ]
    assert card.colour == YELLOW
    assert card.small == "Rules: R-3 · V-2 · D-1"
    assert harness.bot.rng.remaining == 0


async def test_in_combat_the_owner_rolls_once_per_round_R_8(harness):
    await harness.add_character("Roryn", vit=0, res=3)
    await harness.start_combat(["Roryn"])
    harness.script("MHM")
    result = await harness.run(harness.owner, "recover", character="Roryn")
    assert lines(result) == [
        "**No Crit (only Crits count): Roryn stays Unconscious; the next roll comes at its "
        "next turn.**",
        "Unconscious recovery roll: ⬜ ⚪ ⬜  1 Hit · 2 Misses",
    ]
    assert result.card.colour == YELLOW
    before = await harness.sheet("Roryn")
    again = await harness.run(harness.owner, "recover", character="Roryn")
    assert_refused(again, "already made its recovery roll this round", "/round")
    assert await harness.sheet("Roryn") == before


async def test_the_last_gasp_is_public_loud_and_can_kill_R_5(harness):
    await harness.add_character("Roryn", vit=-2)
    harness.script("H")
    result = await harness.run(harness.gm, "recover", character="Roryn")
    assert not result.ephemeral
    card = result.card
    assert card.title == "💀 Roryn · The Last Gasp"
    assert lines(result) == [
        "**The Last Gasp fails: Roryn is dead.**",
        "VIT -2 · Dying → Dead",  # V-7: VIT named though it did not move
        "Last Gasp: ⚪  1 Hit",
    ]
    assert card.colour == LAST_GASP_COLOUR  # its own colour, whatever its verdict
    [(filename, png)] = result.reply.files
    assert card.pictures == (filename,)
    assert png.startswith(b"\x89PNG")
    assert (await harness.sheet("Roryn")).dead


async def test_faces_rolled_by_hand_wake_the_unconscious_D_5_R_2_V_2(harness):
    await harness.add_character("Roryn", vit=0)
    result = await harness.run(harness.gm, "recover", character="Roryn", faces="C H")
    assert lines(result)[:3] == [
        "**Roryn wakes up! One Crit: VIT 1/10.**",
        "VIT 0 → 1 · Unconscious → Up",
        "Unconscious recovery roll · entered by hand: 💥 ⚪  1 Crit · 1 Hit",
    ]
    assert "D-5" in result.card.small


async def test_wrong_faces_are_refused_and_change_nothing(harness):
    before = await harness.add_character("Roryn", vit=0)
    result = await harness.run(harness.gm, "recover", character="Roryn", faces="C")
    assert_refused(result, "This roll is 2 dice", "`C H`")
    await unchanged(harness, "Roryn", before)


async def test_advantage_shows_the_reroll_D_3(harness):
    await harness.add_character("Roryn", vit=-1, advantage=True)
    harness.script("MC")
    result = await harness.run(harness.gm, "recover", character="Roryn")
    assert "Critical recovery roll · advantage: (⬜→💥)  1 Crit" in lines(result)
    # the advantage is bookkeeping of the roll: the small line, not the change line
    assert "Advantage" not in result.card.body
    assert result.card.small.startswith("advantage used · Rules: R-3")
    assert not (await harness.sheet("Roryn")).advantage


async def test_recover_refuses_a_character_that_is_up(harness):
    before = await harness.add_character("Roryn")
    assert_refused(
        await harness.run(harness.gm, "recover", character="Roryn"), "Roryn is Up (VIT 10/10)"
    )
    await unchanged(harness, "Roryn", before)


# /aid (F-1): any member may give aid


async def test_any_member_gives_first_aid_F_1(harness):
    await harness.add_character("Roryn", vit=-1)
    result = await harness.run(harness.player, "aid", character="Roryn", success=True)
    assert not result.ephemeral
    assert result.card.title == "🟠 Roryn · First aid"
    # the headline says it; the flag itself is bookkeeping of the next roll (no change line)
    assert lines(result) == ["**First aid works: Roryn has advantage on its next recovery roll.**"]
    assert result.card.small == "Rules: F-1"
    assert (await harness.sheet("Roryn")).advantage
    [event] = await harness.history("Roryn")  # still a change (U-2: a flag a rule acts on)
    assert event.command == "aid" and event.after.advantage


async def test_aid_rolled_by_the_bot_F_1(harness):
    await harness.add_character("Roryn", vit=-1)
    harness.script_values(12)
    result = await harness.run(harness.gm, "aid", character="Roryn", roll="1d20+3", target=10)
    assert lines(result) == [
        "**First aid works: Roryn has advantage on its next recovery roll.**",
        "Medicine check: `1d20+3` → 12 +3 = 15 vs 10 ✓",  # the whole sum
    ]


async def test_aid_refusals(harness):
    before = await harness.add_character("Roryn", vit=-1)
    both = await harness.run(harness.owner, "aid", character="Roryn", success=True, roll="1d20")
    assert_refused(both, "not both")
    outsider = await harness.run(harness.outsider, "aid", character="Roryn", success=True)
    assert_refused(outsider, "No character named Roryn")
    await unchanged(harness, "Roryn", before)


async def test_the_owner_reports_a_failed_check_F_1(harness):
    await harness.add_character("Roryn", vit=0)
    result = await harness.run(harness.owner, "aid", character="Roryn", success=False)
    assert not result.ephemeral
    assert lines(result) == ["**The Medicine check fails: Roryn gets no advantage.**"]
    assert result.card.colour == FAILURE_COLOUR  # a failure is never green


# /odds (D-2, R-*)


async def test_odds_are_exact_and_change_nothing(harness):
    before = await harness.add_character("Roryn", vit=-2)
    result = await harness.run(harness.player, "odds", character="Roryn")
    assert not result.ephemeral
    card = result.card
    assert card.title == "🔴 Roryn · Odds"
    assert lines(result) == [
        "**17% to survive the Last Gasp, 83% to be dead within 10 rolls.**",  # a Crit, 1/6
        "Dying at VIT -2/10: the Last Gasp is 1 die (each: Crit 1 in 6, Hit 2 in 6, Miss 3 in 6).",
        "",
        "**The next Last Gasp**",
        "5/6 (83.33%): Dead",
        "1/6 (16.67%): stabilise at VIT 0, now Unconscious",
        "With first aid's advantage: 25% to survive (F-1).",  # D-3: 1/6 + 3/6 × 1/6
    ]
    assert card.small == "Rules: R-5 · R-6 · exact odds, no simulation"
    [(filename, png)] = result.reply.files
    assert card.pictures == (filename,) and png.startswith(b"\x89PNG")
    await unchanged(harness, "Roryn", before)


@pytest.mark.parametrize(
    ("vit", "roll", "rules"),
    [
        (0, "Unconscious at VIT 0/10: the recovery roll is 2 dice", "R-1 · R-2 · R-6"),
        (-1, "Critical at VIT -1/10: the recovery roll is 1 die", "R-3 · R-4 · R-6"),
    ],
)
async def test_odds_name_the_roll_and_its_rules_by_state(harness, vit, roll, rules):
    await harness.add_character("Roryn", vit=vit)
    result = await harness.run(harness.owner, "odds", character="Roryn")
    assert lines(result)[1] == f"{roll} (each: Crit 1 in 6, Hit 2 in 6, Miss 3 in 6)."
    assert result.card.small == f"Rules: {rules} · exact odds, no simulation"


@pytest.mark.parametrize(
    ("vit", "res", "up", "dead", "helped"),
    [
        # a Crit among 2 dice, 11/36, and no roll kills; with advantage 1 - (3/4)², 7/16
        (0, 2, "31%", "0%", "44%"),
        (-1, 3, "3%", "28%", "6%"),  # 2 Crits of 2 dice, 1/36; with advantage (1/4)², 1/16
    ],
)
async def test_odds_of_the_unconscious_and_critical_say_the_chance_to_be_up_F_1(
    harness, vit, res, up, dead, helped
):
    """Only the Dying are told their chance to survive: the others, their chance to wake."""
    await harness.add_character("Roryn", vit=vit, res=res)
    said = lines(await harness.run(harness.owner, "odds", character="Roryn"))
    assert (
        said[0]
        == f"**{up} to be up after the next recovery roll, {dead} to be dead within 10 rolls.**"
    )
    assert said[-1] == f"With first aid's advantage: {helped} to be up (F-1)."
    assert not any("survive" in line for line in said)


async def test_odds_with_advantage_say_each_miss_is_rolled_again_R_6(harness):
    await harness.add_character("Roryn", vit=-2, advantage=True)  # last_gasp_advantage: yes
    result = await harness.run(harness.owner, "odds", character="Roryn")
    assert lines(result)[0].startswith("**25% to survive the Last Gasp, ")  # D-3: 1/6 + 3/6 × 1/6
    assert lines(result)[1] == (
        "Dying at VIT -2/10: the Last Gasp is 1 die (each: Crit 1 in 6, Hit 2 in 6, Miss 3 in "
        "6); with advantage from first aid, each Miss is rolled again once."
    )
    assert "(F-1)" not in result.card.body  # it has the advantage already


async def test_odds_refusals(harness):
    await harness.add_character("Roryn")
    assert_refused(await harness.run(harness.owner, "odds", character="Roryn"), "Roryn is Up")
    assert_refused(await harness.run(harness.outsider, "odds", character="Roryn"), "No character")
    assert_refused(await harness.run(harness.owner, "odds"), "no active character")


async def test_odds_follow_the_guild_die(harness):
    await harness.settings(die_faces="MHC")
    await harness.add_character("Roryn", vit=-2)
    result = await harness.run(harness.gm, "odds", character="Roryn")
    assert "2/3 (66.67%): Dead" in lines(result)
    assert lines(result)[1] == (
        "Dying at VIT -2/10: the Last Gasp is 1 die (each: Crit 1 in 3, Hit 1 in 3, Miss 1 in 3)."
    )
    assert harness.bot.rng.remaining == 0  # nothing was rolled


async def test_recovery_dice_are_not_spent_R_7(harness):
    """Two rolls without a Crit: the second rolls as many dice as the first; nothing is kept."""
    await harness.add_character("Roryn", vit=0, res=3)
    await harness.start_combat(["Roryn"])
    harness.script("MHMHMM")
    first = await harness.run(harness.owner, "recover", character="Roryn")
    await harness.update("Roryn", recovered_this_round=False)  # the next round (C-1)
    second = await harness.run(harness.owner, "recover", character="Roryn")
    assert "Unconscious recovery roll: ⬜ ⚪ ⬜  1 Hit · 2 Misses" in lines(first)
    assert "Unconscious recovery roll: ⚪ ⬜ ⬜  1 Hit · 2 Misses" in lines(second)
    sheet = await harness.sheet("Roryn")
    assert (sheet.vit, sheet.res, sheet.recovery_dice) == (0, 3, 3)


async def test_the_heaviest_answers_come_well_within_discords_3_seconds(harness):
    """No command defers: the biggest roll and the biggest odds table answer directly."""
    await harness.add_character("Roryn", max_vit=999, vit=0, res=20)
    harness.script("M" * 20)
    for command in ("odds", "recover"):
        started = time.perf_counter()
        result = await harness.run(harness.gm, command, character="Roryn")
        assert time.perf_counter() - started < 1.5, command
        assert result.requests[0].payload["type"] == 4  # answered in the first response
        assert len(result.card.body) <= 4096
