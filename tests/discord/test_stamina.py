"""/turn, /early, /react, /push, /spend driven as Discord drives them (docs/rules.md, Stamina;
C-3). Replies open with the headline; counters of the turn and the round are bookkeeping, told in
the small line at the end (docs/commands.md)."""

from __future__ import annotations

import pytest

from bot.render.common import FAILURE_COLOUR, STATE_COLOURS
from rules.models import Emotion, State
from tests.discord.conftest import assert_refused, history_entries


async def unchanged(harness, name, before):
    assert await harness.sheet(name) == before
    assert await harness.history(name, bookkeeping=True) == []


def lines(result) -> list[str]:
    return result.card.lines


# /turn (C-3)


async def test_turn_resets_the_reaction_cost_C_3(harness):
    await harness.add_character("Roryn", reactions_taken=2)
    result = await harness.run(harness.owner, "turn", character="Roryn")
    assert not result.ephemeral
    assert result.card.title == "🟢 Roryn · Start of turn"
    assert lines(result) == ["**Roryn's turn begins: the next reaction costs 1.**"]
    assert result.card.small == "reaction cost back to 1 · Rules: S-5 · C-3"
    assert (await harness.sheet("Roryn")).reactions_taken == 0
    # U-2: bookkeeping, logged but not a change
    assert await harness.history("Roryn") == []
    [event] = await harness.history("Roryn", bookkeeping=True)
    assert event.command == "turn" and not event.is_change


@pytest.mark.parametrize(
    ("vit", "state", "roll", "rule"),
    [
        (0, State.UNCONSCIOUS, "a recovery roll", "R-1"),
        (-1, State.CRITICAL, "a recovery roll", "R-3"),
        (-2, State.DYING, "the Last Gasp", "R-5"),
    ],
)
async def test_turn_reminds_a_downed_character_to_roll_C_3(harness, vit, state, roll, rule):
    await harness.add_character("Roryn", vit=vit)
    await harness.start_combat(["Roryn"])  # due now only in combat (else the GM's call)
    result = await harness.run(harness.gm, "turn", character="Roryn")
    assert lines(result) == [
        f"**Roryn is {state.value}: {roll} is due now, at the start of its turn (/recover).**"
    ]
    assert result.card.colour == STATE_COLOURS[state]
    assert result.card.small == f"Rules: S-5 · {rule} · C-3"  # not in the headline


async def test_turn_permissions_P_4(harness):
    before = await harness.add_character("Roryn", reactions_taken=2)
    assert_refused(await harness.run(harness.player, "turn", character="Roryn"), "owner or the GM")
    assert_refused(await harness.run(harness.outsider, "turn", character="Roryn"), "No character")
    await unchanged(harness, "Roryn", before)


# /early (S-4)


async def test_act_early_once_per_round_in_combat_S_4(harness):
    await harness.add_character("Roryn")
    await harness.start_combat(["Roryn"])
    result = await harness.run(harness.owner, "early", character="Roryn")
    assert not result.ephemeral
    assert result.card.title == "🟢 Roryn · Acts early"
    assert lines(result) == [
        "**Roryn acts before the enemy this round, for 1 Stamina.**",
        "Stamina 8/8 → 7/8",
    ]
    assert result.card.small == "Rules: S-4"
    assert (await harness.sheet("Roryn")).early_this_round
    again = await harness.run(harness.owner, "early", character="Roryn")
    assert_refused(again, "already acts early this round", "(S-4)")
    assert (await harness.sheet("Roryn")).stamina == 7


async def test_act_early_needs_a_combat_S_4(harness):
    before = await harness.add_character("Roryn")
    assert_refused(await harness.run(harness.gm, "early", character="Roryn"), "/combat add")
    await unchanged(harness, "Roryn", before)


async def test_act_early_permissions(harness):
    before = await harness.add_character("Roryn")
    await harness.start_combat(["Roryn"])
    assert_refused(await harness.run(harness.player, "early", character="Roryn"), "owner")
    assert_refused(await harness.run(harness.outsider, "early", character="Roryn"), "No character")
    await unchanged(harness, "Roryn", before)


# /react (S-5)


async def test_reactions_cost_more_each_time_S_5(harness):
    await harness.add_character("Roryn", stamina=3)
    first = await harness.run(harness.owner, "react", character="Roryn", what="dodge")
    assert first.card.title == "🟢 Roryn · Reaction"
    assert lines(first) == [
        "**Roryn reacts (dodge) for 1 Stamina; the next reaction costs 2.**",
        "Stamina 3/8 → 2/8",
    ]
    second = await harness.run(harness.gm, "react", character="Roryn")
    assert lines(second) == [
        "**Roryn reacts for 2 Stamina; the next reaction costs 3.**",
        "Stamina 2/8 → 0/8",
    ]
    third = await harness.run(harness.owner, "react", character="Roryn")
    assert_refused(third, "0 Stamina", "(S-8)")


async def test_a_reaction_too_dear_spends_nothing_S_5(harness):
    before = await harness.add_character("Roryn", stamina=1, reactions_taken=1)
    result = await harness.run(harness.owner, "react", character="Roryn")
    assert_refused(result, "costs 2 Stamina but Roryn has only 1/8: nothing was spent")
    await unchanged(harness, "Roryn", before)


async def test_react_permissions(harness):
    before = await harness.add_character("Roryn")
    assert_refused(await harness.run(harness.player, "react", character="Roryn"), "owner")
    assert_refused(await harness.run(harness.outsider, "react", character="Roryn"), "No character")
    await unchanged(harness, "Roryn", before)


# /push (S-6)


async def test_push_rolled_against_a_target_S_6(harness):
    await harness.add_character("Roryn")
    harness.script_values(5)
    result = await harness.run(
        harness.owner, "push", character="Roryn", amount=2, roll="1d8", target=6, what="climb"
    )
    card = result.card
    assert card.title == "🟢 Roryn · Pushes a Check"
    assert lines(result) == [
        "**Roryn pushes for +2: the Check succeeds (7 against 6).**",
        "Stamina 8/8 → 6/8",
        "Check (climb): `1d8` → 5, +2 push = 7 vs 6 ✓",  # the whole sum
        "The Stamina is spent whether the Check succeeds or not.",
    ]
    assert card.colour == STATE_COLOURS[State.UP]


async def test_push_includes_the_injury_condition_H_3(harness):
    await harness.add_character("Roryn", vit=5)
    harness.script_values(5)
    result = await harness.run(
        harness.owner, "push", character="Roryn", amount=2, roll="1d8", target=6
    )
    assert lines(result)[:3] == [
        "**Roryn pushes for +2: the Check fails (4 against 6).**",
        "Stamina 8/8 → 6/8",
        "Check: `1d8` → 5, +2 push, -3 injury = 4 vs 6 ✗",  # every part of the sum
    ]
    assert result.card.colour == FAILURE_COLOUR  # a failed check is never green
    assert "H-3" in result.card.small
    assert (await harness.sheet("Roryn")).stamina == 6  # lost whether it succeeds or fails


async def test_push_without_a_roll_S_6(harness):
    await harness.add_character("Roryn")
    result = await harness.run(harness.gm, "push", character="Roryn", amount=3)
    assert lines(result) == [
        "**Roryn spends 3 Stamina: +3 on the Check.**",
        "Stamina 8/8 → 5/8",
        "The Stamina is spent whether the Check succeeds or not.",
    ]


@pytest.mark.parametrize("amount", [0, 21])
async def test_push_range_is_checked_again(harness, amount):
    before = await harness.add_character("Roryn")
    result = await harness.run(harness.owner, "push", character="Roryn", amount=amount)
    assert_refused(result, "`amount` must be between 1 and 20")
    await unchanged(harness, "Roryn", before)


async def test_push_refusals(harness):
    before = await harness.add_character("Roryn", stamina=2)
    assert_refused(
        await harness.run(harness.owner, "push", character="Roryn", amount=3), "nothing was spent"
    )
    assert_refused(
        await harness.run(harness.owner, "push", character="Roryn", amount=1, target=5),
        "give a dice expression",
    )
    assert_refused(
        await harness.run(harness.owner, "push", character="Roryn", amount=1, roll="1d8+"),
        "is not a dice expression",
    )
    assert_refused(await harness.run(harness.player, "push", character="Roryn", amount=1), "owner")
    assert_refused(
        await harness.run(harness.outsider, "push", character="Roryn", amount=1), "No character"
    )
    await unchanged(harness, "Roryn", before)


# /spend (S-7, S-8)


async def test_spend_with_a_reason_S_7(harness):
    await harness.add_character("Roryn")
    result = await harness.run(
        harness.owner, "spend", character="Roryn", amount=3, reason="Channel Casting"
    )
    assert not result.ephemeral
    assert result.card.title == "🟢 Roryn · Spends Stamina"
    assert lines(result) == [
        "**Roryn spends 3 Stamina on Channel Casting.**",
        "Stamina 8/8 → 5/8",
    ]
    [event] = await harness.history("Roryn")
    assert event.inputs == {"amount": 3, "reason": "Channel Casting"}


async def test_spend_text_is_shown_literally(harness):
    await harness.add_character("Roryn")
    result = await harness.run(
        harness.owner, "spend", character="Roryn", amount=1, reason="**loud** @everyone"
    )
    description = result.card.body
    assert "\\*\\*loud\\*\\* \\@everyone" in description  # escaped: no bold, no mention


async def test_history_shows_what_the_stamina_was_for_U_1(harness):
    """/history shows the reason of a spend and what a push was for, escaped like any typed
    text, beside the change."""
    await harness.add_character("Roryn")
    await harness.run(
        harness.owner, "spend", character="Roryn", amount=1, reason="*Channel* Casting"
    )
    await harness.run(harness.owner, "push", character="Roryn", amount=2, what="climb @everyone")
    history = await harness.run(harness.owner, "history", character="Roryn")
    push, spend = (field.lines for field in history_entries(history)[:2])
    assert push[1:3] == ["for “climb \\@everyone”", "Stamina 7/8 → 5/8"]
    assert spend[1:3] == ["for “\\*Channel\\* Casting”", "Stamina 8/8 → 7/8"]


async def test_spend_refusals_S_8(harness):
    before = await harness.add_character("Roryn", stamina=0)
    result = await harness.run(harness.owner, "spend", character="Roryn", amount=1, reason="x")
    assert_refused(result, "0 Stamina", "/rest")
    assert_refused(
        await harness.run(harness.player, "spend", character="Roryn", amount=1, reason="x"), "owner"
    )
    assert_refused(
        await harness.run(harness.outsider, "spend", character="Roryn", amount=1, reason="x"),
        "No character",
    )
    assert_refused(
        await harness.run(harness.gm, "spend", character="Roryn", amount=21, reason="x"),
        "`amount` must be between 1 and 20",
    )
    await unchanged(harness, "Roryn", before)


async def test_gm_spends_for_anyone(harness):
    await harness.add_character("Roryn")
    result = await harness.run(harness.gm, "spend", character="Roryn", amount=2, reason="cold")
    assert lines(result)[1] == "Stamina 8/8 → 6/8"


async def test_the_gm_acts_early_for_anyone_S_4(harness):
    await harness.add_character("Roryn")
    await harness.start_combat(["Roryn"])
    result = await harness.run(harness.gm, "early", character="Roryn")
    assert lines(result)[1] == "Stamina 8/8 → 7/8"


async def test_a_character_that_is_down_spends_nothing(harness):
    """[interpretation] down, the character cannot act, react, push or spend Stamina."""
    before = await harness.add_character("Roryn", vit=-1)
    await harness.start_combat(["Roryn"])
    for command, options in (
        ("early", {}),
        ("react", {}),
        ("push", {"amount": 1}),
        ("spend", {"amount": 1, "reason": "x"}),
    ):
        result = await harness.run(harness.owner, command, character="Roryn", **options)
        assert_refused(result, "Roryn is Critical and cannot act or spend Stamina", "/recover")
    await unchanged(harness, "Roryn", before)


async def test_in_breakdown_a_reaction_recalls_the_effects_in_one_line_E_6(harness):
    """docs/commands.md: the Breakdown's effects in full when it begins, then as one line."""
    await harness.add_character("Roryn", fear=4, breakdown=Emotion.FEAR)
    result = await harness.run(harness.owner, "react", character="Roryn")
    assert lines(result) == [
        "**Roryn reacts for 1 Stamina; the next reaction costs 2.**",
        "Stamina 8/8 → 7/8",
        "In a Breakdown of Fear: Disadvantage on related actions and on all Reaction Rolls.",
    ]
    assert result.card.small == "Rules: S-5 · E-6"
