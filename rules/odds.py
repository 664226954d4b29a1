"""Exact odds for /odds: the next recovery roll, and the death spiral over the next rolls.

Everything is exact enumeration with `Fraction`: a die's faces give p(Miss), p(Hit), p(Crit)
(D-2), advantage rerolls each Miss once (D-3), and the number of Crits among n dice is binomial.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from math import comb

from rules.condition import must_retire
from rules.errors import RuleError
from rules.models import CriticalBleed, DeathRule, GuildSettings, Sheet, State, vitality_state
from rules.vitality import advantage_applies

MAX_SPIRAL_ROLLS = 50


@dataclass(frozen=True)
class DieOdds:
    """The chance of each final face of one Narateer die."""

    miss: Fraction
    hit: Fraction
    crit: Fraction


def die_odds(faces: str, *, advantage: bool = False) -> DieOdds:
    """D-2 faces as counted letters; D-3: with advantage a Miss is rerolled once."""
    size = len(faces)
    miss = Fraction(faces.count("M"), size)
    hit = Fraction(faces.count("H"), size)
    crit = Fraction(faces.count("C"), size)
    if advantage:
        # The reroll of a Miss lands on each face with the die's own odds.
        return DieOdds(miss=miss * miss, hit=hit + miss * hit, crit=crit + miss * crit)
    return DieOdds(miss=miss, hit=hit, crit=crit)


def crit_counts(dice: int, die: DieOdds) -> list[Fraction]:
    """P(exactly k Crits among `dice` dice), for k = 0..dice (binomial)."""
    return [comb(dice, k) * die.crit**k * (1 - die.crit) ** (dice - k) for k in range(dice + 1)]


@dataclass(frozen=True)
class RecoveryOutcome:
    """One distinct result of a recovery roll: where the character ends up, and how likely."""

    label: str
    probability: Fraction
    vit: int
    state: State


@dataclass(frozen=True)
class RecoveryOdds:
    """The next recovery roll of a character that is down (R-1..R-6).

    `normal` and `advantage` list the distinct results, each once, in the order worst to best
    as the rules produce them; each list sums to exactly 1.
    """

    state: State  # Unconscious, Critical or Dying: which roll is due
    dice: int
    normal: tuple[RecoveryOutcome, ...]
    advantage: tuple[RecoveryOutcome, ...]

    def outcomes(self, advantage: bool) -> tuple[RecoveryOutcome, ...]:
        return self.advantage if advantage else self.normal

    def chance(self, state: State, *, advantage: bool = False) -> Fraction:
        """The chance that the roll leaves the character in `state`."""
        return sum(
            (o.probability for o in self.outcomes(advantage) if o.state is state), Fraction(0)
        )


@dataclass(frozen=True)
class SpiralStep:
    """Where the character stands after `roll` more recovery rolls (1-based).

    Up, Dead and Retired are counted once reached, even though play could move on from them.
    """

    roll: int
    up: Fraction
    down: Fraction
    dead: Fraction
    retired: Fraction = Fraction(0)


def _state_at(sheet: Sheet, vit: int) -> State:
    """V-1..V-4 for a new VIT; E-7 on waking, as `finish` checks it after a recovery roll."""
    state = vitality_state(vit, sheet.res)
    # Only Stress retires: without it, no sheet to build.
    if state is State.UP and sheet.stress and must_retire(sheet.update(vit=vit)):
        return State.RETIRED
    return state


def _wake_label(vit: int, state: State) -> str:
    if state is State.RETIRED:
        return f"wake at VIT {vit}, now Retired (Stress ≥ VIT, E-7)"
    return f"wake at VIT {vit}"


def _outcomes(sheet: Sheet, settings: GuildSettings, advantage: bool) -> list[RecoveryOutcome]:
    """The results of the recovery roll due now, each distinct (VIT, state) once."""
    state, vit, res = sheet.state, sheet.vit, sheet.res
    die = die_odds(settings.die_faces, advantage=advantage_applies(advantage, state, settings))
    rows: list[tuple[str, Fraction, int]] = []
    if state is State.DYING:
        # one die; only a Crit stabilises at VIT 0 (still Dying when RES is 0, V-4).
        rows.append(("Dead", 1 - die.crit, vit))
        rows.append(("stabilise at VIT 0", die.crit, 0))
    elif state is State.UNCONSCIOUS:
        # RES dice; k Crits wake at min(max, k); no Crit changes nothing.
        counts = crit_counts(res, die)
        rows.append(("no change", counts[0], vit))
        rows += [("", counts[k], min(sheet.max_vit, k)) for k in range(1, res + 1)]
    else:
        # RES + VIT dice; k Crits give VIT k - 1. R-4: no Crit may cost 1 VIT.
        dice = sheet.recovery_dice
        counts = crit_counts(dice, die)
        all_miss = die.miss**dice
        bleeds = {
            CriticalBleed.ALL_MISS: all_miss,
            CriticalBleed.NO_CRIT: counts[0],
            CriticalBleed.NEVER: Fraction(0),
        }[settings.critical_bleed]
        # V-6 `instant`: the VIT a bleed takes below 0 kills.
        bleed = "Dead" if settings.death_rule is DeathRule.INSTANT else "lose 1 VIT"
        rows.append((bleed, bleeds, vit - 1))
        rows.append(("no change", counts[0] - bleeds, vit))
        rows.append(("stabilise at VIT 0", counts[1], 0))
        rows += [("", counts[k], min(sheet.max_vit, k - 1)) for k in range(2, dice + 1)]
    merged: dict[tuple[int, State], RecoveryOutcome] = {}
    for label, probability, new_vit in rows:
        if probability == 0:
            continue
        new_state = State.DEAD if label == "Dead" else _state_at(sheet, new_vit)
        key = (new_vit, new_state)
        if key in merged:
            probability += merged[key].probability
        merged[key] = RecoveryOutcome(
            label=_label(label, new_vit, new_state, state),
            probability=probability,
            vit=new_vit,
            state=new_state,
        )
    return list(merged.values())


def _label(label: str, vit: int, state: State, before: State) -> str:
    if not label:
        return _wake_label(vit, state)
    if label in ("Dead", "no change"):
        return label
    return f"{label}, {'still' if state is before else 'now'} {state.value}"


def _down(sheet: Sheet) -> None:
    if not sheet.state.is_down:
        raise RuleError(
            "{name} is " + sheet.state.value + ": recovery odds are for a character that is "
            "Unconscious, Critical or Dying.",
            name=sheet.name,
        )


def recovery_odds(sheet: Sheet, settings: GuildSettings) -> RecoveryOdds:
    """Exact odds of each result of the next recovery roll, without and with advantage."""
    _down(sheet)
    return RecoveryOdds(
        state=sheet.state,
        dice=sheet.recovery_dice,
        normal=tuple(_outcomes(sheet, settings, advantage=False)),
        advantage=tuple(_outcomes(sheet, settings, advantage=True)),
    )


def spiral(
    sheet: Sheet,
    settings: GuildSettings,
    rolls: int = 10,
    advantage_first: bool | None = None,
) -> list[SpiralStep]:
    """Chances of Up / still down / Dead (/ Retired) after each of the next `rolls` rolls.

    A Markov chain over the VIT of a down character (RES and max VIT do not change while down).
    R-6: advantage counts for the first roll only; `advantage_first=None` takes the sheet's flag.
    """
    _down(sheet)
    if not 1 <= rolls <= MAX_SPIRAL_ROLLS:
        raise RuleError(f"Look ahead 1 to {MAX_SPIRAL_ROLLS} recovery rolls.")
    advantage = sheet.advantage if advantage_first is None else advantage_first
    # The chain's state: VIT, and whether advantage still waits (R-6: a Last Gasp the guild
    # does not let it apply to leaves it for the next roll).
    down: dict[tuple[int, bool], Fraction] = {(sheet.vit, advantage): Fraction(1)}
    ended = {State.UP: Fraction(0), State.DEAD: Fraction(0), State.RETIRED: Fraction(0)}
    steps: list[SpiralStep] = []
    # The chain visits the same states roll after roll: each one's roll is worked out once.
    rolled: dict[tuple[int, bool], tuple[list[RecoveryOutcome], bool]] = {}
    for roll in range(1, rolls + 1):
        after: dict[tuple[int, bool], Fraction] = {}
        for (vit, pending), weight in down.items():
            if (vit, pending) not in rolled:
                current = sheet.update(vit=vit)
                still = pending and not advantage_applies(pending, current.state, settings)
                rolled[vit, pending] = (_outcomes(current, settings, pending), still)
            outcomes, still = rolled[vit, pending]
            for outcome in outcomes:
                share = weight * outcome.probability
                if outcome.state in ended:
                    ended[outcome.state] += share
                else:
                    key = (outcome.vit, still)
                    after[key] = after.get(key, Fraction(0)) + share
        down = after
        steps.append(
            SpiralStep(
                roll=roll,
                up=ended[State.UP],
                down=sum(down.values(), Fraction(0)),
                dead=ended[State.DEAD],
                retired=ended[State.RETIRED],
            )
        )
    return steps
