"""The round's limits and the readings marked [interpretation] in docs/rules.md, through the real
command tree with exact dice: R-8 (/turn, the recovery button and the status board say a roll is
due only when one may be made now), S-4a, S-5 outside combat, S-9, H-5, F-1, H-4 and E-7."""

from __future__ import annotations

import pytest

from bot.offline import Message
from bot.offline.layout import Button
from rules.models import State
from tests.discord.conftest import Harness, assert_refused, lines


def buttons(message: Message) -> dict[str, Button]:
    """label -> the button as a member sees it (custom id, style, disabled)."""
    return {button.label: button for button in message.card.buttons}


async def board_lines(harness: Harness) -> list[str]:
    """The status board's lines as /board start first posts them."""
    await harness.run(harness.gm, "board start")
    async with harness.db.transaction(harness.guild.id, read_only=True) as uow:
        board = await uow.board(harness.guild.channel_id)
    message = harness.driver.channel_messages[board.message_id]
    return message.card.lines


# --- R-8: /turn ----------------------------------------------------------------------------------


async def test_R_8_turn_in_combat_says_due_now_then_next_round(harness):
    await harness.add_character("Roryn", vit=-1, res=3)
    await harness.start_combat(["Roryn"])
    due = await harness.run(harness.owner, "turn", character="Roryn")
    assert lines(due)[0] == (
        "**Roryn is Critical: a recovery roll is due now, at the start of its turn (/recover).**"
    )
    harness.script("M H")
    await harness.run(harness.owner, "recover", character="Roryn")
    used = await harness.run(harness.owner, "turn", character="Roryn")
    assert lines(used)[0] == (
        "**Roryn is Critical: this round's recovery roll is made; the next one comes next round "
        "(R-8).**"
    )
    await harness.run(harness.gm, "round")
    again = await harness.run(harness.owner, "turn", character="Roryn")
    assert "is due now" in lines(again)[0]


async def test_R_8_turn_outside_combat_says_the_gm_calls_for_it(harness):
    await harness.add_character("Roryn", vit=-3, res=2)  # Dying
    result = await harness.run(harness.owner, "turn", character="Roryn")
    assert lines(result)[0] == (
        "**Roryn is Dying: outside combat the GM calls for the Last Gasp (R-8).**"
    )


# --- the recovery button ---------------------------------------------------------------------


async def test_R_8_a_critical_roll_bleeding_into_dying_offers_no_live_last_gasp(harness):
    """In combat the round's roll is used by the Critical roll: the reply's button says the
    Last Gasp comes next round and cannot be pressed; /recover is refused until /round."""
    await harness.add_character("Roryn", vit=-1, res=2)
    await harness.start_combat(["Roryn"])
    harness.script("M")
    result = await harness.run(harness.owner, "recover", character="Roryn")
    assert "now Dying at VIT -2" in lines(result)[0]
    row_id = (await harness.row("Roryn")).id
    shown = buttons(result.reply)
    assert set(shown) == {"Last Gasp next round", "Odds"}
    button = shown["Last Gasp next round"]
    assert button.disabled is True
    assert button.custom_id == f"lg:recover:{row_id}:-2:2"
    # An old enabled button with that id (a click Discord may still send) is refused privately.
    before = await harness.snapshot()
    harness.script("C")
    old = await harness.click(harness.owner, result.reply, button.custom_id)
    assert_refused(old, "already made its recovery roll this round")
    assert await harness.snapshot() == before
    # Next round the Last Gasp is due: /damage's fall to Dying would offer it live again.
    await harness.run(harness.gm, "round")
    rolled = await harness.click(harness.owner, result.reply, button.custom_id)
    assert "A Crit on the Last Gasp" in lines(rolled)[0]


async def test_R_8_outside_combat_the_gms_roll_offers_the_last_gasp_live(harness):
    await harness.add_character("Roryn", vit=-1, res=2)
    harness.script("M")
    result = await harness.run(harness.gm, "recover", character="Roryn")
    assert "now Dying at VIT -2" in lines(result)[0]
    button = buttons(result.reply)["Roll the Last Gasp"]
    assert not button.disabled


# --- the status board ------------------------------------------------------------------------


async def test_R_8_the_board_rolls_now_only_for_a_roll_that_may_be_made_now(harness):
    await harness.add_character("Bea", vit=0)  # Unconscious, due
    await harness.add_character("Cid", vit=-1, res=1)  # Dying, due
    await harness.add_character("Dora", vit=-1, res=3, recovered_this_round=True)  # rolled
    await harness.start_combat(["Bea", "Cid", "Dora"])
    board = await board_lines(harness)
    assert board[1].endswith("**Last Gasp now**") and board[1].startswith("🔴 Cid")
    assert board[2].endswith("**rolls now**") and board[2].startswith("🟡 Bea")
    assert board[3] == "🟠 Dora · Critical · VIT -1/10 · Stamina 8/8 · recovery roll next round"


async def test_R_8_outside_combat_the_board_says_the_gm_calls_for_it(harness):
    await harness.add_character("Fallen", vit=0)
    await harness.add_character("Gasping", vit=-3, res=2)
    await harness.add_character("Fine", vit=7)
    board = await board_lines(harness)
    assert board == [
        "🔴 Gasping · Dying · VIT -3/10 · Stamina 8/8 · Last Gasp: the GM calls for it",
        "🟡 Fallen · Unconscious · VIT 0/10 · Stamina 8/8 · recovery roll: the GM calls for it",
        "🟢 Fine · Up · VIT 7/10 · Stamina 8/8",
    ]
    assert "now" not in "\n".join(board)


# --- S-4a ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("command", "options"),
    [("react", {}), ("push", {"amount": 1}), ("spend", {"amount": 1, "reason": "a spell"})],
)
async def test_S_4a_no_early_after_other_spending_this_round(harness, command, options):
    await harness.add_character("Roryn")
    await harness.start_combat(["Roryn"])
    await harness.run(harness.owner, command, character="Roryn", **options)
    await harness.refusal(
        harness.owner,
        "early",
        "Roryn has already reacted, pushed or spent Stamina this round",
        "(S-4a)",
        "nothing was spent",
        character="Roryn",
    )
    await harness.run(harness.gm, "round")
    early = await harness.run(harness.owner, "early", character="Roryn")
    assert lines(early)[0] == "**Roryn acts before the enemy this round, for 1 Stamina.**"


# --- S-5 outside combat -------------------------------------------------------------------------


async def test_S_5_outside_combat_turn_resets_the_count_whatever_reaction_reset_says(harness):
    await harness.settings(reaction_reset="round")
    await harness.add_character("Roryn")
    await harness.run(harness.owner, "react", character="Roryn")
    await harness.run(harness.owner, "react", character="Roryn")  # 1 + 2
    turn = await harness.run(harness.owner, "turn", character="Roryn")
    assert lines(turn)[0] == "**Roryn's turn begins: the next reaction costs 1.**"
    third = await harness.run(harness.owner, "react", character="Roryn")
    assert lines(third)[0] == "**Roryn reacts for 1 Stamina; the next reaction costs 2.**"


async def test_S_5_a_new_day_resets_the_count_outside_combat_only(harness):
    await harness.add_character("Out", reactions_taken=2)
    await harness.add_character("Fights", reactions_taken=2)
    await harness.start_combat(["Fights"])
    await harness.run(harness.gm, "day")
    assert (await harness.sheet("Out")).reactions_taken == 0
    assert (await harness.sheet("Fights")).reactions_taken == 2
    react = await harness.run(harness.owner, "react", character="Out")
    assert lines(react)[0] == "**Out reacts for 1 Stamina; the next reaction costs 2.**"
    # bookkeeping, not a change (U-2): /history leaves the day out
    assert [e.command for e in await harness.history("Out")] == ["react"]


# --- S-9 -----------------------------------------------------------------------------------------


async def test_S_9_in_combat_only_the_gm_rests_a_character(harness):
    await harness.add_character("Roryn", stamina=2)
    await harness.start_combat(["Roryn"])
    text = await harness.refusal(harness.owner, "rest", kind="short", character="Roryn")
    assert text == (
        "Roryn is in a combat: a rest is narrative time, so while it fights only the GM may "
        "rest it (S-9). Ask the GM, or rest once the combat is over. Nothing was changed."
    )
    gm = await harness.run(harness.gm, "rest", kind="short", character="Roryn")
    assert lines(gm)[0] == "**Roryn takes a short rest and gets back 1 Stamina.**"
    await harness.run(harness.gm, "combat end")
    owner = await harness.run(harness.owner, "rest", kind="short", character="Roryn")
    assert (await harness.sheet("Roryn")).stamina == 4
    assert not owner.reply.ephemeral


# --- H-5 -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("vit", [0, -1, -3], ids=["Unconscious", "Critical", "Dying"])
async def test_H_5_a_character_that_is_down_spends_no_stamina(harness, vit):
    await harness.add_character("Roryn", vit=vit, res=2)
    await harness.start_combat(["Roryn"])
    state = (await harness.sheet("Roryn")).state.value
    for command, options in (
        ("early", {}),
        ("react", {"what": "a dodge"}),
        ("push", {"amount": 1}),
        ("spend", {"amount": 1, "reason": "a spell"}),
    ):
        await harness.refusal(
            harness.owner,
            command,
            f"Roryn is {state} and cannot act or spend Stamina until it is back up (H-5)",
            "Nothing was spent.",
            character="Roryn",
            **options,
        )


# --- F-1, H-4, E-7 -------------------------------------------------------------------------------


async def test_F_1_first_aid_on_a_character_who_is_up_is_refused(harness):
    await harness.add_character("Roryn", vit=4)
    text = await harness.refusal(harness.player, "aid", character="Roryn", success=True)
    assert text == (
        "Roryn is Up: first aid helps only a character that is Unconscious, Critical or Dying."
    )


async def test_H_4_waking_loses_the_unused_advantage(harness):
    await harness.add_character("Roryn", vit=0)
    await harness.run(harness.player, "aid", character="Roryn", success=True)
    assert (await harness.sheet("Roryn")).advantage
    woke = await harness.run(harness.owner, "heal", character="Roryn", amount=2)
    assert lines(woke)[0] == "**Roryn wakes up at VIT 2/10.**"
    assert woke.card.small.startswith("advantage lost on waking")
    sheet = await harness.sheet("Roryn")
    assert (sheet.state, sheet.advantage) == (State.UP, False)


async def test_E_7_revive_refused_until_character_set_lowers_stress(harness):
    await harness.add_character("Roryn", vit=3, stress=5, retired=True)
    text = await harness.refusal(harness.gm, "character revive", character="Roryn")
    assert text.endswith(
        "Lower Stress first: with the revive's stress option (e.g. stress:0) or with "
        "/character set."
    )
    await harness.run(harness.gm, "character set", character="Roryn", stress=2)
    assert (await harness.sheet("Roryn")).state is State.RETIRED
    revived = await harness.run(harness.gm, "character revive", character="Roryn")
    assert lines(revived)[0] == "**Roryn is back: Up at VIT 3/10.**"
