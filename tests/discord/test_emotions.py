"""/emotion, /relief, /breakdown driven as Discord drives them (seed 002)."""

from __future__ import annotations

import pytest

from bot.render.common import STATE_COLOURS
from rules.emotions import ADDRESS_ACTIONS
from rules.models import Emotion, State
from tests.discord.conftest import assert_refused

GREY = STATE_COLOURS[State.RETIRED][0]


async def unchanged(harness, name, before):
    assert await harness.sheet(name) == before
    assert await harness.history(name) == []


# /emotion (E-1, E-2, E-7)


async def test_raise_one_stage_by_default_E_1(harness):
    await harness.add_character("Roryn")
    result = await harness.run(harness.owner, "emotion", character="Roryn", emotion="anger")
    assert not result.ephemeral
    assert result.embed["title"] == "Roryn · Emotion"
    assert result.embed["description"] == "Anger 0/4 → 1/4"
    assert result.embed["footer"]["text"] == "Rules: E-1"


async def test_reaching_the_threshold_starts_a_breakdown_E_1_E_2(harness):
    await harness.add_character("Roryn")
    result = await harness.run(
        harness.owner, "emotion", character="Roryn", emotion="anger", stages=5
    )
    lines = result.embed["description"].splitlines()
    assert lines[:3] == ["Stress 0 → 1", "Anger 0/4 → 4/4", "Breakdown none → Anger"]
    assert "Roryn falls into a Breakdown of Anger." in lines
    assert "+1 Stress instead of Anger (E-2)." in lines
    assert any(line.startswith("Roryn is in a Breakdown of Anger (E-6)") for line in lines)


async def test_stress_reaching_vit_retires_E_7(harness):
    await harness.add_character("Roryn", vit=1, anger=4, breakdown=Emotion.ANGER)
    result = await harness.run(harness.gm, "emotion", character="Roryn", emotion="fear")
    assert "Up → Retired" in result.embed["description"]
    assert result.embed["color"] == GREY


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"emotion": "anger", "stages": 21}, "`stages` must be between 1 and 20"),
        ({"emotion": "anger", "stages": 0}, "`stages` must be between 1 and 20"),
        ({"emotion": "joy"}, "`emotion` must be one of anger, fear, sadness, guilt"),
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
    assert result.embed["description"] == "Fear 0/4 → 1/4"


# /relief (E-3..E-5)


async def test_relief_by_drive_clears_the_stacks_once_a_day_E_3(harness):
    await harness.add_character("Roryn", anger=2, fear=1)
    result = await harness.run(harness.owner, "relief", character="Roryn", method="drive")
    assert result.embed["description"] == (
        "Anger 2/4 → 0/4\nFear 1/4 → 0/4\nRelief used today no → yes\n\nEvery emotion is cleared."
    )
    again = await harness.run(harness.owner, "relief", character="Roryn", method="reward")
    assert_refused(again, "already had relief today", "/day")


async def test_relief_with_nothing_stacked_gives_the_daily_bonus_E_4(harness):
    await harness.add_character("Roryn")
    result = await harness.run(harness.owner, "relief", character="Roryn", method="reward")
    assert "+3 daily bonus no → yes" in result.embed["description"]
    refused = await harness.run(harness.gm, "relief", character="Roryn", method="address")
    assert_refused(refused, "already had relief today")


async def test_address_asks_which_of_tied_emotions_E_3(harness):
    before = await harness.add_character("Roryn", anger=2, guilt=2)
    tied = await harness.run(harness.owner, "relief", character="Roryn", method="address")
    assert_refused(tied, "Anger and Guilt are tied at 2/4")
    await unchanged(harness, "Roryn", before)
    result = await harness.run(
        harness.owner, "relief", character="Roryn", method="address", emotion="guilt"
    )
    assert (
        f"Roryn addresses Guilt: {ADDRESS_ACTIONS[Emotion.GUILT]}" in (result.embed["description"])
    )


async def test_address_ends_a_breakdown_E_5(harness):
    await harness.add_character("Roryn", anger=4, stress=1, breakdown=Emotion.ANGER)
    result = await harness.run(harness.owner, "relief", character="Roryn", method="address")
    assert "Breakdown Anger → none" in result.embed["description"]
    assert "The Breakdown is overcome; Stress stays (E-5)." in result.embed["description"]
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


# /breakdown (E-8, E-9): the GM only (P-3)


async def test_a_failed_reaction_roll_starts_a_breakdown_E_9(harness):
    await harness.add_character("Roryn", composure=1)
    harness.script_values(4)
    result = await harness.run(
        harness.gm, "breakdown", character="Roryn", emotion="fear", pressure=6
    )
    assert not result.ephemeral
    embed = result.embed
    assert embed["title"] == "Roryn · Situational breakdown"
    [field] = embed["fields"]
    assert field["name"] == "Reaction Roll (Composure)"
    assert field["value"] == "`1d10` [4] +1 = **5** vs 6: failure"
    assert embed["description"].startswith(
        "Breakdown none → Fear\n\nFailure (5 against Pressure 6)."
    )


async def test_a_successful_reaction_roll_changes_nothing_E_9(harness):
    await harness.add_character("Roryn", composure=1)
    harness.script_values(9)
    result = await harness.run(
        harness.gm, "breakdown", character="Roryn", emotion="sadness", pressure=6
    )
    assert result.embed["description"] == (
        "No change.\n\nSuccess (10 against Pressure 6): nothing happens (E-9)."
    )


async def test_in_breakdown_the_roll_has_disadvantage_E_8(harness):
    await harness.add_character("Roryn", anger=4, breakdown=Emotion.ANGER)
    harness.script_values(8, 3)
    result = await harness.run(
        harness.gm, "breakdown", character="Roryn", emotion="guilt", pressure=4
    )
    kept, dropped = result.embed["fields"]
    assert kept["value"] == "`1d10` [3] = **3** vs 4: failure"
    assert dropped["name"] == "Reaction Roll (Insight), dropped for Disadvantage"
    assert (
        f"Roryn addresses Guilt: {ADDRESS_ACTIONS[Emotion.GUILT]}" in (result.embed["description"])
    )


async def test_a_physically_rolled_result_E_8(harness):
    await harness.add_character("Roryn")
    result = await harness.run(
        harness.gm, "breakdown", character="Roryn", emotion="anger", pressure=4, roll=7
    )
    [field] = result.embed["fields"]
    assert field["name"] == "Reaction Roll (Humility) · entered by hand"
    assert field["value"] == "`1d10` [7] = **7** vs 4: success"


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
    assert "Success (10 against Pressure 4)" in result.embed["description"]


async def test_breakdown_options_are_checked_again(harness):
    before = await harness.add_character("Roryn")
    result = await harness.run(
        harness.gm, "breakdown", character="Roryn", emotion="anger", pressure=21
    )
    assert_refused(result, "`pressure` must be between 1 and 20")
    out_of_range = await harness.run(
        harness.gm, "breakdown", character="Roryn", emotion="anger", pressure=4, roll=11
    )
    assert out_of_range.ephemeral
    await unchanged(harness, "Roryn", before)


async def test_the_gm_gives_relief_to_any_character_E_3(harness):
    await harness.add_character("Roryn", sadness=3)
    result = await harness.run(harness.gm, "relief", character="Roryn", method="reward")
    assert result.embed["description"].startswith("Sadness 3/4 → 0/4")
