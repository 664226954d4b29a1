"""Stamina: act early, reactions, pushing a Check, other spending, rest, CON wounds
(S-1..S-9)."""

from __future__ import annotations

import random
from collections.abc import Iterable

from rules import notation
from rules.condition import action_bonuses, breakdown_reminder, finish, refuse_if_out
from rules.errors import RuleError
from rules.models import MAX_WOUNDS, GuildSettings, ReactionReset, RestKind, Sheet
from rules.outcome import Outcome
from rules.rolls import Roll
from rules.text import say

MAX_SPEND = 20


def _refuse_if_down(sheet: Sheet, doing: str) -> None:
    """V-5, E-7; H-5 [interpretation]: a character that is down spends no Stamina."""
    refuse_if_out(sheet, doing)
    state = sheet.state
    if state.is_down:
        raise RuleError(
            "{name} is " + state.value + " and cannot act or spend Stamina until it is back "
            "up (H-5): heal it (/heal), give first aid (/aid) or make its recovery roll "
            "(/recover). Nothing was spent.",
            name=sheet.name,
        )


def pay(sheet: Sheet, cost: int, doing: str, instead: str, **flags: object) -> Sheet:
    """Spend `cost` Stamina and set the round's `flags` (one validation), or refuse and spend
    nothing (V-5, H-5, S-8, S-5)."""
    _refuse_if_down(sheet, doing)
    if sheet.stamina == 0:
        raise RuleError(
            "{name} has 0 Stamina and cannot spend any (S-8). Stamina comes back with rest "
            "(/rest).",
            name=sheet.name,
        )
    if cost > sheet.stamina:
        raise RuleError(
            "{doing} costs {cost} Stamina but {name} has only {stamina}/{max}: nothing was "
            "spent. " + instead,
            doing=doing[:1].upper() + doing[1:],
            cost=cost,
            name=sheet.name,
            stamina=sheet.stamina,
            max=sheet.max_stamina,
        )
    return sheet.update(stamina=sheet.stamina - cost, **flags)


def _amount(amount: int) -> None:
    if isinstance(amount, bool) or not isinstance(amount, int) or not 1 <= amount <= MAX_SPEND:
        raise RuleError(f"Spend a whole number of Stamina from 1 to {MAX_SPEND}.")


def _left(sheet: Sheet) -> str:
    return f"Stamina {sheet.stamina}/{sheet.max_stamina}"


def act_early(sheet: Sheet, *, in_combat: bool) -> Outcome:
    """S-4: in combat, once per round, 1 Stamina to act before the enemy; S-4a: decided at
    the start of the round, before any other spending."""
    if not in_combat:
        raise RuleError(
            "{name} is not in a combat: acting early is for combat rounds. Join this "
            "channel's combat with /combat add.",
            name=sheet.name,
        )
    if sheet.early_this_round:
        raise RuleError(
            "{name} already acts early this round: once per round (S-4).", name=sheet.name
        )
    _refuse_if_down(sheet, "acting early")
    if sheet.spent_this_round:
        raise RuleError(
            "{name} has already reacted, pushed or spent Stamina this round: acting early is "
            "decided at the start of the round, before anything else happens (S-4a). It acts "
            "after the enemy this round; nothing was spent.",
            name=sheet.name,
        )
    after = pay(sheet, 1, "acting early", "", early_this_round=True)
    headline = say("{name} acts before the enemy this round, for 1 Stamina.", name=sheet.name)
    return finish("early", sheet, after, ["S-4"], headline=headline)


def turn_resets_reactions(settings: GuildSettings, *, in_combat: bool) -> bool:
    """S-5: in combat the start of a turn resets the reaction count with reaction_reset=turn
    (with `round`, /round does); [interpretation] outside combat, with no rounds, it always
    does."""
    return not in_combat or settings.reaction_reset is ReactionReset.TURN


def react(sheet: Sheet, what: str | None = None) -> Outcome:
    """S-5: the n-th reaction since the start of the turn costs n."""
    cost = sheet.reactions_taken + 1
    after = pay(
        sheet,
        cost,
        f"reaction {cost}",
        "The cost resets at the start of its turn.",
        reactions_taken=cost,
        spent_this_round=True,  # S-4a
    )
    doing = " ({what})" if what and what.strip() else ""
    headline = say(
        "{name} reacts" + doing + " for {cost} Stamina; the next reaction costs {next}.",
        name=sheet.name,
        what=(what or "").strip(),
        cost=cost,
        next=cost + 1,
    )
    notes = [breakdown_reminder(sheet)] if sheet.breakdown is not None else []
    rules = ["S-5", "E-6"] if notes else ["S-5"]
    return finish("react", sheet, after, rules, headline=headline, notes=notes)


def push(
    sheet: Sheet,
    amount: int,
    rng: random.Random,
    *,
    roll: str | None = None,
    target: int | None = None,
    what: str | None = None,
) -> Outcome:
    """S-6: N Stamina for +N on a Check, lost whatever the result; optionally rolled here.

    The rolled Check adds +N and the condition on Action Rolls (H-3 injury, E-4 daily +3).
    """
    _amount(amount)
    if target is not None and roll is None:
        raise RuleError("A target needs a roll to compare with: give a dice expression too.")
    rules = ["S-6"]
    after = pay(
        sheet,
        amount,
        f"pushing for +{amount}",
        "Push for less, or rest first.",
        spent_this_round=True,  # S-4a
    )
    label = say("Check ({what})", what=what.strip()) if what and what.strip() else say("Check")
    notes = ["The Stamina is spent whether the Check succeeds or not."]
    rolls: tuple[Roll, ...] = ()
    name = sheet.name
    if roll is None:
        headline = say(
            "{name} spends {amount} Stamina: +{amount} on the Check.", name=name, amount=amount
        )
    else:
        bonuses = [("push", amount), *action_bonuses(sheet)]
        check = notation.roll(roll, rng, label=label, bonuses=bonuses, target=target)
        rolls = (check,)
        applied = {name for name, _ in check.bonuses}
        rules += [
            rule for name, rule in (("injury", "H-3"), ("daily bonus", "E-4")) if name in applied
        ]
        if check.success is None:
            headline = say(
                "{name} pushes for +{amount}: the Check totals {total}.",
                name=name,
                amount=amount,
                total=check.total,
            )
        else:
            verdict = "succeeds" if check.success else "fails"
            headline = say(
                "{name} pushes for +{amount}: the Check {verdict} ({total} against {target}).",
                name=name,
                verdict=verdict,
                amount=amount,
                total=check.total,
                target=check.target,
            )
    if sheet.breakdown is not None:
        rules.append("E-6")
        notes.append(breakdown_reminder(sheet))
    failed = any(getattr(r, "success", None) is False for r in rolls)
    return finish(
        "push", sheet, after, rules, headline=headline, rolls=rolls, notes=notes, failed=failed
    )


def spend(sheet: Sheet, amount: int, reason: str) -> Outcome:
    """S-7: class abilities, Channel Casting, resisting hardship… with a stated reason."""
    _amount(amount)
    reason = (reason or "").strip()
    if not reason:
        raise RuleError("Say what the Stamina is spent on (a class ability, resisting cold…).")
    after = pay(
        sheet, amount, "spending Stamina", "Spend less, or rest first.", spent_this_round=True
    )
    headline = say(
        "{name} spends {amount} Stamina on {reason}.", name=sheet.name, amount=amount, reason=reason
    )
    return finish("spend", sheet, after, ["S-7"], headline=headline)


REST_NAMES = {
    RestKind.SHORT: "a short rest",
    RestKind.UNSAFE_LONG: "an unsafe long rest",
    RestKind.SAFE_LONG: "a safe long rest",
    RestKind.RESPITE: "a respite",
}


def rest_amount(kind: RestKind, maximum: int) -> int:
    """S-9: rounded down, at least 1."""
    if kind is RestKind.SHORT:
        return 1
    if kind is RestKind.UNSAFE_LONG:
        return max(1, maximum // 3)
    if kind is RestKind.SAFE_LONG:
        return max(1, 2 * maximum // 3)
    return maximum


def rest(sheet: Sheet, kind: RestKind, *, in_combat: bool = False, by_gm: bool = False) -> Outcome:
    """S-9: Stamina back, never above the maximum. [interpretation] A rest is narrative time:
    while the character is in a combat, only the GM may rest it."""
    kind = RestKind(kind)
    refuse_if_out(sheet, "resting")
    if in_combat and not by_gm:
        raise RuleError(
            "{name} is in a combat: a rest is narrative time, so while it fights only the GM "
            "may rest it (S-9). Ask the GM, or rest once the combat is over. Nothing was changed.",
            name=sheet.name,
        )
    gained = rest_amount(kind, sheet.max_stamina)
    after = sheet.update(stamina=min(sheet.max_stamina, sheet.stamina + gained))
    if after.stamina == sheet.stamina:
        headline = say(
            "{name} takes " + REST_NAMES[kind] + "; its Stamina was already full.", name=sheet.name
        )
    else:
        headline = say(
            "{name} takes " + REST_NAMES[kind] + " and gets back {gained} Stamina.",
            name=sheet.name,
            gained=after.stamina - sheet.stamina,
        )
    return finish("rest", sheet, after, ["S-9"], headline=headline)


def rest_all(sheets: Iterable[Sheet], kind: RestKind) -> list[Outcome]:
    """S-9: the GM rests every living character at once; Dead and Retired ones are skipped."""
    return [rest(sheet, kind, by_gm=True) for sheet in sheets if not sheet.state.is_out]


def wound(sheet: Sheet) -> Outcome:
    """S-2: the CON die steps down one size (d6 is the floor, the wound is still recorded, up
    to 3); Stamina above the new maximum drops to it. V-5: not on the Dead or Retired."""
    refuse_if_out(sheet, "a CON wound")
    if sheet.con_wounds >= MAX_WOUNDS:
        raise RuleError(
            "{name} already carries {wounds} CON wounds, the most a sheet records (S-2).",
            name=sheet.name,
            wounds=MAX_WOUNDS,
        )
    stepped = sheet.update(con_wounds=sheet.con_wounds + 1, stamina=0)
    after = stepped.update(stamina=min(sheet.stamina, stepped.max_stamina))
    wounds = f"{after.con_wounds} {'wound' if after.con_wounds == 1 else 'wounds'}"
    if after.con_die == sheet.con_die:
        headline = say(
            "{name} takes a CON wound (" + wounds + "); its CON die is already d6, the "
            "smallest, so nothing else changes.",
            name=sheet.name,
        )
    else:
        headline = say(
            "{name} takes a CON wound (" + wounds + "): CON d{die}, " + _left(after) + ".",
            name=sheet.name,
            die=after.con_die,
        )
    return finish("wound", sheet, after, ["S-2", "S-1"], headline=headline)


def recover_wound(sheet: Sheet) -> Outcome:
    """S-3: the CON die steps back up; the maximum rises, current Stamina does not."""
    refuse_if_out(sheet, "recovering a CON wound")
    if sheet.con_wounds == 0:
        raise RuleError(
            "{name} has no CON wound to recover (CON d{die}).", name=sheet.name, die=sheet.con_die
        )
    after = sheet.update(con_wounds=sheet.con_wounds - 1)
    left = f"{after.con_wounds} {'wound' if after.con_wounds == 1 else 'wounds'} left"
    if after.con_die == sheet.con_die:
        headline = say(
            "{name} recovers a CON wound (" + left + "); its CON die stays d6.", name=sheet.name
        )
    else:
        headline = say(
            "{name} recovers a CON wound (" + left + "): CON d{die}, Stamina can "
            "rise to {most} again.",
            name=sheet.name,
            die=after.con_die,
            most=after.max_stamina,
        )
    return finish("recover_wound", sheet, after, ["S-3", "S-1"], headline=headline)
