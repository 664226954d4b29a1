"""E-7 (retirement and revival) and E-10 (what raised an emotion) through the command tree
(docs/rules.md, Emotions, Stress and Breakdown): payload in, reply and database out; a refusal
leaves every table as it was. On SQLite, and on PostgreSQL when TEST_DATABASE_URL names a
server."""

from __future__ import annotations

import pytest

from bot.render.common import EMOTION_COLOUR, STATE_COLOURS
from rules.emotion_texts import BREAKDOWN_EFFECTS
from rules.models import Emotion, State
from tests.discord.conftest import history_entries, lines


@pytest.fixture
def harness(any_harness):
    return any_harness


# --- E-7: retirement, and a revival that would not retire again at once -----------------------


async def test_E_7_revive_refused_while_stress_is_at_least_vit(harness):
    """The issue's case: a Retired character with Stress ≥ VIT came back Up, to retire again at
    the next hit, with no warning."""
    await harness.add_character("Roryn", stress=12, retired=True)
    text = await harness.refusal(harness.gm, "character revive", character="Roryn")
    assert text == (
        "Roryn would retire again at once: Stress 12 is at least its VIT 10 (E-7). Lower Stress "
        "first: with the revive's stress option (e.g. stress:0) or with /character set."
    )
    await harness.refusal(
        harness.gm, "character revive", "Stress 10 is at least", character="Roryn", stress=10
    )


async def test_E_7_revive_stress_lowers_it(harness):
    await harness.add_character("Roryn", stress=12, retired=True)
    result = await harness.run(harness.gm, "character revive", character="Roryn", stress=2)
    assert result.card.title == "🟢 Roryn · Revived"
    assert lines(result) == [
        "**Roryn is back: Up at VIT 10/10.**",
        "VIT 10 · Retired → Up · Stress 12 → 2",
    ]
    assert result.card.colour == STATE_COLOURS[State.UP]
    sheet = await harness.sheet("Roryn")
    assert (sheet.state, sheet.stress, sheet.retired) == (State.UP, 2, False)
    [event] = await harness.history("Roryn")
    assert (event.command, event.inputs) == (
        "character revive",
        {"character": "Roryn", "stress": 2},
    )


async def test_E_7_a_dead_character_is_revived_at_vit_1_if_its_stress_allows(harness):
    await harness.add_character("Roryn", vit=-4, stress=1, dead=True)
    await harness.refusal(
        harness.gm, "character revive", "Stress 1 is at least its VIT 1", character="Roryn"
    )
    result = await harness.run(harness.gm, "character revive", character="Roryn", stress=0)
    assert lines(result)[:2] == [
        "**Roryn is back: Up at VIT 1/10.**",
        "VIT -4 → 1 · Dead → Up · Stress 1 → 0",
    ]


async def test_E_7_reviving_is_the_gms(harness):
    await harness.add_character("Roryn", stress=2, retired=True)
    for who in (harness.owner, harness.player):
        await harness.refusal(who, "character revive", "(P-3)", character="Roryn", stress=0)


async def test_E_7_stress_reaching_vit_retires_and_the_character_takes_no_part(harness):
    await harness.add_character("Roryn", vit=3, stress=2)
    result = await harness.run(harness.owner, "damage", character="Roryn", amount=1)
    assert result.card.title == "🕊️ Roryn · Damage"
    assert lines(result)[:2] == [
        "**Roryn must retire to a different life: Stress 2 has reached VIT 2.**",
        "VIT 3 → 2 · Up → Retired",
    ]
    assert result.card.colour == STATE_COLOURS[State.RETIRED]
    for command, options in (
        ("damage", {"amount": 1}),
        ("heal", {"amount": 1}),
        ("emotion", {"emotion": "fear"}),
        ("rest", {"kind": "short"}),
    ):
        await harness.refusal(harness.gm, command, "Roryn is Retired", character="Roryn", **options)


async def test_E_7_is_not_judged_while_down(harness):
    await harness.add_character("Roryn", vit=1, stress=3)
    result = await harness.run(harness.owner, "damage", character="Roryn", amount=2)
    assert lines(result)[1] == "VIT 1 → -1 · Up → Critical"  # the death rules decide
    assert not (await harness.sheet("Roryn")).retired


# --- E-10: the cause of an emotion, in the reply and in the history ------------------------------


@pytest.mark.parametrize(
    ("cause", "said"),
    [
        ("daring_throw", " after a Daring Throw"),
        ("reaction_roll", " after a Reaction Roll"),
        ("other", " after something in the story"),  # issue 21: `other` is named too
    ],
)
async def test_E_10_the_cause_is_shown_in_the_reply_and_logged(harness, cause, said):
    await harness.add_character("Roryn")
    result = await harness.run(
        harness.owner, "emotion", character="Roryn", emotion="fear", cause=cause
    )
    assert lines(result) == [f"**Roryn's Fear rises{said}: Fear 1/4.**", "Fear 0/4 → 1/4"]
    assert result.card.colour == EMOTION_COLOUR
    assert "E-10" in result.card.small
    [event] = await harness.history("Roryn")
    assert event.inputs == {"emotion": "fear", "stages": 1, "cause": cause}


async def test_E_10_the_cause_in_a_breakdown(harness):
    await harness.add_character("Roryn", fear=3)
    result = await harness.run(
        harness.owner, "emotion", character="Roryn", emotion="fear", stages=2, cause="daring_throw"
    )
    assert lines(result) == [
        "**Roryn falls into a Breakdown of Fear after a Daring Throw; the stage past the "
        "threshold adds 1 Stress.**",
        "Stress 0 → 1 · Fear 3/4 → 4/4",  # the headline names the Breakdown: not said twice
        f"In a Breakdown of Fear: {BREAKDOWN_EFFECTS[Emotion.FEAR]}",
    ]


async def test_E_10_other_is_the_default_and_is_named_too(harness):
    await harness.add_character("Roryn")
    result = await harness.run(harness.owner, "emotion", character="Roryn", emotion="guilt")
    assert lines(result)[0] == "**Roryn's Guilt rises after something in the story: Guilt 1/4.**"


async def test_E_10_the_cause_option_is_declared_with_its_choices(harness):
    tree = harness.bot.tree
    options = {o["name"]: o for o in tree.get_command("emotion").to_dict(tree)["options"]}
    assert [c["value"] for c in options["cause"]["choices"]] == [
        "daring_throw",
        "reaction_roll",
        "other",
    ]
    assert not options["cause"].get("required")


async def test_E_10_the_cause_is_shown_in_the_history(harness):
    """E-10: 'which the reply and the history show' (once /history showed no input)."""
    await harness.add_character("Roryn")
    await harness.run(
        harness.owner, "emotion", character="Roryn", emotion="fear", cause="daring_throw"
    )
    history = await harness.run(harness.owner, "history", character="Roryn")
    [entry] = history_entries(history)
    assert entry.lines[1:3] == ["raised by a Daring Throw", "Fear 0/4 → 1/4"]


async def test_E_10_a_situational_breakdowns_roll_raises_nothing(harness):
    await harness.add_character("Roryn", composure=0)
    harness.script_values(1)
    result = await harness.run(
        harness.gm, "breakdown", character="Roryn", emotion="fear", pressure=8
    )
    # E-9 decides: no stack, no Stress; the headline names the Breakdown, no change line repeats it
    assert lines(result)[1] == "Reaction Roll (Composure): `1d10` → 1 vs 8 ✗"
    assert "Stress" not in result.card.body
    assert "Fear 0/4" not in result.card.body
    sheet = await harness.sheet("Roryn")
    assert (sheet.fear, sheet.stress, sheet.breakdown) == (0, 0, Emotion.FEAR)


async def test_E_6_a_breakdown_begun_by_the_gm_shows_its_effects_in_full(harness):
    """A Breakdown begun by /character set (a stack set to the threshold) is told as every other
    Breakdown start (docs/commands.md): the E-6 effects in full, in purple; it was once one line
    in the state's green."""
    await harness.add_character("Roryn")
    result = await harness.run(harness.gm, "character set", character="Roryn", anger=4)
    assert f"In a Breakdown of Anger: {BREAKDOWN_EFFECTS[Emotion.ANGER]}" in lines(result)
    assert result.card.colour == EMOTION_COLOUR
    assert result.card.title == "🟢 Roryn · Breakdown"
