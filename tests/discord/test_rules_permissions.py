"""P-5 and P-6 through the command tree (docs/rules.md, Permissions): payload in, reply and
database out; a refusal leaves every table as it was. On SQLite, and on PostgreSQL when
TEST_DATABASE_URL names a server."""

from __future__ import annotations

import json

import pytest

from bot.offline import Attachment
from bot.services.sheet import EXPORT_FORMAT
from rules.models import Emotion
from tests.discord.conftest import lines

P_5 = "can change only while it is Up, not in a Breakdown and in no combat"


@pytest.fixture
def harness(any_harness):
    return any_harness


# --- P-5: the fields that change what the rules decide -----------------------------------------


async def test_P_5_owner_cannot_raise_res_while_dying(harness):
    """The issue's case: `/character edit res:20` while Dying made the next roll 17 dice."""
    await harness.add_character("Roryn", res=3, vit=-5)
    text = await harness.refusal(
        harness.owner, "character edit", P_5, "(P-5): it is Dying", character="Roryn", res=20
    )
    assert text == (
        "Roryn's RES can change only while it is Up, not in a Breakdown and in no combat, "
        "unless the GM changes it (P-5): it is Dying. Nothing was changed."
    )


@pytest.mark.parametrize(
    ("field", "value", "named"),
    [
        ("max_vit", 20, "max VIT"),
        ("res", 5, "RES"),
        ("con", "d12", "base CON die"),
        ("threshold", 9, "emotion threshold"),
    ],
)
async def test_P_5_owner_cannot_change_a_rule_field_while_down(harness, field, value, named):
    await harness.add_character("Roryn", vit=0)
    await harness.refusal(
        harness.owner,
        "character edit",
        f"Roryn's {named} {P_5}",
        "it is Unconscious",
        character="Roryn",
        **{field: value},
    )


async def test_P_5_owner_cannot_raise_the_threshold_to_dodge_a_breakdown(harness):
    await harness.add_character("Roryn", anger=4, breakdown=Emotion.ANGER)
    await harness.refusal(
        harness.owner,
        "character edit",
        "emotion threshold",
        "it is in a Breakdown",
        character="Roryn",
        threshold=20,
    )


async def test_P_5_owner_cannot_change_a_rule_field_in_combat(harness):
    await harness.add_character("Roryn")
    await harness.start_combat(["Roryn"])
    await harness.refusal(
        harness.owner,
        "character edit",
        "max VIT and RES",
        "it is in a combat",
        character="Roryn",
        max_vit=30,
        res=9,
    )


async def test_P_5_owner_edits_rule_fields_while_up_out_of_combat(harness):
    await harness.add_character("Roryn", anger=3)
    result = await harness.run(harness.owner, "character edit", character="Roryn", res=4)
    assert not result.ephemeral
    assert lines(result) == ["**Roryn's sheet is edited.**", "RES 2 → 4"]
    assert result.card.small == "Rules: P-5"
    result = await harness.run(harness.owner, "character edit", character="Roryn", threshold=6)
    assert lines(result)[0] == "**Roryn's sheet is edited.**"
    assert "Threshold 4 → 6" in lines(result)[1]
    sheet = await harness.sheet("Roryn")
    assert (sheet.res, sheet.threshold, sheet.anger) == (4, 6, 3)


async def test_P_5_a_threshold_edit_shows_one_change(harness):
    """Once a wall: 'Anger 3/4 → 3/6 · Fear 0/4 → 0/6 · Sadness 0/4 → 0/6 · Guilt 0/4 → 0/6 ·
    Threshold 4 → 6'."""
    await harness.add_character("Roryn", anger=3)
    result = await harness.run(harness.owner, "character edit", character="Roryn", threshold=6)
    assert lines(result)[1] == "Threshold 4 → 6"


async def test_P_5_the_gm_changes_a_rule_field_at_any_time(harness):
    await harness.add_character("Roryn", res=3, vit=-5)
    await harness.start_combat(["Roryn"])
    result = await harness.run(harness.gm, "character edit", character="Roryn", res=20)
    assert lines(result)[:2] == [
        "**Roryn's sheet is edited.**",
        "VIT -5 · Dying → Critical · RES 3 → 20",
    ]
    assert (await harness.sheet("Roryn")).res == 20


async def test_P_5_the_owner_still_renames_and_sets_abilities_while_down_P_4(harness):
    await harness.add_character("Roryn", vit=-5)
    result = await harness.run(
        harness.owner, "character edit", character="Roryn", name="Rory", insight=3
    )
    assert lines(result)[:2] == [
        "**Roryn is renamed Rory.**",
        "Name Roryn → Rory · Insight +0 → +3",
    ]
    assert result.card.small == "Rules: P-4"


async def test_P_5_a_rule_field_given_unchanged_is_no_edit_of_it(harness):
    await harness.add_character("Roryn", res=3, vit=-5)
    result = await harness.run(harness.owner, "character edit", character="Roryn", res=3)
    assert lines(result) == ["**Nothing changes: Roryn already has those values.**"]
    assert await harness.history("Roryn") == []  # not a change (U-2)


async def test_P_5_another_player_edits_nothing(harness):
    await harness.add_character("Roryn")
    await harness.refusal(harness.player, "character edit", "(P-4)", character="Roryn", res=4)
    await harness.refusal(harness.player, "character edit", "(P-4)", character="Roryn", name="X")


async def test_P_5_an_empty_edit_names_the_commands_options(harness):
    """It once named `con_base`, which is no option of the command (it is `con`)."""
    await harness.add_character("Roryn")
    text = await harness.refusal(
        harness.owner, "character edit", "Nothing to change", character="Roryn"
    )
    assert "con_base" not in text and "con" in text


# --- P-6: import ---------------------------------------------------------------------------------


def sheet_file(**sheet) -> Attachment:
    document = {"format": EXPORT_FORMAT, "version": 1, "sheet": sheet}
    return Attachment("sheet.json", json.dumps(document).encode())


# The case: a player's file at VIT -3, Dying, with advantage, no Stress, no wounds.
DYING = {
    "name": "Grub",
    "owner_id": 1,
    "max_vit": 10,
    "res": 2,
    "con_base": 8,
    "humility": 1,
    "composure": 2,
    "insight": -1,
    "threshold": 5,
    "vit": -3,
    "stamina": 4,
    "stress": 0,
    "anger": 2,
    "con_wounds": 0,
    "advantage": True,
    "reactions_taken": 2,
    "early_this_round": True,
    "relief_used_today": True,
    "daily_bonus": True,
}


async def test_P_6_a_players_import_brings_the_build_and_starts_the_state_fresh(harness):
    result = await harness.run(harness.player, "character import", file=sheet_file(**DYING))
    assert not result.ephemeral
    assert result.card.title == "🟢 Grub · Imported"
    assert lines(result)[0] == "**Grub joins the table.**"
    assert result.card.texts[0].splitlines()[-1] == (  # the last line above the sheet's rows
        "A player's import starts the state fresh, as at creation (P-6): VIT, Stamina, "
        "Anger; the GM's import keeps them."
    )
    sheet = await harness.sheet("Grub")
    assert sheet.owner_id == harness.player.user_id  # the importer's, whatever the file says
    build = (sheet.max_vit, sheet.res, sheet.con_base, sheet.threshold)
    assert (*build, sheet.humility, sheet.composure, sheet.insight) == (10, 2, 8, 5, 1, 2, -1)
    assert (sheet.vit, sheet.stamina, sheet.anger, sheet.state.value) == (10, 8, 0, "Up")
    flags = (sheet.advantage, sheet.reactions_taken, sheet.early_this_round)
    assert (*flags, sheet.relief_used_today, sheet.daily_bonus) == (False, 0, False, False, False)
    [event] = await harness.history("Grub")
    assert event.command == "character import" and event.after == sheet


async def test_P_6_the_gms_import_brings_the_state_but_never_the_flags(harness):
    result = await harness.run(harness.gm, "character import", file=sheet_file(**DYING))
    assert result.card.title == "🔴 Grub · Imported"
    assert lines(result)[0] == "**Grub joins the table.**"
    sheet = await harness.sheet("Grub")
    assert sheet.owner_id == harness.gm.user_id
    assert (sheet.vit, sheet.stamina, sheet.anger, sheet.state.value) == (-3, 4, 2, "Dying")
    flags = (sheet.advantage, sheet.reactions_taken, sheet.early_this_round)
    assert (*flags, sheet.relief_used_today, sheet.daily_bonus) == (False, 0, False, False, False)


async def test_P_6_the_gms_import_of_a_full_stack_starts_the_breakdown(harness):
    await harness.run(harness.gm, "character import", file=sheet_file(**{**DYING, "anger": 5}))
    assert (await harness.sheet("Grub")).breakdown is Emotion.ANGER  # E-1


@pytest.mark.parametrize(
    ("changes", "words"),
    [
        ({"vit": 11}, ("VIT 11 is above max VIT 10",)),
        ({"res": 21}, ("RES",)),
        ({"con_base": 7}, ("CON die", "6, 8, 10 or 12")),
        ({"threshold": 0}, ("emotion threshold",)),
        ({"stress": -1}, ("Stress",)),
        ({"max_vit": "10"}, ("Max VIT",)),  # a JSON string, not a number
        ({"anger": 6}, ("Anger 6 is above the threshold 5",)),
        ({"con_wounds": 4}, ("CON wounds",)),
        ({"name": "x" * 33}, ("name",)),
        ({"name": "Gr\u200bub"}, ("name",)),  # an invisible character (section 1)
        ({"mana": 3}, ("mana",)),
    ],
)
@pytest.mark.parametrize("who", ["player", "gm"])
async def test_P_6_a_value_out_of_its_range_is_refused_and_nothing_is_created(
    harness, who, changes, words
):
    """Every value in section 1's ranges, for a player's import (whose state is not taken)
    and the GM's alike."""
    file = sheet_file(**{**DYING, **changes})
    await harness.refusal(getattr(harness, who), "character import", *words, file=file)


async def test_P_6_a_name_taken_in_any_form_is_refused(harness):
    await harness.add_character("Grub")
    await harness.refusal(
        harness.gm, "character import", "already", file=sheet_file(**{**DYING, "name": "ＧＲＵＢ"})
    )


async def test_P_6_a_file_without_stamina_is_read_with_its_wounds(harness):
    """Once refused as 'Stamina 10 is above its maximum 8', a value the file does not hold."""
    sheet = {"name": "Bo", "max_vit": 12, "con_base": 10, "con_wounds": 1}
    result = await harness.run(harness.player, "character import", file=sheet_file(**sheet))
    assert not result.ephemeral, result.text()
    assert (await harness.sheet("Bo")).con_wounds == 0
