"""Every roll is a change (U-2, revised; issue 21): a recovery roll, a Last Gasp, a Medicine
check, a pushed Check and a situational breakdown are shown by /history and reverted by /undo
with the round's flag (R-8), even when their result changes nothing else (docs/rules.md,
History and undo). With them: V-7 whole (VIT named beside every change of state), E-6 on a
recovery roll, and R-6's note only for a character that lives. Through the command tree, with
exact dice; on SQLite, and on PostgreSQL when TEST_DATABASE_URL names a server."""

from __future__ import annotations

import pytest

from rules.emotion_texts import breakdown_line
from rules.models import Emotion, State
from tests.discord.conftest import entries, history_entries, lines

STRUCK = "**Undone: Roryn's /{command} is struck from the record; the roll may be made again.**"


@pytest.fixture
def harness(any_harness):
    return any_harness


async def undo(harness, command: str) -> list[str]:
    """The GM's /undo of Roryn's latest change, which must be the roll of `command`: the
    reply's lines, after checking it names the roll and what it reverted (U-3)."""
    result = await harness.run(harness.gm, "undo", character="Roryn")
    assert not result.ephemeral and result.card.title.endswith("Roryn · Undone")
    said = lines(result)
    assert said[0] == STRUCK.format(command=command)
    assert said[-1].startswith(f"Reverted: /{command} by <@")
    return said


# --- U-2, U-3: the case, in combat ---------------------------------------------------


async def test_U_2_U_3_a_recovery_roll_that_changed_nothing_is_shown_and_undone_not_the_damage(
    harness,
):
    """Issue 21, item 1: /damage to 0, /recover faces:"M H" (no Crit), /undo reverted the
    damage (VIT 0 → 10) while the round's roll stayed used; the roll was bookkeeping, missing
    from /history. Now /history shows the roll and /undo strikes it, with its flag (R-8), so
    that the corrected roll is accepted."""
    await harness.add_character("Roryn", res=2)
    await harness.start_combat(["Roryn"])
    await harness.run(harness.owner, "damage", character="Roryn", amount=10)
    rolled = await harness.run(harness.owner, "recover", character="Roryn", faces="M H")
    assert lines(rolled)[0].startswith("**No Crit (only Crits count): Roryn stays Unconscious")
    assert (await harness.sheet("Roryn")).recovered_this_round

    history = await harness.run(harness.owner, "history", character="Roryn")
    assert entries(history) == ["/recover", "/damage"]  # a change (U-2), not bookkeeping
    shown = history_entries(history)[0].lines
    assert shown[1:3] == [
        "Recovery roll made this round",
        "Unconscious recovery roll · entered by hand: ⬜ ⚪  1 Hit · 1 Miss",
    ]

    said = await undo(harness, "recover")
    assert "VIT 0 → 10" not in "\n".join(said)
    sheet = await harness.sheet("Roryn")
    assert (sheet.vit, sheet.state, sheet.recovered_this_round) == (0, State.UNCONSCIOUS, False)
    undone, roll, damage = await harness.history("Roryn")
    assert undone.command == "undo" and roll.reverted and not damage.reverted

    harness.script("C H")
    again = await harness.run(harness.owner, "recover", character="Roryn", faces="C H")
    assert not again.ephemeral, again.text()
    assert lines(again)[:2] == [
        "**Roryn wakes up! One Crit: VIT 1/10.**",
        "VIT 0 → 1 · Unconscious → Up",
    ]


async def test_U_3_an_undone_last_gasp_death_is_rollable_again_exactly_once(harness):
    """Issue 21, item 1: the undone Last Gasp gives the round's roll back, once; after the
    re-roll the flag is set again (R-8). V-7 whole: `VIT -2 · Dying → Dead` and back."""
    await harness.add_character("Roryn", res=2, vit=-2)
    await harness.start_combat(["Roryn"])
    died = await harness.run(harness.owner, "recover", character="Roryn", faces="M")
    assert lines(died)[:2] == ["**The Last Gasp fails: Roryn is dead.**", "VIT -2 · Dying → Dead"]
    history = await harness.run(harness.owner, "history", character="Roryn")
    assert history_entries(history)[0].lines[1] == "VIT -2 · Dying → Dead"

    said = await undo(harness, "recover")
    assert said[1] == "VIT -2 · Dead → Dying"
    sheet = await harness.sheet("Roryn")
    assert (sheet.state, sheet.recovered_this_round) == (State.DYING, False)

    survived = await harness.run(harness.owner, "recover", character="Roryn", faces="C")
    assert lines(survived)[0].startswith("**A Crit on the Last Gasp: Roryn survives")
    assert (await harness.sheet("Roryn")).recovered_this_round
    await harness.refusal(
        harness.owner,
        "recover",
        "already made its recovery roll this round",
        character="Roryn",
        faces="C",
    )


async def test_U_3_a_roll_that_changed_no_field_at_all_is_still_struck_from_the_record(harness):
    """Outside combat the GM's roll sets no flag: the undo finds nothing to revert, and goes
    through all the same (the event marked reverted, the undo logged); then nothing is left."""
    await harness.add_character("Roryn", res=2, vit=0, logged=True)
    before = await harness.sheet("Roryn")
    await harness.run(harness.gm, "recover", character="Roryn", faces="H M")
    assert await harness.sheet("Roryn") == before
    history = await harness.run(harness.gm, "history", character="Roryn")
    assert entries(history) == ["/recover", "/character create"]

    said = await undo(harness, "recover")
    assert len(said) == 2  # the headline and what it reverted: no field moved
    assert await harness.sheet("Roryn") == before
    undone, roll, _ = await harness.history("Roryn")
    assert undone.command == "undo" and undone.is_change
    assert roll.reverted and undone.inputs == {"event_id": roll.id, "command": "recover"}
    history = await harness.run(harness.gm, "history", character="Roryn")
    assert entries(history) == ["/undo", "/recover · undone", "/character create"]
    await harness.refusal(harness.gm, "undo", "Nothing to undo for Roryn", character="Roryn")


# --- every other roll: a Medicine check, a pushed Check, a situational breakdown --------------


async def test_U_2_a_failed_medicine_check_is_a_change_and_undone(harness):
    await harness.add_character("Roryn", res=2, vit=0)
    harness.script_values(3)  # 1d20 → 3, below 15
    failed = await harness.run(harness.gm, "aid", character="Roryn", roll="1d20", target=15)
    assert lines(failed)[0] == "**The Medicine check fails: Roryn gets no advantage.**"
    [event] = await harness.history("Roryn")
    assert event.command == "aid" and event.is_change and event.rolls
    await undo(harness, "aid")
    assert (await harness.history("Roryn", bookkeeping=True))[1].reverted


async def test_U_2_a_pushed_check_is_undone_with_its_stamina(harness):
    await harness.add_character("Roryn", stamina=5)
    harness.script_values(12)
    await harness.run(harness.owner, "push", character="Roryn", amount=2, roll="1d20", target=10)
    assert (await harness.sheet("Roryn")).stamina == 3
    said = await undo(harness, "push")
    assert said[1] == "Stamina 3/8 → 5/8"
    assert (await harness.sheet("Roryn")).stamina == 5


async def test_U_2_a_situational_breakdown_that_holds_is_a_change_and_undone(harness):
    await harness.add_character("Roryn", composure=2)
    before = await harness.sheet("Roryn")
    held = await harness.run(
        harness.gm, "breakdown", character="Roryn", emotion="fear", pressure=4, roll=9
    )
    assert "holds firm" in lines(held)[0]
    assert await harness.sheet("Roryn") == before
    history = await harness.run(harness.gm, "history", character="Roryn")
    assert entries(history) == ["/breakdown"]
    await undo(harness, "breakdown")
    assert await harness.sheet("Roryn") == before


# --- V-7 whole, E-6 on every roll, R-6 for the living ----------------------------------------


async def test_V_7_a_retirement_names_vit_and_state_though_vit_did_not_move(harness):
    """Issue 21, item 3: `VIT 3 · Up → Retired · Stress 2 → 3`, in the reply and /history."""
    await harness.add_character("Roryn", vit=3, stress=2, fear=4, breakdown="fear")
    result = await harness.run(harness.owner, "emotion", character="Roryn", emotion="fear")
    assert lines(result)[1] == "VIT 3 · Up → Retired · Stress 2 → 3"
    history = await harness.run(harness.owner, "history", character="Roryn")
    assert history_entries(history)[0].lines[2] == ("VIT 3 · Up → Retired · Stress 2 → 3")


async def test_E_6_a_recovery_roll_in_breakdown_shows_the_breakdown_line(harness):
    """Issue 21, item 4: as /push and /breakdown do."""
    await harness.add_character("Roryn", res=2, vit=0, fear=4, breakdown="fear")
    result = await harness.run(harness.gm, "recover", character="Roryn", faces="M H")
    assert breakdown_line(Emotion.FEAR) in lines(result)
    [event] = await harness.history("Roryn")
    assert "E-6" in event.rules


async def test_R_6_no_waiting_advantage_for_a_character_the_last_gasp_killed(harness):
    """Issue 21, item 7: with last_gasp_advantage: no, advantage waits for the next recovery
    roll, but a dead character makes none."""
    await harness.settings(last_gasp_advantage="no")
    await harness.add_character("Roryn", res=2, vit=-2, advantage=True)
    died = await harness.run(harness.gm, "recover", character="Roryn", faces="M")
    assert lines(died)[0] == "**The Last Gasp fails: Roryn is dead.**"
    assert "waits for the next recovery roll" not in died.card.body
    await harness.add_character("Sera", res=2, vit=-2, advantage=True)
    lived = await harness.run(harness.gm, "recover", character="Sera", faces="C")
    assert "waits for the next recovery roll" in lived.card.body


async def test_U_3_R_8_the_undo_of_a_roll_offers_the_roll_again_in_one_click(harness):
    """The undo gives back the round's roll (R-8): its reply carries "Recovery roll", and the
    owner's press makes the roll."""
    await harness.add_character("Roryn", res=2)
    await harness.start_combat(["Roryn"])
    await harness.run(harness.owner, "damage", character="Roryn", amount=10)
    await harness.run(harness.owner, "recover", character="Roryn", faces="M H")
    undone = await harness.run(harness.gm, "undo", character="Roryn")
    offered = {button.label: button for button in undone.card.buttons}
    assert set(offered) == {"Recovery roll", "Odds"}
    assert not offered["Recovery roll"].disabled
    harness.script("C H")
    rolled = await harness.click(harness.owner, undone.reply, offered["Recovery roll"].custom_id)
    assert not rolled.ephemeral
    assert lines(rolled)[0] == "**Roryn wakes up! One Crit: VIT 1/10.**"


async def test_U_3_an_undo_that_changes_nothing_down_offers_no_roll(harness):
    """An undo of an emotion of a character that is down leaves its roll where it was: no
    recovery button is added (only the odds)."""
    await harness.add_character("Roryn", res=2, vit=0)
    await harness.start_combat(["Roryn"])
    await harness.run(harness.owner, "emotion", character="Roryn", emotion="fear")
    undone = await harness.run(harness.gm, "undo", character="Roryn")
    labels = [button.label for button in undone.card.buttons]
    assert labels == ["Odds"]
