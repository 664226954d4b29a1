"""Property-based tests: random sequences of actions keep every sheet invariant."""

from __future__ import annotations

import random
from collections.abc import Callable

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules import emotions, sheet_ops, stamina, table, vitality
from rules.models import (
    CON_SIZES,
    CriticalBleed,
    DeathRule,
    Emotion,
    GuildSettings,
    ReactionReset,
    ReliefMethod,
    RestKind,
    Sheet,
    State,
)
from rules.outcome import Outcome, RuleError

# Actions a Dead or Retired character must refuse (V-5, E-7).
REFUSED_WHEN_OUT = {
    "damage",
    "heal",
    "recover",
    "first_aid",
    "act_early",
    "react",
    "push",
    "spend",
    "rest",
    "emotion",
    "relief",
    "quest",
    "breakdown",
    "turn",
}


@st.composite
def sheets(draw: st.DrawFn) -> Sheet:
    max_vit = draw(st.integers(1, 20))
    con_base = draw(st.sampled_from(CON_SIZES))
    wounds = draw(st.integers(0, CON_SIZES.index(con_base)))
    threshold = draw(st.integers(1, 6))
    breakdown = draw(st.none() | st.sampled_from(Emotion))
    top = threshold if breakdown else threshold - 1
    stacks = {e.value: draw(st.integers(0, top)) for e in Emotion}
    if breakdown:
        stacks[breakdown.value] = threshold
    draft = Sheet(name="P", owner_id=1, con_base=con_base, con_wounds=wounds, stamina=0)
    out = draw(st.sampled_from(["none"] * 18 + ["dead", "retired"]))
    vit = draw(st.integers(-25, max_vit))
    return Sheet(
        name="P",
        owner_id=1,
        max_vit=max_vit,
        vit=vit,
        res=draw(st.integers(0, 6)),
        con_base=con_base,
        con_wounds=wounds,
        stamina=draw(st.integers(0, draft.max_stamina)),
        humility=draw(st.integers(-3, 5)),
        composure=draw(st.integers(-3, 5)),
        insight=draw(st.integers(-3, 5)),
        threshold=threshold,
        stress=draw(st.sampled_from([0, 0, 0, 1, 2, 5, 12])),
        breakdown=breakdown,
        dead=out == "dead",
        retired=out == "retired",
        advantage=vit <= 0 and draw(st.booleans()),  # H-4: never while up
        relief_used_today=draw(st.booleans()),
        daily_bonus=draw(st.booleans()),
        reactions_taken=draw(st.integers(0, 4)),
        early_this_round=draw(st.booleans()),
        recovered_this_round=draw(st.sampled_from([False, False, False, True])),
        **stacks,
    )


guild_settings = st.builds(
    GuildSettings,
    die_faces=st.sampled_from(["MMMHHC", "MHC", "MMMMMC", "CC", "HHHHHC"]),
    death_rule=st.sampled_from(DeathRule),
    critical_bleed=st.sampled_from(CriticalBleed),
    reaction_reset=st.sampled_from(ReactionReset),
)

amounts = st.integers(1, 4) | st.integers(-1, 25)  # mostly small, sometimes out of range
mostly = st.sampled_from([True, True, True, False])
manual_faces = st.sampled_from([None, None, None, None, "C", "m c", "HH", "x"])
emotion_st = st.sampled_from(Emotion)

actions = st.one_of(
    st.tuples(st.just("damage"), amounts),
    st.tuples(st.just("heal"), amounts),
    st.tuples(st.just("recover"), mostly, st.booleans(), manual_faces),
    st.tuples(st.just("first_aid"), st.booleans()),
    st.tuples(st.just("recover"), mostly, st.booleans(), st.none()),
    st.tuples(st.just("turn")),
    st.tuples(st.just("act_early"), mostly),
    st.tuples(st.just("react")),
    st.tuples(st.just("push"), st.integers(0, 6), st.booleans()),
    st.tuples(st.just("spend"), st.integers(0, 6)),
    st.tuples(st.just("rest"), st.sampled_from(RestKind)),
    st.tuples(st.just("wound")),
    st.tuples(st.just("recover_wound")),
    st.tuples(st.just("emotion"), emotion_st, st.integers(0, 8)),
    st.tuples(st.just("relief"), st.sampled_from(ReliefMethod), st.none() | emotion_st),
    st.tuples(st.just("quest")),
    st.tuples(st.just("breakdown"), emotion_st, st.integers(0, 12)),
    st.tuples(st.just("round")),
    st.tuples(st.just("day")),
    st.tuples(st.just("revive")),
    st.tuples(
        st.just("edit"),
        st.fixed_dictionaries(
            {},
            optional={
                "max_vit": st.integers(0, 25),
                "res": st.integers(0, 6),
                "con_base": st.sampled_from([6, 7, 8, 10, 12]),
                "threshold": st.integers(0, 7),
            },
        ),
    ),
    st.tuples(
        st.just("set"),
        st.fixed_dictionaries(
            {},
            optional={
                "vit": st.integers(-30, 25),
                "stamina": st.integers(-1, 13),
                "stress": st.integers(-1, 15),
                "anger": st.integers(0, 7),
                "fear": st.integers(0, 7),
                "con_wounds": st.integers(0, 3),
            },
        ),
    ),
)


def apply(action: tuple, sheet: Sheet, guild: GuildSettings, rng: random.Random) -> Outcome:
    """One action of the sequence; list-returning actions give their only Outcome."""
    name, *args = action
    calls: dict[str, Callable[[], Outcome | list[Outcome]]] = {
        "damage": lambda: vitality.damage(sheet, args[0], guild),
        "heal": lambda: vitality.heal(sheet, args[0], guild),
        "recover": lambda: vitality.recover(
            sheet, guild, rng, faces=args[2], in_combat=args[0], by_gm=args[1]
        ),
        "first_aid": lambda: vitality.first_aid(sheet, guild, rng, success=args[0]),
        "turn": lambda: table.start_turn(sheet, guild),
        "act_early": lambda: stamina.act_early(sheet, in_combat=args[0]),
        "react": lambda: stamina.react(sheet),
        "push": lambda: stamina.push(
            sheet, args[0], rng, roll="1d8" if args[1] else None, target=5 if args[1] else None
        ),
        "spend": lambda: stamina.spend(sheet, args[0], "ability"),
        "rest": lambda: stamina.rest(sheet, args[0]),
        "wound": lambda: stamina.wound(sheet),
        "recover_wound": lambda: stamina.recover_wound(sheet),
        "emotion": lambda: emotions.raise_emotion(sheet, args[0], args[1]),
        "relief": lambda: emotions.relief(sheet, args[0], args[1]),
        "quest": lambda: emotions.complete_quest(sheet),
        "breakdown": lambda: emotions.situational_breakdown(sheet, args[0], args[1], guild, rng),
        "round": lambda: table.new_round([sheet], guild),
        "day": lambda: table.new_day([sheet]),
        "revive": lambda: sheet_ops.revive(sheet),
        "edit": lambda: sheet_ops.edit_sheet(sheet, **args[0]),
        "set": lambda: sheet_ops.set_fields(sheet, **args[0]),
    }
    result = calls[name]()
    return result[0] if isinstance(result, list) else result


def derived_state(sheet: Sheet) -> State:
    """V-1..V-5 written out again, independently of Sheet.state."""
    if sheet.dead:
        return State.DEAD
    if sheet.retired:
        return State.RETIRED
    dice = sheet.res + min(sheet.vit, 0)
    if sheet.vit > 0:
        return State.UP
    if dice <= 0:
        return State.DYING
    return State.UNCONSCIOUS if sheet.vit == 0 else State.CRITICAL


def assert_invariants(sheet: Sheet) -> None:
    assert sheet.vit <= sheet.max_vit
    assert 0 <= sheet.stamina <= sheet.max_stamina
    assert sheet.max_stamina == sheet.con_die
    for emotion in Emotion:
        assert 0 <= sheet.stack(emotion) <= sheet.threshold
        if sheet.stack(emotion) == sheet.threshold:
            assert sheet.breakdown is not None  # E-1
    assert sheet.stress >= 0
    assert sheet.state is derived_state(sheet)
    assert not (sheet.advantage and sheet.state is State.UP)  # H-4, R-6


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    start=sheets(),
    guild=guild_settings,
    steps=st.lists(st.tuples(actions, st.integers(0, 2**32)), min_size=5, max_size=30),
)
def test_random_action_sequences_keep_the_sheet_valid(start, guild, steps):
    sheet = start
    for action, seed in steps:
        snapshot = sheet.model_dump()
        was_out = sheet.state.is_out
        try:
            outcome = apply(action, sheet, guild, random.Random(seed))
        except RuleError as error:
            assert str(error).strip()
            assert sheet.model_dump() == snapshot  # a refusal changes nothing
            continue
        assert outcome.before == sheet
        # V-5, E-7: out of play refuses these, and stays out until revived
        assert not (was_out and action[0] in REFUSED_WHEN_OUT)
        if was_out and action[0] != "revive":
            assert outcome.after.state is sheet.state
        after = outcome.after
        assert_invariants(after)
        # V-7: a state change is named in the rules applied
        if after.state is not sheet.state:
            assert "V-7" in outcome.rules
        # E-7: retirement only happens while up
        if after.retired and not sheet.retired:
            assert after.vit > 0 and after.stress >= after.vit
        sheet = after


@settings(max_examples=200, deadline=None)
@given(start=sheets(), guild=guild_settings, seed=st.integers(0, 2**32))
def test_R_7_a_recovery_roll_moves_vit_only_by_the_rules(start, guild, seed):
    """R-2..R-5 as bounds: however the dice fall, VIT lands where the rules allow."""
    try:
        outcome = vitality.recover(start, guild, random.Random(seed), in_combat=True, by_gm=True)
    except RuleError:
        assert not start.state.is_down or start.recovered_this_round
        return
    before, after = start, outcome.after
    crits = outcome.rolls[0].crits
    assert len(outcome.rolls[0].faces) == before.recovery_dice
    if before.state is State.UNCONSCIOUS:
        assert after.vit == (min(before.max_vit, crits) if crits else 0)
    elif before.state is State.CRITICAL:
        assert after.vit in (min(before.max_vit, crits - 1), before.vit, before.vit - 1)
    else:
        assert (after.vit, after.dead) == ((0, False) if crits else (before.vit, True))
    assert not after.advantage


@settings(max_examples=200, deadline=None)
@given(start=sheets(), guild=guild_settings, action=actions, seed=st.integers(0, 2**32))
def test_D_5_every_action_replays_exactly_from_its_seed(start, guild, action, seed):
    def once() -> Outcome | str:
        try:
            return apply(action, start, guild, random.Random(seed))
        except RuleError as error:
            return str(error)

    assert once() == once()
