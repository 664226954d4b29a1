"""/emotion, /relief, /breakdown driven as Discord drives them (docs/rules.md, Emotions, Stress
and Breakdown). Emotions and Breakdowns are purple; the Breakdown's effects are shown in full
when it begins (E-6)."""

from __future__ import annotations

import pytest

from bot.render.common import EMOTION_COLOUR, STATE_COLOURS
from rules.emotion_texts import ADDRESS_ACTIONS, BREAKDOWN_EFFECTS
from rules.models import Emotion, State
from tests.discord.conftest import assert_refused, lines

GREY = STATE_COLOURS[State.RETIRED]


async def unchanged(harness, name, before):
    assert await harness.sheet(name) == before
    assert await harness.history(name, bookkeeping=True) == []


# /emotion (E-1, E-2, E-7, E-10)


async def test_raise_one_stage_by_default_E_1(harness):
    await harness.add_character("Roryn")
    result = await harness.run(harness.owner, "emotion", character="Roryn", emotion="anger")
    assert not result.ephemeral
    assert result.card.title == "🟢 Roryn · Emotion"
    assert result.card.colour == EMOTION_COLOUR
    assert lines(result) == [
        "**Roryn's Anger rises after something in the story: Anger 1/4.**",
        "Anger 0/4 → 1/4",
    ]
    assert result.card.small == "Rules: E-1 · E-10"
    [event] = await harness.history("Roryn")
    assert event.inputs == {"emotion": "anger", "stages": 1, "cause": "other"}


async def test_reaching_the_threshold_starts_a_breakdown_E_1_E_2_E_6(harness):
    await harness.add_character("Roryn")
    result = await harness.run(
        harness.owner, "emotion", character="Roryn", emotion="anger", stages=5
    )
    assert lines(result) == [
        "**Roryn falls into a Breakdown of Anger after something in the story; the stage past "
        "the threshold adds 1 Stress.**",
        "Stress 0 → 1 · Anger 0/4 → 4/4",  # the headline names the Breakdown: not said twice
        f"In a Breakdown of Anger: {BREAKDOWN_EFFECTS[Emotion.ANGER]}",  # once, in full
    ]
    sheet = await harness.sheet("Roryn")
    assert (sheet.anger, sheet.stress, sheet.breakdown) == (4, 1, Emotion.ANGER)


async def test_in_breakdown_an_emotion_raises_stress_in_one_line_E_2(harness):
    await harness.add_character("Roryn", anger=4, breakdown=Emotion.ANGER)
    result = await harness.run(harness.owner, "emotion", character="Roryn", emotion="fear")
    assert lines(result) == [
        "**Roryn is in a Breakdown: Fear rises after something in the story as Stress instead, "
        "+1 (Stress 1).**",
        "Stress 0 → 1",
    ]
    assert BREAKDOWN_EFFECTS[Emotion.ANGER] not in result.card.body  # no wall again


async def test_stress_reaching_vit_retires_E_7(harness):
    await harness.add_character("Roryn", vit=1, anger=4, breakdown=Emotion.ANGER)
    result = await harness.run(harness.gm, "emotion", character="Roryn", emotion="fear")
    assert result.card.title == "🕊️ Roryn · Emotion"
    assert lines(result)[:2] == [
        "**Roryn must retire to a different life: Stress 1 has reached VIT 1.**",
        "VIT 1 · Up → Retired · Stress 0 → 1",
    ]
    assert result.card.colour == GREY
    assert (await harness.sheet("Roryn")).retired


async def test_a_retired_character_raises_no_emotion_E_7(harness):
    before = await harness.add_character("Roryn", stress=3, retired=True)
    result = await harness.run(harness.gm, "emotion", character="Roryn", emotion="fear")
    assert_refused(result, "Roryn is Retired", "/character revive")
    await unchanged(harness, "Roryn", before)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"emotion": "anger", "stages": 21}, "`stages` must be between 1 and 20"),
        ({"emotion": "anger", "stages": 0}, "`stages` must be between 1 and 20"),
        ({"emotion": "joy"}, "`emotion` must be one of anger, fear, sadness, guilt"),
        ({"emotion": "fear", "cause": "nightmare"}, "`cause` must be one of"),
    ],
)
async def test_emotion_options_are_checked_again(harness, options, message):
    before = await harness.add_character("Roryn")
    result = await harness.run(harness.owner, "emotion", character="Roryn", **options)
    assert_refused(result, message)
    await unchanged(harness, "Roryn", before)


async def test_emotion_permissions_P_4(harness):
    before = await harness.add_character("Roryn")
    assert_refused(
        await harness.run(harness.player, "emotion", character="Roryn", emotion="fear"), "owner"
    )
    assert_refused(
        await harness.run(harness.outsider, "emotion", character="Roryn", emotion="fear"),
        "No character",
    )
    await unchanged(harness, "Roryn", before)
    result = await harness.run(harness.gm, "emotion", character="Roryn", emotion="fear")
    assert lines(result) == [
        "**Roryn's Fear rises after something in the story: Fear 1/4.**",
        "Fear 0/4 → 1/4",
    ]


# /relief (E-3..E-5)


async def test_relief_by_drive_clears_the_stacks_once_a_day_E_3(harness):
    await harness.add_character("Roryn", anger=2, fear=1)
    result = await harness.run(harness.owner, "relief", character="Roryn", method="drive")
    assert result.card.title == "🟢 Roryn · Relief"
    assert result.card.colour == EMOTION_COLOUR
    assert lines(result) == [
        "**Roryn finds relief (drive): every emotion is cleared.**",
        "Anger 2/4 → 0/4 · Fear 1/4 → 0/4 · relief used today",
    ]
    before = await harness.sheet("Roryn")
    again = await harness.run(harness.owner, "relief", character="Roryn", method="reward")
    assert_refused(again, "already had relief today", "/day")
    assert await harness.sheet("Roryn") == before


async def test_relief_with_nothing_stacked_gives_the_daily_bonus_E_4(harness):
    await harness.add_character("Roryn")
    result = await harness.run(harness.owner, "relief", character="Roryn", method="reward")
    assert lines(result) == [
        "**Roryn finds relief (reward) with no emotion stacked: +3 on all Action Rolls until "
        "the end of the day.**",
        "Relief used today · +3 daily bonus",
    ]
    refused = await harness.run(harness.gm, "relief", character="Roryn", method="address")
    assert_refused(refused, "already had relief today")


async def test_address_with_nothing_stacked_is_refused_E_4(harness):
    before = await harness.add_character("Roryn")
    result = await harness.run(harness.owner, "relief", character="Roryn", method="address")
    assert_refused(result, "no stacked emotion to address (E-4)")
    await unchanged(harness, "Roryn", before)


async def test_address_asks_which_of_tied_emotions_E_3(harness):
    before = await harness.add_character("Roryn", anger=2, guilt=2)
    tied = await harness.run(harness.owner, "relief", character="Roryn", method="address")
    assert_refused(tied, "Anger and Guilt are tied at 2/4")
    await unchanged(harness, "Roryn", before)
    result = await harness.run(
        harness.owner, "relief", character="Roryn", method="address", emotion="guilt"
    )
    assert lines(result) == [
        "**Roryn addresses Guilt: every emotion is cleared.**",
        "Anger 2/4 → 0/4 · Guilt 2/4 → 0/4 · relief used today",
        f"To address Guilt: {ADDRESS_ACTIONS[Emotion.GUILT]}",  # the seed's table
    ]


async def test_address_ends_a_breakdown_E_5(harness):
    await harness.add_character("Roryn", anger=4, stress=1, breakdown=Emotion.ANGER)
    result = await harness.run(harness.owner, "relief", character="Roryn", method="address")
    assert lines(result)[:2] == [
        "**Roryn addresses Anger and overcomes the Breakdown: every emotion is cleared; Stress "
        "stays at 1.**",
        "Anger 4/4 → 0/4",  # the headline says the Breakdown ends: not said twice
    ]
    assert not (await harness.sheet("Roryn")).relief_used_today  # not the daily relief (E-5)


async def test_relief_refusals(harness):
    before = await harness.add_character("Roryn", anger=4, breakdown=Emotion.ANGER)
    assert_refused(
        await harness.run(harness.owner, "relief", character="Roryn", method="drive"),
        "only addressing Anger",
    )
    assert_refused(
        await harness.run(harness.owner, "relief", character="Roryn", method="sleep"),
        "`method` must be one of drive, reward, address",
    )
    assert_refused(
        await harness.run(harness.player, "relief", character="Roryn", method="address"), "owner"
    )
    assert_refused(
        await harness.run(harness.outsider, "relief", character="Roryn", method="address"),
        "No character",
    )
    await unchanged(harness, "Roryn", before)


async def test_the_gm_gives_relief_to_any_character_E_3(harness):
    await harness.add_character("Roryn", sadness=3)
    result = await harness.run(harness.gm, "relief", character="Roryn", method="reward")
    assert lines(result)[1].startswith("Sadness 3/4 → 0/4")


# /breakdown (E-8, E-9): the GM only (P-3)


async def test_a_failed_reaction_roll_starts_a_breakdown_E_9(harness):
    await harness.add_character("Roryn", composure=1)
    harness.script_values(4)
    result = await harness.run(
        harness.gm, "breakdown", character="Roryn", emotion="fear", pressure=6
    )
    assert not result.ephemeral
    card = result.card
    assert card.title == "🟢 Roryn · Breakdown"  # a Breakdown begins
    assert card.colour == EMOTION_COLOUR
    assert lines(result) == [
        "**Roryn breaks down: the Reaction Roll fails (5 against Pressure 6); a Breakdown of "
        "Fear begins.**",  # the change line does not say it twice
        "Reaction Roll (Composure): `1d10` → 4, +1 Composure = 5 vs 6 ✗",  # the whole sum
        f"In a Breakdown of Fear: {BREAKDOWN_EFFECTS[Emotion.FEAR]}",
    ]
    assert card.small == "Rules: E-8 · E-9 · E-6"


async def test_a_successful_reaction_roll_changes_nothing_E_9(harness):
    await harness.add_character("Roryn", composure=1)
    harness.script_values(9)
    result = await harness.run(
        harness.gm, "breakdown", character="Roryn", emotion="sadness", pressure=6
    )
    assert lines(result) == [
        "**Roryn holds firm: the Reaction Roll succeeds (10 against Pressure 6), nothing "
        "happens.**",
        "Reaction Roll (Composure): `1d10` → 9, +1 Composure = 10 vs 6 ✓",
    ]
    assert (await harness.sheet("Roryn")).breakdown is None


async def test_in_breakdown_the_roll_has_disadvantage_E_8(harness):
    await harness.add_character("Roryn", anger=4, breakdown=Emotion.ANGER)
    harness.script_values(8, 3)
    result = await harness.run(
        harness.gm, "breakdown", character="Roryn", emotion="guilt", pressure=4
    )
    assert lines(result) == [
        "**Roryn fails while in a Breakdown (3 against Pressure 4): it must address Guilt on "
        "the spot, which ends the Breakdown; every emotion is cleared, Stress stays.**",
        "Anger 4/4 → 0/4",  # the headline says the Breakdown ends: not said twice
        "Reaction Roll (Insight): `1d10` → 3 vs 4 ✗",
        "Reaction Roll (Insight): `1d10` → 8 · not kept, the lower counts",  # E-6: no verdict
        f"To address Guilt: {ADDRESS_ACTIONS[Emotion.GUILT]}",
    ]


async def test_a_physically_rolled_result_E_8(harness):
    await harness.add_character("Roryn")
    result = await harness.run(
        harness.gm, "breakdown", character="Roryn", emotion="anger", pressure=4, roll=7
    )
    assert "Reaction Roll (Humility) · entered by hand: `1d10` → 7 vs 4 ✓" in lines(result)


async def test_only_the_gm_calls_a_breakdown_P_3(harness):
    before = await harness.add_character("Roryn")
    options = {"character": "Roryn", "emotion": "anger", "pressure": 4}
    assert_refused(await harness.run(harness.owner, "breakdown", **options), "Only the GM")
    assert_refused(await harness.run(harness.player, "breakdown", **options), "Only the GM")
    assert_refused(await harness.run(harness.gm_role, "breakdown", **options), "Only the GM")
    assert_refused(await harness.run(harness.outsider, "breakdown", **options), "No character")
    await unchanged(harness, "Roryn", before)
    await harness.settings(gm_role_id=harness.guild.roles["GM"])
    harness.script_values(10)
    result = await harness.run(harness.gm_role, "breakdown", **options)
    assert "succeeds (10 against Pressure 4)" in lines(result)[0]


async def test_breakdown_options_are_checked_again(harness):
    before = await harness.add_character("Roryn")
    result = await harness.run(
        harness.gm, "breakdown", character="Roryn", emotion="anger", pressure=21
    )
    assert_refused(result, "`pressure` must be between 1 and 20")
    out_of_range = await harness.run(
        harness.gm, "breakdown", character="Roryn", emotion="anger", pressure=4, roll=11
    )
    assert_refused(out_of_range)
    await unchanged(harness, "Roryn", before)
