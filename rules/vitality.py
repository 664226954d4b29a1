"""Damage, magic healing, recovery rolls and first aid (seed 000: H-1, H-2, R-1..R-8, F-1)."""

from __future__ import annotations

import random

from rules import notation
from rules.condition import finish, refuse_if_out
from rules.dice import CRIT, MISS, manual_narateer, roll_narateer
from rules.models import CriticalBleed, DeathRule, GuildSettings, ReactionReset, Sheet, State
from rules.outcome import Outcome, RuleError

MAX_AMOUNT = 10_000


def _amount(amount: int, what: str) -> None:
    if isinstance(amount, bool) or not isinstance(amount, int) or not 1 <= amount <= MAX_AMOUNT:
        raise RuleError(f"{what} is a whole number from 1 to {MAX_AMOUNT:,}.")


def damage(sheet: Sheet, amount: int, settings: GuildSettings) -> Outcome:
    """H-1: subtract from VIT with no floor; V-6 `instant` kills below 0."""
    _amount(amount, "Damage")
    refuse_if_out(sheet, "taking damage")
    after = sheet.update(vit=sheet.vit - amount)
    rules = ["H-1"]
    if settings.death_rule is DeathRule.INSTANT and after.vit < 0:
        after = after.update(dead=True)
        rules.append("V-6")
    return finish("damage", sheet, after, rules)


def heal(sheet: Sheet, amount: int, settings: GuildSettings) -> Outcome:
    """H-2: magic healing, by state. Waking clears unused advantage (H-4, in `finish`)."""
    _amount(amount, "Healing")
    refuse_if_out(sheet, "healing")
    state = sheet.state
    if state is State.UP:
        vit = sheet.vit + amount
    elif state is State.UNCONSCIOUS:
        vit = amount
    else:  # Critical or Dying below 0: the first point stabilises at 0, the rest adds
        vit = amount - 1
    after = sheet.update(vit=min(sheet.max_vit, vit))
    return finish("heal", sheet, after, ["H-2"])


def _bleeds(settings: GuildSettings, final: tuple[str, ...]) -> bool:
    """R-4: whether a Critical roll without a Crit costs 1 VIT."""
    if settings.critical_bleed is CriticalBleed.NEVER:
        return False
    if settings.critical_bleed is CriticalBleed.NO_CRIT:
        return True
    return all(face == MISS for face in final)


def _check_limit(sheet: Sheet, *, in_combat: bool, by_gm: bool) -> None:
    """R-8 [interpretation]: one roll per round in combat; outside combat, the GM's call."""
    if in_combat:
        if sheet.recovered_this_round:
            raise RuleError(
                f"{sheet.name} already made its recovery roll this round: "
                "the next one comes after the GM starts the next /round."
            )
    elif not by_gm:
        raise RuleError(
            "Outside combat only the GM calls for a recovery roll (R-8). "
            "Ask the GM, or join this channel's combat with /combat add."
        )


def recover(
    sheet: Sheet,
    settings: GuildSettings,
    rng: random.Random,
    *,
    faces: str | None = None,
    in_combat: bool,
    by_gm: bool,
) -> Outcome:
    """The recovery roll due now (R-1..R-8); also marks the start of the turn (C-3)."""
    refuse_if_out(sheet, "a recovery roll")
    state = sheet.state
    if not state.is_down:
        raise RuleError(
            f"{sheet.name} is Up (VIT {sheet.vit}/{sheet.max_vit}): a recovery roll is made only "
            "while Unconscious, Critical or Dying."
        )
    _check_limit(sheet, in_combat=in_combat, by_gm=by_gm)

    n = sheet.recovery_dice
    label = {
        State.UNCONSCIOUS: "Unconscious recovery roll",
        State.CRITICAL: "Critical recovery roll",
        State.DYING: "Last Gasp",
    }[state]
    if faces is None:
        roll = roll_narateer(n, settings.die_faces, rng, advantage=sheet.advantage, label=label)
    else:
        roll = manual_narateer(faces, n, settings.die_faces, advantage=sheet.advantage, label=label)
    rules: list[str] = ["D-1", "D-2", "D-4"]
    if sheet.advantage:
        rules += ["D-3", "R-6"]  # advantage is used up by any recovery roll
    if roll.manual:
        rules.append("D-5")
    crits = roll.crits
    notes: list[str] = []
    vit = sheet.vit
    dead = False
    if state is State.UNCONSCIOUS:
        rules += ["R-1", "R-2"]
        if crits:
            vit = min(sheet.max_vit, crits)
    elif state is State.CRITICAL:
        rules.append("R-3")
        if crits:
            vit = min(sheet.max_vit, crits - 1)
        else:
            rules.append("R-4")
            if _bleeds(settings, roll.final):
                vit -= 1
                notes.append(f"No Crit: {sheet.name} loses 1 VIT (R-4).")
    else:
        rules.append("R-5")
        if CRIT in roll.final:
            vit = 0
        else:
            dead = True
            notes.append(f"The Last Gasp fails: {sheet.name} is dead (R-5).")

    changes: dict[str, object] = {"vit": vit, "dead": dead, "advantage": False}
    if in_combat:
        changes["recovered_this_round"] = True
    after = sheet.update(**changes)
    after = _turn_started(after, settings, rules)
    # the Last Gasp is never hidden (and no recovery roll is)
    return finish("recover", sheet, after, rules, rolls=(roll,), notes=notes, public=True)


def _turn_started(sheet: Sheet, settings: GuildSettings, rules: list[str]) -> Sheet:
    """C-3: the start of the turn resets the reaction cost (S-5, reaction_reset=turn)."""
    rules.append("C-3")
    if settings.reaction_reset is ReactionReset.TURN and sheet.reactions_taken:
        rules.append("S-5")
        return sheet.update(reactions_taken=0)
    return sheet


def first_aid(
    sheet: Sheet,
    settings: GuildSettings,
    rng: random.Random,
    *,
    success: bool | None = None,
    roll: str | None = None,
    target: int | None = None,
) -> Outcome:
    """F-1: a successful Medicine check gives advantage on the next recovery roll."""
    refuse_if_out(sheet, "first aid")
    if not sheet.state.is_down:
        raise RuleError(
            f"{sheet.name} is Up: first aid helps only a character that is Unconscious, "
            "Critical or Dying."
        )
    if (success is None) == (roll is None):
        raise RuleError(
            "Either report the Medicine check (success: true or false) or give a roll and a "
            "target for the bot to roll it, not both."
        )
    rolls = ()
    if roll is not None:
        if target is None:
            raise RuleError("Give the target number the Medicine check must reach.")
        check = notation.roll(roll, rng, label="Medicine check", target=target)
        rolls = (check,)
        success = bool(check.success)
    elif target is not None:
        raise RuleError("A target needs a roll to compare with: give a dice expression too.")
    notes: list[str] = []
    if not success:
        notes.append(f"The Medicine check fails: {sheet.name} gets no advantage.")
        after = sheet
    elif sheet.advantage:
        notes.append(f"{sheet.name} already has advantage on its next recovery roll.")
        after = sheet
    else:
        notes.append(f"{sheet.name} has advantage on its next recovery roll (F-1).")
        after = sheet.update(advantage=True)
    return finish("first_aid", sheet, after, ["F-1"], rolls=rolls, notes=notes)
