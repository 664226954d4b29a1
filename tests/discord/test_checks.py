"""/check (K-1..K-5) and its Raise buttons (K-4) through the command tree (docs/rules.md, Checks):
raw payloads in, the reply a member sees and the database out, every die scripted
(`harness.script_values`: a d20 shows the value given). A refusal leaves every table as it
was. The check's undo and the Raise buttons' double click run on SQLite and, when
TEST_DATABASE_URL names a server, on PostgreSQL."""

from __future__ import annotations

import asyncio
import copy
from typing import Any

import pytest

from bot.offline import Message, Result
from bot.render.common import EMOTION_COLOUR, FAILURE_COLOUR, STATE_COLOURS
from rules.emotion_texts import RELATED_ACTIONS
from rules.models import Emotion, State
from tests.discord.conftest import Harness, assert_refused, entries, history_entries, lines

RAISES = ["Raise Anger", "Raise Fear", "Raise Sadness", "Raise Guilt"]
UP = STATE_COLOURS[State.UP]


# --- helpers -------------------------------------------------------------------------------------


def callbacks(result: Result) -> list[Any]:
    return [r for r in result.requests if r.path.endswith("/callback")]


def raise_buttons(message: Message) -> dict[str, str]:
    """label -> custom id of the Raise buttons of a message."""
    return {b.label: b.custom_id for b in message.card.buttons if b.label.startswith("Raise ")}


def private_refusal(result: Result, *fragments: str) -> str:
    """The one private message of a click answered with a redraw first: the refusal that
    follows it."""
    private = [m for m in result.messages if m.ephemeral]
    assert len(private) == 1, result.text()
    card = private[0].card
    assert card.title is None and not card.buttons, result.text()
    assert card.colour == FAILURE_COLOUR, result.text()
    for fragment in fragments:
        assert fragment in card.body, f"{fragment!r} not in {card.body!r}"
    return card.body


async def checked(harness: Harness, member: Any = None, **options: Any) -> Result:
    """/check by `member` (the owner) for Roryn, answered publicly."""
    result = await harness.run(member or harness.owner, "check", character="Roryn", **options)
    assert not result.ephemeral, result.text()
    return result


@pytest.fixture
def both(any_harness):
    return any_harness


# --- K-1: the reply -------------------------------------------------------------------------------


async def test_K_1_an_action_roll_that_reaches_its_target_exactly_succeeds(harness):
    await harness.add_character("Roryn")
    harness.script_values(12)
    result = await checked(harness, target=12)
    card = result.card
    assert card.title == "🟢 Roryn · Action Roll"
    assert lines(result) == [
        "**Roryn's Action Roll succeeds: 12 against 12.**",
        "Action Roll: `1d20` → 12 vs 12 ✓",
    ]
    assert card.colour == UP
    assert card.small == "Rules: K-1"
    assert card.buttons == ()  # a plain Action Roll offers no Raise


async def test_K_1_a_failed_check_is_never_green(harness):
    await harness.add_character("Roryn")
    harness.script_values(11)
    result = await checked(harness, target=12)
    assert lines(result) == [
        "**Roryn's Action Roll fails: 11 against 12.**",
        "Action Roll: `1d20` → 11 vs 12 ✗",
    ]
    assert result.card.colour == FAILURE_COLOUR


async def test_K_1_without_a_target_it_totals(harness):
    await harness.add_character("Roryn")
    harness.script_values(7)
    result = await checked(harness)
    assert lines(result) == ["**Roryn's Action Roll totals 7.**", "Action Roll: `1d20` → 7"]
    assert result.card.colour == UP


async def test_K_1_K_2_every_part_of_the_sum_is_shown(harness):
    """Injured (-3), the daily +3 (E-4), a push of 2 (S-6), an ally in a Breakdown in the same
    combat (E-6), a roll of its own: `1d20+2` → 8 +2 = 10 … = 9 vs 15."""
    await harness.add_character("Roryn", vit=7, daily_bonus=True)
    await harness.add_character("Tam", owner=harness.player, fear=4, breakdown="fear")
    await harness.start_combat(["Roryn", "Tam"])
    harness.script_values(8)
    result = await checked(harness, roll="1d20+2", target=15, push=2, what="climb")
    assert result.card.title == "🟢 Roryn · Action Roll"
    assert lines(result) == [
        "**Roryn's Action Roll fails: 9 against 15.**",
        "Stamina 8/8 → 6/8",
        "Action Roll (climb): `1d20+2` → 8 +2 = 10, -3 injury, +3 daily bonus, +2 push, "
        "-3 ally's Breakdown = 9 vs 15 ✗",
        "Tam nearby is in a Breakdown: -3 on Action Rolls (E-6).",
        "The Stamina is spent whether the Check succeeds or not.",
    ]
    assert result.card.colour == FAILURE_COLOUR
    assert result.card.small == "Rules: K-1 · S-6 · E-4"  # the first three; /history has all
    sheet = await harness.sheet("Roryn")
    assert (sheet.stamina, sheet.spent_this_round) == (6, True)
    [event] = await harness.history("Roryn")
    assert event.command == "check"
    assert event.inputs == {
        "character": "Roryn",
        "kind": "action",
        "roll": "1d20+2",
        "target": 15,
        "push": 2,
        "what": "climb",
    }
    assert set(event.rules) == {"K-1", "K-2", "S-6", "E-4", "E-6", "H-3"}


async def test_K_1_a_reaction_roll_takes_the_reaction_column_alone(harness):
    await harness.add_character("Roryn", vit=3, daily_bonus=True)  # badly injured: -8 / -2
    harness.script_values(10)
    result = await checked(harness, kind="reaction", target=8)
    assert result.card.title == "🟢 Roryn · Reaction Roll"
    assert lines(result)[:2] == [
        "**Roryn's Reaction Roll succeeds: 8 against 8.**",
        "Reaction Roll: `1d20` → 10, -2 injury = 8 vs 8 ✓",
    ]


@pytest.mark.parametrize(("check_die", "values", "shown"), [("2d6", (3, 4), "`2d6` → 3, 4 = 7")])
async def test_K_1_the_servers_check_die_is_the_default(harness, check_die, values, shown):
    await harness.add_character("Roryn")
    await harness.run(harness.gm, "settings set", check_die=check_die)
    assert (await harness.settings()).check_die == check_die
    harness.script_values(*values)
    result = await checked(harness)
    assert lines(result)[1] == f"Action Roll: {shown}"
    harness.script_values(5)
    named = await checked(harness, roll="1d8")  # roll: names its own dice
    assert lines(named)[1] == "Action Roll: `1d8` → 5"


async def test_K_1_what_and_a_hostile_name_are_shown_literally(harness):
    name = "**Sir** @everyone"
    await harness.add_character(name)
    harness.script_values(4)
    result = await harness.run(harness.owner, "check", character=name, what="<@123> _x_")
    escaped = "\\*\\*Sir\\*\\* \\@everyone"
    assert result.card.title == f"🟢 {escaped} · Action Roll"
    assert lines(result) == [
        f"**{escaped}'s Action Roll totals 4.**",
        "Action Roll (\\<\\@123\\> \\_x\\_): `1d20` → 4",
    ]


# --- K-2: nearby ------------------------------------------------------------------------------


async def test_K_2_in_combat_an_ally_in_breakdown_is_nearby_without_being_told(harness):
    await harness.add_character("Roryn")
    await harness.add_character("Tam", owner=harness.player, anger=4, breakdown="anger")
    await harness.add_character("Bea", owner=harness.player, guilt=4, breakdown="guilt")
    await harness.start_combat(["Roryn", "Tam"])  # Bea is in no combat: not nearby
    harness.script_values(10)
    result = await checked(harness)
    assert lines(result)[1] == "Action Roll: `1d20` → 10, -3 ally's Breakdown = 7"
    assert "E-6" in result.card.small


async def test_K_2_the_ally_in_breakdown_is_named_literally(harness):
    await harness.add_character("Roryn")
    await harness.add_character("**Sir** @everyone", owner=harness.player, fear=4, breakdown="fear")
    await harness.start_combat(["Roryn", "**Sir** @everyone"])
    harness.script_values(10)
    result = await checked(harness)
    assert lines(result)[2] == (
        "\\*\\*Sir\\*\\* \\@everyone nearby is in a Breakdown: -3 on Action Rolls (E-6)."
    )


async def test_K_2_in_combat_the_combat_decides_whatever_the_roller_says(harness):
    await harness.add_character("Roryn")
    await harness.add_character("Tam", owner=harness.player)
    await harness.add_character("Bea", owner=harness.player, guilt=4, breakdown="guilt")
    await harness.start_combat(["Roryn", "Tam"])
    harness.script_values(10)
    result = await checked(harness, nearby_breakdown=True)
    assert lines(result) == ["**Roryn's Action Roll totals 10.**", "Action Roll: `1d20` → 10"]


@pytest.mark.parametrize("out", [{"dead": True, "vit": -4}, {"retired": True, "stress": 12}])
async def test_K_2_an_ally_out_of_the_story_is_not_nearby(harness, out):
    await harness.add_character("Roryn")
    await harness.add_character("Tam", owner=harness.player, fear=4, breakdown="fear", **out)
    await harness.start_combat(["Roryn", "Tam"])
    harness.script_values(10)
    result = await checked(harness)
    assert lines(result)[1] == "Action Roll: `1d20` → 10"


async def test_K_2_outside_combat_only_when_the_roller_says_so(harness):
    await harness.add_character("Roryn")
    await harness.add_character("Tam", owner=harness.player, fear=4, breakdown="fear")
    harness.script_values(10)
    plain = await checked(harness)
    assert lines(plain)[1] == "Action Roll: `1d20` → 10"
    harness.script_values(10)
    said = await checked(harness, nearby_breakdown=True)
    assert lines(said)[1:] == [
        "Action Roll: `1d20` → 10, -3 ally's Breakdown = 7",
        "An ally nearby is in a Breakdown: -3 on Action Rolls (E-6).",
    ]
    [event, _] = await harness.history("Roryn")
    assert event.inputs["nearby_breakdown"] is True


async def test_K_2_the_note_of_an_ally_said_nearby_is_a_sentence(harness):
    await harness.add_character("Roryn")
    harness.script_values(10)
    said = await checked(harness, nearby_breakdown=True)
    note = lines(said)[2]
    assert "nearby is in a Breakdown" in note
    assert note[0].isupper(), note


# --- K-3: Disadvantage ----------------------------------------------------------------------------


async def test_K_3_a_reaction_roll_in_breakdown_shows_both_rolls_the_lower_kept(harness):
    await harness.add_character("Roryn", fear=4, breakdown="fear")
    harness.script_values(15, 6)
    result = await checked(harness, kind="reaction", target=8)
    assert lines(result)[:4] == [
        "**Roryn's Reaction Roll fails: 6 against 8.**",
        "Reaction Roll: `1d20` → 6 vs 8 ✗",
        "Reaction Roll: `1d20` → 15 · not kept, the lower counts",
        "Disadvantage (every Reaction Roll in a Breakdown): rolled twice, the lower total counts.",
    ]
    assert result.card.colour == FAILURE_COLOUR
    [event] = await harness.history("Roryn")
    assert [(r.dice, r.dropped) for r in event.rolls] == [((6,), False), ((15,), True)]
    history = await harness.run(harness.owner, "history", character="Roryn")
    [entry] = history_entries(history)
    assert entry.lines[2:4] == [  # every die, the one set aside too
        "Reaction Roll: `1d20` → 6 vs 8 ✗",
        "Reaction Roll: `1d20` → 15 · not kept, the lower counts",
    ]


async def test_K_3_a_related_action_names_the_breakdowns_related_actions(harness):
    await harness.add_character("Roryn", anger=4, breakdown="anger")
    harness.script_values(3, 17)
    result = await checked(harness, related=True)
    assert lines(result) == [
        "**Roryn's Action Roll totals 3.**",
        "Action Roll: `1d20` → 3",
        "Action Roll: `1d20` → 17 · not kept, the lower counts",
        "Disadvantage (an action related to Anger): rolled twice, the lower total counts.",
        f"Related to Anger: {RELATED_ACTIONS[Emotion.ANGER]}",
    ]


async def test_K_3_related_outside_a_breakdown_rolls_once_and_says_so(harness):
    await harness.add_character("Roryn")
    harness.script_values(3)
    result = await checked(harness, related=True)
    assert lines(result) == [
        "**Roryn's Action Roll totals 3.**",
        "Action Roll: `1d20` → 3",
        "No Breakdown: a related action rolls as any other.",
    ]


# --- K-2, K-5: the push, paid and given back ------------------------------------------------------


async def test_K_5_a_pushed_check_is_undone_and_the_stamina_comes_back(both):
    harness = both
    await harness.add_character("Roryn")
    harness.script_values(6)
    await checked(harness, push=3, target=10)
    assert (await harness.sheet("Roryn")).stamina == 5
    history = await harness.run(harness.owner, "history", character="Roryn")
    [entry] = history_entries(history)
    assert entry.name == "/check"
    assert "Stamina 8/8 → 5/8" in entry.lines
    assert "Action Roll: `1d20` → 6, +3 push = 9 vs 10 ✗" in entry.lines
    undone = await harness.run(harness.gm, "undo", character="Roryn")
    assert not undone.ephemeral
    assert "Stamina 5/8 → 8/8" in undone.card.body
    sheet = await harness.sheet("Roryn")
    assert (sheet.stamina, sheet.spent_this_round) == (8, False)
    after = await harness.run(harness.owner, "history", character="Roryn")
    assert entries(after) == ["/undo", "/check · undone"]


async def test_K_5_a_check_that_changed_nothing_is_still_a_change_shown_and_undone(both):
    harness = both
    await harness.add_character("Roryn")
    harness.script_values(14)
    await checked(harness, kind="reaction", target=10, what="dodge")
    history = await harness.run(harness.gm, "history", character="Roryn")
    [entry] = history_entries(history)
    assert entry.name == "/check"
    assert "Reaction Roll (dodge): `1d20` → 14 vs 10 ✓" in entry.lines
    undone = await harness.run(harness.gm, "undo", character="Roryn")
    assert "/check" in undone.card.body
    [undo, check] = await harness.history("Roryn")
    assert (undo.command, check.command, check.reverted_by) == ("undo", "check", undo.id)


@pytest.mark.parametrize(
    ("stamina", "push", "said"),
    [(2, 3, "nothing was spent"), (0, 1, "has 0 Stamina")],
)
async def test_K_2_a_push_without_the_stamina_is_refused_and_nothing_is_spent(
    both, stamina, push, said
):
    harness = both
    await harness.add_character("Roryn", stamina=stamina)
    rng = harness.script_values(9)
    await harness.refusal(harness.owner, "check", said, character="Roryn", push=push)
    assert rng.remaining == 1  # nothing rolled


async def test_K_2_a_push_on_a_reaction_roll_is_refused(harness):
    await harness.add_character("Roryn")
    await harness.refusal(
        harness.owner,
        "check",
        "leave out push on a Reaction Roll. Nothing was spent.",
        character="Roryn",
        kind="reaction",
        push=1,
    )


async def test_K_4_a_daring_reaction_roll_is_refused(harness):
    await harness.add_character("Roryn")
    await harness.refusal(
        harness.owner,
        "check",
        "A Daring Throw is an Action Roll",
        character="Roryn",
        kind="reaction",
        daring=True,
    )


@pytest.mark.parametrize("push", [0, 21])
async def test_K_2_the_push_range_is_checked_again(harness, push):
    await harness.add_character("Roryn")
    await harness.refusal(harness.owner, "check", "between 1 and 20", character="Roryn", push=push)


async def test_K_1_a_bad_dice_expression_is_refused(harness):
    await harness.add_character("Roryn")
    await harness.refusal(
        harness.owner, "check", "is not a dice expression", character="Roryn", roll="1d20+"
    )


# --- P-4: who may check ---------------------------------------------------------------------------


async def test_P_4_the_owner_and_the_gm_check_another_player_is_refused(harness):
    await harness.add_character("Roryn")
    await harness.refusal(harness.player, "check", "(P-4)", character="Roryn")
    await harness.refusal(harness.outsider, "check", "No character", character="Roryn")
    await harness.refusal(harness.player, "check", "(P-4)", character="Roryn", push=1)
    harness.script_values(9)
    by_gm = await checked(harness, harness.gm, target=5)
    assert lines(by_gm)[0] == "**Roryn's Action Roll succeeds: 9 against 5.**"
    [event] = await harness.history("Roryn")
    assert event.user_id == harness.gm.user_id


async def test_K_1_the_active_character_is_the_default(harness):
    await harness.add_character("Roryn")
    await harness.select(harness.owner, "Roryn")
    harness.script_values(2)
    result = await harness.run(harness.owner, "check")
    assert lines(result)[0] == "**Roryn's Action Roll totals 2.**"


# --- K-5: who makes no Check ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fields", "said"),
    [
        ({"vit": 0}, "Roryn is Unconscious: a character who is down makes no Check (K-5)"),
        ({"vit": -1}, "Roryn is Critical: a character who is down makes no Check (K-5)"),
        ({"vit": -2}, "Roryn is Dying: a character who is down makes no Check (K-5)"),
        ({"vit": -4, "dead": True}, "Roryn is Dead: it makes no Check (K-5)"),
        ({"stress": 12, "retired": True}, "Roryn is Retired: it makes no Check (K-5)"),
    ],
)
@pytest.mark.parametrize(
    "options", [{}, {"push": 1}, {"kind": "reaction"}, {"daring": True, "target": 3}]
)
async def test_K_5_no_check_for_the_down_the_dead_and_the_retired(both, fields, said, options):
    harness = both
    await harness.add_character("Roryn", res=2, **fields)
    rng = harness.script_values(10)
    for member in (harness.owner, harness.gm):
        await harness.refusal(member, "check", said, character="Roryn", **options)
    assert rng.remaining == 1


# --- K-4: the Raise buttons -----------------------------------------------------------------------


async def test_K_4_a_daring_throw_and_a_reaction_roll_end_with_four_raise_buttons(harness):
    await harness.add_character("Roryn")
    row_id = (await harness.row("Roryn")).id
    harness.script_values(10)
    daring = await checked(harness, daring=True, target=12)
    assert daring.card.title == "🟢 Roryn · Daring Throw"
    assert lines(daring) == [
        "**Roryn's Daring Throw fails: 10 against 12.**",
        "Daring Throw: `1d20` → 10 vs 12 ✗",
        "If the Daring Throw stirred an emotion, raise it below (E-10).",
    ]
    assert list(raise_buttons(daring.reply)) == RAISES
    assert raise_buttons(daring.reply)["Raise Fear"] == f"lg:raise:{row_id}:fear:daring_throw:0:0"
    harness.script_values(10)
    reaction = await checked(harness, kind="reaction")
    assert list(raise_buttons(reaction.reply)) == RAISES
    assert raise_buttons(reaction.reply)["Raise Guilt"] == (
        f"lg:raise:{row_id}:guilt:reaction_roll:0:0"
    )
    assert {"K-4", "E-10"} <= set(reaction.card.small.removeprefix("Rules: ").split(" · "))


async def test_K_4_one_press_one_stage_with_its_cause_and_the_buttons_redrawn(both):
    harness = both
    await harness.add_character("Roryn", fear=1)
    row_id = (await harness.row("Roryn")).id
    harness.script_values(10)
    daring = await checked(harness, daring=True)
    drawn = copy.deepcopy(daring.reply)
    pressed = await harness.click(harness.owner, daring.reply, raise_buttons(drawn)["Raise Fear"])
    assert len(callbacks(pressed)) == 1
    assert callbacks(pressed)[0].payload["type"] == 7  # the clicked message itself, edited
    redrawn, posted = pressed.messages
    assert redrawn.card.texts == drawn.card.texts and redrawn.card.colour == drawn.card.colour
    # The Check stays as it was, its buttons drawn for the sheet as it is now.
    assert redrawn.id == daring.reply.id
    assert lines(pressed)[:2] == [
        "**Roryn's Daring Throw totals 10.**",
        "Daring Throw: `1d20` → 10",
    ]
    assert raise_buttons(redrawn)["Raise Fear"] == f"lg:raise:{row_id}:fear:daring_throw:2:0"
    assert raise_buttons(redrawn)["Raise Anger"] == f"lg:raise:{row_id}:anger:daring_throw:0:0"
    # The raise, posted publicly as /emotion posts it.
    assert not posted.ephemeral
    assert posted.card.title == "🟢 Roryn · Emotion"
    assert posted.card.lines == [
        "**Roryn's Fear rises after a Daring Throw: Fear 2/4.**",
        "Fear 1/4 → 2/4",
    ]
    assert posted.card.colour == EMOTION_COLOUR
    assert (await harness.sheet("Roryn")).fear == 2
    [event, _] = await harness.history("Roryn")
    assert (event.command, event.inputs) == (
        "emotion",
        {"emotion": "fear", "stages": 1, "cause": "daring_throw"},
    )
    history = await harness.run(harness.owner, "history", character="Roryn")
    raised = history_entries(history)[0]
    assert raised.name == "/emotion"
    assert raised.lines[1:3] == ["raised by a Daring Throw", "Fear 1/4 → 2/4"]


async def test_K_4_the_gm_may_press_another_player_is_refused_privately(harness):
    await harness.add_character("Roryn")
    harness.script_values(10)
    reaction = await checked(harness, kind="reaction")
    shown = copy.deepcopy(reaction.reply)
    before = await harness.snapshot()
    refused = await harness.click(harness.player, shown, raise_buttons(shown)["Raise Anger"])
    assert len(callbacks(refused)) == 1
    assert_refused(refused, "(P-4)")
    assert await harness.snapshot() == before
    assert harness.driver.messages[reaction.reply.id].card == shown.card  # not redrawn
    # A member of another server cannot reach the character through the button either.
    far = await harness.click(harness.outsider, shown, raise_buttons(shown)["Raise Anger"])
    assert "Roryn" not in assert_refused(far)
    assert await harness.snapshot() == before
    by_gm = await harness.click(harness.gm, shown, raise_buttons(shown)["Raise Anger"])
    assert by_gm.messages[1].card.lines[0] == (
        "**Roryn's Anger rises after a Reaction Roll: Anger 1/4.**"
    )
    assert (await harness.sheet("Roryn")).anger == 1


async def test_K_4_a_double_click_raises_once_and_tells_the_second_privately(both):
    """Two clicks on the Check as first drawn (the client had not redrawn it yet)."""
    harness = both
    await harness.add_character("Roryn")
    harness.script_values(10)
    daring = await checked(harness, daring=True)
    shown = copy.deepcopy(daring.reply)
    fear = raise_buttons(shown)["Raise Fear"]
    first = await harness.click(harness.owner, shown, fear)
    assert first.messages[1].card.lines[0] == (
        "**Roryn's Fear rises after a Daring Throw: Fear 1/4.**"
    )
    before = await harness.snapshot()
    second = await harness.click(harness.owner, shown, fear)
    assert len(callbacks(second)) == 1
    text = private_refusal(second, "already counted", "Nothing more was raised")
    assert "Fear is 1/4, Stress 0" in text
    # The Check redrawn (as it stands: Fear 1), the refusal private; no raise posted.
    assert (second.messages[0].id, second.messages[0].ephemeral) == (daring.reply.id, False)
    assert not [m for m in second.messages if m.card.title == "🟢 Roryn · Emotion"]
    assert await harness.snapshot() == before
    assert (await harness.sheet("Roryn")).fear == 1
    assert [e.command for e in await harness.history("Roryn")] == ["emotion", "check"]


async def test_K_4_a_double_click_in_flight_together_raises_once(both):
    harness = both
    await harness.add_character("Roryn")
    harness.script_values(10)
    reaction = await checked(harness, kind="reaction")
    shown = copy.deepcopy(reaction.reply)
    sadness = raise_buttons(shown)["Raise Sadness"]
    results = await asyncio.gather(
        harness.click(harness.owner, shown, sadness),
        harness.click(harness.owner, copy.deepcopy(shown), sadness),
    )
    assert (await harness.sheet("Roryn")).sadness == 1
    assert [e.command for e in await harness.history("Roryn")] == ["emotion", "check"]
    raised = [r for r in results if any(m.card.title == "🟢 Roryn · Emotion" for m in r.messages)]
    assert len(raised) == 1
    [other] = [r for r in results if r is not raised[0]]
    private_refusal(other, "already counted")


async def test_K_4_a_press_on_the_redrawn_buttons_raises_again(harness):
    await harness.add_character("Roryn")
    harness.script_values(10)
    daring = await checked(harness, daring=True)
    await harness.click(harness.owner, daring.reply, raise_buttons(daring.reply)["Raise Guilt"])
    now = harness.driver.messages[daring.reply.id]  # the Check as redrawn
    again = await harness.click(harness.owner, now, raise_buttons(now)["Raise Guilt"])
    assert again.messages[1].card.lines == [
        "**Roryn's Guilt rises after a Daring Throw: Guilt 2/4.**",
        "Guilt 1/4 → 2/4",
    ]
    assert (await harness.sheet("Roryn")).guilt == 2


async def test_K_4_a_stale_press_redraws_the_buttons_so_that_the_next_press_counts(harness):
    """After a stale press the message shows the sheet as it is: pressing that counts."""
    await harness.add_character("Roryn")
    harness.script_values(10)
    daring = await checked(harness, daring=True)
    shown = copy.deepcopy(daring.reply)
    await harness.run(harness.owner, "emotion", character="Roryn", emotion="anger")  # meanwhile
    stale = await harness.click(harness.owner, shown, raise_buttons(shown)["Raise Anger"])
    private_refusal(stale, "Nothing more was raised")
    assert (await harness.sheet("Roryn")).anger == 1
    now = harness.driver.messages[daring.reply.id]
    assert raise_buttons(now)["Raise Anger"].endswith(":anger:daring_throw:1:0")
    fresh = await harness.click(harness.owner, now, raise_buttons(now)["Raise Anger"])
    assert fresh.messages[1].card.lines[0] == (
        "**Roryn's Anger rises after a Daring Throw: Anger 2/4.**"
    )


async def test_K_4_E_1_a_press_at_the_threshold_begins_a_breakdown(harness):
    await harness.add_character("Roryn", fear=3)
    harness.script_values(10)
    reaction = await checked(harness, kind="reaction")
    pressed = await harness.click(
        harness.owner, reaction.reply, raise_buttons(reaction.reply)["Raise Fear"]
    )
    posted = pressed.messages[1]
    assert posted.card.title == "🟢 Roryn · Breakdown"
    assert posted.card.lines[0] == "**Roryn falls into a Breakdown of Fear after a Reaction Roll.**"
    assert (await harness.sheet("Roryn")).breakdown is Emotion.FEAR


async def test_K_4_E_2_a_press_in_breakdown_adds_stress(harness):
    await harness.add_character("Roryn", anger=4, breakdown="anger")
    harness.script_values(12, 5)  # a Reaction Roll in a Breakdown: Disadvantage
    reaction = await checked(harness, kind="reaction")
    pressed = await harness.click(
        harness.owner, reaction.reply, raise_buttons(reaction.reply)["Raise Fear"]
    )
    assert pressed.messages[1].card.lines[:2] == [
        "**Roryn is in a Breakdown: Fear rises after a Reaction Roll as Stress instead, +1 "
        "(Stress 1).**",
        "Stress 0 → 1",
    ]
    sheet = await harness.sheet("Roryn")
    assert (sheet.fear, sheet.stress) == (0, 1)
    assert raise_buttons(pressed.messages[0])["Raise Fear"].endswith(":fear:reaction_roll:0:1")
    [event, _] = await harness.history("Roryn")
    assert "E-2" in event.rules


async def test_K_4_E_7_a_press_that_makes_stress_reach_vit_retires(harness):
    await harness.add_character("Roryn", vit=3, stress=2, guilt=4, breakdown="guilt")
    harness.script_values(9, 9)
    reaction = await checked(harness, kind="reaction")
    pressed = await harness.click(
        harness.gm, reaction.reply, raise_buttons(reaction.reply)["Raise Anger"]
    )
    posted = pressed.messages[1]
    assert posted.card.lines[:2] == [
        "**Roryn must retire to a different life: Stress 3 has reached VIT 3.**",
        "VIT 3 · Up → Retired · Stress 2 → 3",
    ]
    assert posted.card.colour == STATE_COLOURS[State.RETIRED]
    sheet = await harness.sheet("Roryn")
    assert (sheet.state, sheet.stress) == (State.RETIRED, 3)
    [event, _] = await harness.history("Roryn")
    assert event.rules[0] == "E-7"
    # Retired, it makes no Check any more (K-5).
    await harness.refusal(harness.owner, "check", "Roryn is Retired", character="Roryn")
