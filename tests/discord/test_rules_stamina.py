"""S-5, S-2, S-3 and V-5 (CON wounds) through the command tree (docs/rules.md, Stamina): payload
in, reply and database out; a refusal leaves every table as it was. On SQLite, and on
PostgreSQL when TEST_DATABASE_URL names a server."""

from __future__ import annotations

import pytest


@pytest.fixture
def harness(any_harness):
    return any_harness


def lines(result) -> list[str]:
    return result.card.body.splitlines()


async def react(harness, name: str = "Roryn") -> list[str]:
    result = await harness.run(harness.owner, "react", character=name)
    assert not result.ephemeral, result.text()
    return lines(result)


# --- S-5: the reaction count starts fresh with every fight ------------------------------------


async def test_S_5_the_first_reaction_of_the_next_fight_costs_1(harness):
    """The issue's case: three reactions in one fight, and the first of the next cost 4 (and 5
    after a full rest)."""
    await harness.add_character("Roryn", con_base=12)
    await harness.run(harness.gm, "combat start")
    await harness.run(harness.owner, "combat add", character="Roryn")
    assert (await react(harness))[0].endswith("for 1 Stamina; the next reaction costs 2.**")
    await react(harness)
    assert (await react(harness))[1] == "Stamina 9/12 → 6/12"
    ended = await harness.run(harness.gm, "combat end")
    assert lines(ended)[1] == "Roryn leaves the fight; reactions cost 1 Stamina again."
    assert ended.card.small == "Rules: C-2 · S-5"
    assert (await harness.sheet("Roryn")).reactions_taken == 0
    await harness.run(harness.owner, "rest", character="Roryn", kind="respite")
    await harness.run(harness.gm, "combat start")
    await harness.run(harness.owner, "combat add", character="Roryn")
    assert await react(harness) == [
        "**Roryn reacts for 1 Stamina; the next reaction costs 2.**",
        "Stamina 12/12 → 11/12",
    ]


async def test_S_5_joining_a_combat_starts_the_count_fresh(harness):
    await harness.add_character("Roryn", reactions_taken=3)
    await harness.run(harness.gm, "combat start")
    joined = await harness.run(harness.owner, "combat add", character="Roryn")
    assert joined.card.body.splitlines()[1] == "Its next reaction costs 1 Stamina."
    assert joined.card.small == "Rules: C-2 · S-5"
    assert (await react(harness))[0] == (
        "**Roryn reacts for 1 Stamina; the next reaction costs 2.**"
    )


async def test_S_5_leaving_a_combat_starts_the_count_fresh(harness):
    await harness.add_character("Roryn")
    await harness.start_combat(["Roryn"])
    await react(harness)
    await react(harness)
    left = await harness.run(harness.owner, "combat remove", character="Roryn")
    assert left.card.body == (
        "**Roryn leaves the combat in this channel (round 1).**\nIts next reaction costs 1 Stamina."
    )
    assert left.card.small == "Rules: C-2 · S-5"
    sheet = await harness.sheet("Roryn")
    assert (sheet.reactions_taken, sheet.stamina) == (0, 5)
    [event] = await harness.history("Roryn", bookkeeping=True, limit=1)
    assert event.command == "combat remove" and not event.is_change  # U-2: bookkeeping


async def test_S_5_the_count_resets_at_the_start_of_the_turn_by_default(harness):
    await harness.add_character("Roryn")
    await harness.start_combat(["Roryn"])
    await react(harness)
    await react(harness)
    await harness.run(harness.gm, "round")  # reaction_reset: turn — a round resets nothing
    assert (await react(harness))[0].endswith("for 3 Stamina; the next reaction costs 4.**")
    turn = await harness.run(harness.owner, "turn", character="Roryn")
    assert turn.card.small == "reaction cost back to 1 · Rules: S-5 · C-3"
    assert (await harness.sheet("Roryn")).reactions_taken == 0


async def test_S_5_with_reaction_reset_round_a_round_resets_the_count(harness):
    await harness.run(harness.gm, "settings set", reaction_reset="round")
    await harness.add_character("Roryn")
    await harness.start_combat(["Roryn"])
    await react(harness)
    await react(harness)
    await harness.run(harness.gm, "round")
    assert (await harness.sheet("Roryn")).reactions_taken == 0
    await harness.update("Roryn", reactions_taken=2)
    turn = await harness.run(harness.owner, "turn", character="Roryn")
    assert turn.card.small == "Rules: C-3"  # the turn resets nothing then
    assert (await harness.sheet("Roryn")).reactions_taken == 2


async def test_S_5_a_reaction_too_dear_is_refused_and_spends_nothing(harness):
    await harness.add_character("Roryn", stamina=2, reactions_taken=2)
    await harness.refusal(
        harness.owner,
        "react",
        "Reaction 3 costs 3 Stamina but Roryn has only 2/8: nothing was spent.",
        "The cost resets at the start of its turn.",
        character="Roryn",
    )


# --- S-2, S-3: CON wounds, recorded up to 3, the die floored at d6 ----------------------------


async def test_S_2_a_d8_character_carries_two_wounds(harness):
    """The issue's case: a wound at d6 was refused, so a d8 character could not carry two."""
    await harness.add_character("Roryn", con_base=8)
    first = await harness.run(harness.gm, "wound", character="Roryn")
    assert first.card.title == "🟢 Roryn · CON wound"
    assert lines(first) == [
        "**Roryn takes a CON wound (1 wound): CON d6, Stamina 6/6.**",
        "Stamina 8/8 → 6/6 · CON d8 → d6 · CON wounds 0 → 1",  # S-2: above the maximum, drops
    ]
    second = await harness.run(harness.gm, "wound", character="Roryn")
    assert lines(second) == [
        "**Roryn takes a CON wound (2 wounds); its CON die is already d6, the smallest, so "
        "nothing else changes.**",
        "CON wounds 1 → 2",
    ]
    sheet = await harness.sheet("Roryn")
    assert (sheet.con_wounds, sheet.con_die, sheet.max_stamina) == (2, 6, 6)


async def test_S_2_wounds_are_recorded_up_to_3(harness):
    await harness.add_character("Roryn", con_base=6)
    for wounds in (1, 2, 3):
        result = await harness.run(harness.gm, "wound", character="Roryn")
        assert lines(result)[1] == f"CON wounds {wounds - 1} → {wounds}"
    await harness.refusal(
        harness.gm,
        "wound",
        "Roryn already carries 3 CON wounds, the most a sheet records (S-2).",
        character="Roryn",
    )


async def test_S_2_a_wound_at_d12_steps_down_one_size(harness):
    await harness.add_character("Roryn", con_base=12, stamina=11)
    result = await harness.run(harness.gm, "wound", character="Roryn")
    assert lines(result)[1] == "Stamina 11/12 → 10/10 · CON d12 → d10 · CON wounds 0 → 1"


async def test_S_3_recovering_a_wound_below_the_floor_keeps_d6(harness):
    await harness.add_character("Roryn", con_base=8, con_wounds=2, stamina=3)
    first = await harness.run(harness.gm, "wound", character="Roryn", recover=True)
    assert first.card.title == "🟢 Roryn · CON wound recovered"
    assert lines(first) == [
        "**Roryn recovers a CON wound (1 wound left); its CON die stays d6.**",
        "CON wounds 2 → 1",
    ]
    second = await harness.run(harness.gm, "wound", character="Roryn", recover=True)
    assert lines(second) == [
        "**Roryn recovers a CON wound (0 wounds left): CON d8, Stamina can rise to 8 again.**",
        "Stamina 3/6 → 3/8 · CON d6 → d8 · CON wounds 1 → 0",  # the maximum rises, not Stamina
    ]
    await harness.refusal(
        harness.gm,
        "wound",
        "Roryn has no CON wound to recover (CON d8).",
        character="Roryn",
        recover=True,
    )


async def test_S_2_wounds_are_the_gms(harness):
    await harness.add_character("Roryn", con_wounds=1)
    for who in (harness.owner, harness.player):
        await harness.refusal(who, "wound", "(P-3)", character="Roryn")
        await harness.refusal(who, "wound", "(P-3)", character="Roryn", recover=True)


# --- V-5: no wound on the Dead or Retired ---------------------------------------------------------


@pytest.mark.parametrize(
    ("state", "fields"),
    [("Dead", {"vit": -3, "dead": True}), ("Retired", {"stress": 12, "retired": True})],
)
@pytest.mark.parametrize("recover", [False, True])
async def test_V_5_no_wound_on_the_dead_or_retired(harness, state, fields, recover):
    await harness.add_character("Roryn", con_wounds=1, **fields)
    doing = "recovering a CON wound" if recover else "a CON wound"
    await harness.refusal(
        harness.gm,
        "wound",
        f"Roryn is {state}: {doing} is not possible.",
        "/character revive",
        character="Roryn",
        recover=recover,
    )
