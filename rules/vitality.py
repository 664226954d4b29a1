"""Damage, magic healing, recovery rolls and first aid (H-1, H-2, R-1..R-8, F-1)."""

from __future__ import annotations

import random

from rules import notation
from rules.condition import RollDue, breakdown_reminder, finish, refuse_if_out, roll_due
from rules.dice import manual_narateer, roll_narateer
from rules.errors import RuleError
from rules.models import (
    MIN_VIT,
    CriticalBleed,
    DyingDamage,
    GuildSettings,
    LastGaspAdvantage,
    Sheet,
    State,
)
from rules.outcome import Outcome
from rules.rolls import CRIT, MISS, NarateerRoll, Roll
from rules.stamina import turn_resets_reactions
from rules.text import Text, say

MAX_AMOUNT = 10_000


def _amount(amount: int, what: str) -> None:
    if isinstance(amount, bool) or not isinstance(amount, int) or not 1 <= amount <= MAX_AMOUNT:
        raise RuleError(f"{what} is a whole number from 1 to {MAX_AMOUNT:,}.")


def _crits(n: int) -> str:
    return "One Crit" if n == 1 else f"{n} Crits"


def _wakes(name: str, crits: int, vit: int, most: int) -> Text:
    return say(
        "{name} wakes up! " + _crits(crits) + ": VIT {vit}/{most}.", name=name, vit=vit, most=most
    )


def _fell(sheet: Sheet, amount: int, before: Sheet) -> Text:
    """The headline of damage, by where it leaves the character (V-1..V-4)."""
    name, state = sheet.name, sheet.state
    if state is State.UP:
        return say("{name} takes {amount} damage.", name=name, amount=amount)
    if state is State.UNCONSCIOUS:
        return say(
            "{name} falls Unconscious at VIT 0: a recovery roll is due at its next turn.", name=name
        )
    if state is State.CRITICAL:
        how = {State.UP: "collapses,", State.CRITICAL: "is still"}.get(before.state, "sinks to")
        dice = "die" if sheet.recovery_dice == 1 else "dice"
        return say(
            "{name} " + how + " Critical at VIT {vit}: {n} recovery " + dice + " at its next turn.",
            name=name,
            vit=sheet.vit,
            n=sheet.recovery_dice,
        )
    return say(
        "{name} is Dying at VIT {vit}: only the Last Gasp is left, at its next turn.",
        name=name,
        vit=sheet.vit,
    )


def damage(sheet: Sheet, amount: int, settings: GuildSettings) -> Outcome:
    """H-1: subtract from VIT with no floor. V-8: damage while Dying, by the guild setting;
    V-6 `instant` (in `finish`) kills below 0."""
    _amount(amount, "Damage")
    refuse_if_out(sheet, "taking damage")
    after = sheet.update(vit=max(MIN_VIT, sheet.vit - amount))  # the sheet's range ends there
    rules = ["H-1"]
    if sheet.state is State.DYING:
        rules.append("V-8")
        if settings.dying_damage is DyingDamage.KILLS:
            dead = after.update(dead=True)
            headline = say(
                "{name} dies: on this server any damage to a Dying character kills.",
                name=sheet.name,
            )
            return finish("damage", sheet, dead, rules, headline=headline)
        headline = say(
            "{name} takes {amount} damage and is still Dying at VIT {vit}: "
            "the Last Gasp decides, at its next turn.",
            name=sheet.name,
            amount=amount,
            vit=after.vit,
        )
        return finish("damage", sheet, after, rules, headline=headline, settings=settings)
    return finish(
        "damage", sheet, after, rules, headline=_fell(after, amount, sheet), settings=settings
    )


def heal(sheet: Sheet, amount: int, settings: GuildSettings) -> Outcome:
    """H-2: magic healing, by state. Waking clears unused advantage (H-4, in `finish`)."""
    _amount(amount, "Healing")
    refuse_if_out(sheet, "healing")
    state, name = sheet.state, sheet.name
    if state is State.UP:
        vit = sheet.vit + amount
    elif state is State.UNCONSCIOUS:
        vit = amount
    else:  # Critical or Dying below 0: the first point stabilises at 0, the rest adds
        vit = amount - 1
    after = sheet.update(vit=min(sheet.max_vit, vit))
    notes: list[str] = []
    vit, most = after.vit, after.max_vit
    if after.vit > 0 and state is not State.UP:
        headline = say("{name} wakes up at VIT {vit}/{most}.", name=name, vit=vit, most=most)
    elif after.vit > 0:
        gained = after.vit - sheet.vit
        if gained == 0:
            headline = say(
                "The healing changes nothing: {name} is already at full VIT ({most}/{most}).",
                name=name,
                most=most,
            )
        else:
            headline = say(
                "{name} heals {gained}: VIT {vit}/{most}.",
                name=name,
                gained=gained,
                vit=vit,
                most=most,
            )
    elif after.state is State.UNCONSCIOUS:
        headline = say(
            "{name} is stabilised at VIT 0: Unconscious, no longer bleeding. Heal 2 or more "
            "to wake a character below 0.",
            name=name,
        )
    elif after.vit == sheet.vit:  # RES 0 at VIT 0 healed by 1
        headline = say("The healing changes nothing: {name} is still Dying at VIT 0.", name=name)
        notes.append(
            "The first point of healing only stabilises at VIT 0, where it already is; with "
            "RES 0, VIT 0 is still Dying. Heal 2 or more to wake it."
        )
    else:
        headline = say(
            "{name} rises to VIT 0, but with RES 0 it is still Dying: heal 2 or more to wake it.",
            name=name,
        )
    return finish("heal", sheet, after, ["H-2"], headline=headline, notes=notes)


def _bleeds(settings: GuildSettings, final: tuple[str, ...]) -> bool:
    """R-4: whether a Critical roll without a Crit costs 1 VIT."""
    if settings.critical_bleed is CriticalBleed.NEVER:
        return False
    if settings.critical_bleed is CriticalBleed.NO_CRIT:
        return True
    return all(face == MISS for face in final)


def _check_limit(sheet: Sheet, *, in_combat: bool, by_gm: bool) -> None:
    """R-8 [interpretation]: one roll per round in combat; outside combat, the GM's call."""
    due = roll_due(sheet, in_combat=in_combat)
    if due is RollDue.NEXT_ROUND:
        raise RuleError(
            "{name} already made its recovery roll this round: the next one comes after "
            "the GM starts the next /round.",
            name=sheet.name,
        )
    if due is RollDue.GM_CALLS and not by_gm:
        raise RuleError(
            "Outside combat only the GM calls for a recovery roll (R-8). "
            "Ask the GM, or join this channel's combat with /combat add."
        )


ROLL_LABELS = {
    State.UNCONSCIOUS: "Unconscious recovery roll",
    State.CRITICAL: "Critical recovery roll",
    State.DYING: "Last Gasp",
}


def advantage_applies(advantage: bool, state: State, settings: GuildSettings) -> bool:
    """R-6: advantage applies to the recovery roll due now; to the Last Gasp only if the
    guild says so."""
    return advantage and (
        state is not State.DYING or settings.last_gasp_advantage is LastGaspAdvantage.YES
    )


def recovery_roll(
    sheet: Sheet, settings: GuildSettings, rng: random.Random, faces: str | None
) -> NarateerRoll:
    """The dice of the recovery roll due now: rolled, or entered from physical dice (D-5)."""
    n, state = sheet.recovery_dice, sheet.state
    advantage = advantage_applies(sheet.advantage, sheet.state, settings)
    label = ROLL_LABELS[state]
    if faces is None:
        return roll_narateer(n, settings.die_faces, rng, advantage=advantage, label=label)
    return manual_narateer(faces, n, settings.die_faces, advantage=advantage, label=label)


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
    state, name = sheet.state, sheet.name
    if not state.is_down:
        raise RuleError(
            "{name} is Up (VIT {vit}/{max_vit}): a recovery roll is made only while "
            "Unconscious, Critical or Dying.",
            name=name,
            vit=sheet.vit,
            max_vit=sheet.max_vit,
        )
    _check_limit(sheet, in_combat=in_combat, by_gm=by_gm)
    roll = recovery_roll(sheet, settings, rng, faces)
    used_advantage = advantage_applies(sheet.advantage, sheet.state, settings)
    rules: list[str] = []
    notes: list[str] = []
    crits = roll.crits
    vit = sheet.vit
    dead = False
    if state is State.UNCONSCIOUS:
        rules += ["R-1", "R-2"]
        if crits:
            vit = min(sheet.max_vit, crits)
            headline = _wakes(name, crits, vit, sheet.max_vit)
        else:
            headline = say(
                "No Crit (only Crits count): {name} stays Unconscious; the next roll comes "
                "at its next turn.",
                name=name,
            )
    elif state is State.CRITICAL:
        rules.append("R-3")
        if crits == 1:
            vit = 0
            headline = say("Stabilised! One Crit: {name} is Unconscious at VIT 0.", name=name)
        elif crits:
            vit = min(sheet.max_vit, crits - 1)
            headline = _wakes(name, crits, vit, sheet.max_vit)
        else:
            rules.append("R-4")
            if _bleeds(settings, roll.final):
                vit -= 1
                lost = sheet.update(vit=vit)
                if lost.state is State.DYING:
                    headline = say(
                        "No Crit: {name} loses 1 VIT and is now Dying at VIT {vit}: the Last "
                        "Gasp comes next.",
                        name=name,
                        vit=vit,
                    )
                else:
                    headline = say(
                        "No Crit: {name} loses 1 VIT and is still Critical at VIT {vit}; the "
                        "next roll comes at its next turn.",
                        name=name,
                        vit=vit,
                    )
            else:
                headline = say(
                    "No Crit (only Crits count): {name} stays Critical at VIT {vit}; the next "
                    "roll comes at its next turn.",
                    name=name,
                    vit=vit,
                )
    else:
        rules.append("R-5")
        if CRIT in roll.final:
            vit = 0
            if sheet.res == 0:
                headline = say(
                    "A Crit on the Last Gasp: {name} survives, but with RES 0 it is still Dying: "
                    "another Last Gasp at its next turn.",
                    name=name,
                )
                rules.append("V-4")
            else:
                headline = say(
                    "A Crit on the Last Gasp: {name} survives, stabilised and Unconscious at "
                    "VIT 0.",
                    name=name,
                )
        else:
            dead = True
            headline = say("The Last Gasp fails: {name} is dead.", name=name)
        if sheet.advantage and not used_advantage and not dead:  # the dead roll no more
            rules.append("R-6")
            notes.append(
                "On this server advantage does not apply to the Last Gasp: it waits for the "
                "next recovery roll."
            )
    if sheet.breakdown is not None:  # E-6: every roll of a character in Breakdown
        rules.append("E-6")
        notes.append(breakdown_reminder(sheet))
    rules += ["D-1", "D-2", "D-4"]
    if used_advantage:
        rules += ["D-3", "R-6"]  # advantage is used up by the roll it applied to
    if roll.manual:
        rules.append("D-5")
    changes: dict[str, object] = {"vit": vit, "dead": dead}
    if used_advantage:
        changes["advantage"] = False
    if in_combat:
        changes["recovered_this_round"] = True
    after = _turn_started(sheet.update(**changes), settings, rules, in_combat=in_combat)
    return finish(
        "recover",
        sheet,
        after,
        rules,
        headline=headline,
        settings=settings,
        rolls=(roll,),
        notes=notes,
        public=True,  # the Last Gasp is never hidden (and no recovery roll is)
    )


def _turn_started(
    sheet: Sheet, settings: GuildSettings, rules: list[str], *, in_combat: bool
) -> Sheet:
    """C-3: the start of the turn resets the reaction cost (S-5)."""
    rules.append("C-3")
    if turn_resets_reactions(settings, in_combat=in_combat) and sheet.reactions_taken:
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
    name = sheet.name
    if not sheet.state.is_down:
        raise RuleError(
            "{name} is Up: first aid helps only a character that is Unconscious, Critical or "
            "Dying.",
            name=name,
        )
    if success is None and roll is None:
        raise RuleError(
            "Give one of them: success (the Medicine check's result, true or false) or a roll "
            "and a target for the bot to roll it."
        )
    if success is not None and roll is not None:
        raise RuleError(
            "Give success (the Medicine check's result) or a roll and a target, not both."
        )
    rolls: tuple[Roll, ...] = ()
    if roll is not None:
        if target is None:
            raise RuleError("Give the target number the Medicine check must reach.")
        check = notation.roll(roll, rng, label="Medicine check", target=target)
        rolls = (check,)
        success = bool(check.success)
    elif target is not None:
        raise RuleError("A target needs a roll to compare with: give a dice expression too.")
    if not success:
        headline = say("The Medicine check fails: {name} gets no advantage.", name=name)
        after = sheet
    elif sheet.advantage:
        headline = say(
            "First aid works, but {name} already has advantage on its next recovery roll.",
            name=name,
        )
        after = sheet
    else:
        headline = say(
            "First aid works: {name} has advantage on its next recovery roll.", name=name
        )
        after = sheet.update(advantage=True)
    return finish(
        "first_aid", sheet, after, ["F-1"], headline=headline, rolls=rolls, failed=not success
    )
