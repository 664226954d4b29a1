"""Stamina: act early, reactions, pushing a Check, other spending, rest, CON wounds
(S-1..S-9)."""

from __future__ import annotations

import random
from collections.abc import Iterable

from rules import notation
from rules.condition import action_bonuses, breakdown_reminder, finish, refuse_if_out
from rules.errors import RuleError
from rules.models import MAX_WOUNDS, RestKind, Sheet
from rules.outcome import Outcome
from rules.rolls import Roll

MAX_SPEND = 20


def _pay(sheet: Sheet, cost: int, doing: str, instead: str) -> Sheet:
    """Spend `cost` Stamina, or refuse and spend nothing (V-5, S-8, S-5)."""
    refuse_if_out(sheet, doing)
    state = sheet.state
    if state.is_down:  # [interpretation] down, "the world no longer responds": no actions
        raise RuleError(
            "{name} is " + state.value + " and cannot act or spend Stamina until it is back "
            "up: heal it (/heal), give first aid (/aid) or make its recovery roll (/recover).",
            name=sheet.name,
        )
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
    return sheet.update(stamina=sheet.stamina - cost)


def _amount(amount: int) -> None:
    if isinstance(amount, bool) or not isinstance(amount, int) or not 1 <= amount <= MAX_SPEND:
        raise RuleError(f"Spend a whole number of Stamina from 1 to {MAX_SPEND}.")


def _left(sheet: Sheet) -> str:
    return f"Stamina {sheet.stamina}/{sheet.max_stamina}"


def act_early(sheet: Sheet, *, in_combat: bool) -> Outcome:
    """S-4: in combat, once per round, 1 Stamina to act before the enemy."""
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
    after = _pay(sheet, 1, "acting early", "").update(early_this_round=True)
    headline = f"{sheet.name} acts before the enemy this round, for 1 Stamina."
    return finish("early", sheet, after, ["S-4"], headline=headline)


def react(sheet: Sheet, what: str | None = None) -> Outcome:
    """S-5: the n-th reaction since the start of the turn costs n."""
    cost = sheet.reactions_taken + 1
    after = _pay(sheet, cost, f"reaction {cost}", "The cost resets at the start of its turn.")
    after = after.update(reactions_taken=cost)
    doing = f" ({what.strip()})" if what and what.strip() else ""
    headline = f"{sheet.name} reacts{doing} for {cost} Stamina; the next reaction costs {cost + 1}."
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
    after = _pay(sheet, amount, f"pushing for +{amount}", "Push for less, or rest first.")
    label = f"Check ({what.strip()})" if what and what.strip() else "Check"
    notes = ["The Stamina is spent whether the Check succeeds or not."]
    rolls: tuple[Roll, ...] = ()
    name = sheet.name
    if roll is None:
        headline = f"{name} spends {amount} Stamina: +{amount} on the Check."
    else:
        bonuses = [("push", amount), *action_bonuses(sheet)]
        check = notation.roll(roll, rng, label=label, bonuses=bonuses, target=target)
        rolls = (check,)
        applied = {name for name, _ in check.bonuses}
        rules += [
            rule for name, rule in (("injury", "H-3"), ("daily bonus", "E-4")) if name in applied
        ]
        if check.success is None:
            headline = f"{name} pushes for +{amount}: the Check totals {check.total}."
        else:
            verdict = "succeeds" if check.success else "fails"
            headline = (
                f"{name} pushes for +{amount}: the Check {verdict} ({check.total} against "
                f"{check.target})."
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
    after = _pay(sheet, amount, "spending Stamina", "Spend less, or rest first.")
    headline = f"{sheet.name} spends {amount} Stamina on {reason}."
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


def rest(sheet: Sheet, kind: RestKind) -> Outcome:
    """S-9: Stamina back, never above the maximum."""
    kind = RestKind(kind)
    refuse_if_out(sheet, "resting")
    gained = rest_amount(kind, sheet.max_stamina)
    after = sheet.update(stamina=min(sheet.max_stamina, sheet.stamina + gained))
    if after.stamina == sheet.stamina:
        headline = f"{sheet.name} takes {REST_NAMES[kind]}; its Stamina was already full."
    else:
        headline = (
            f"{sheet.name} takes {REST_NAMES[kind]} and gets back "
            f"{after.stamina - sheet.stamina} Stamina."
        )
    return finish("rest", sheet, after, ["S-9"], headline=headline)


def rest_all(sheets: Iterable[Sheet], kind: RestKind) -> list[Outcome]:
    """S-9: the GM rests every living character at once; Dead and Retired ones are skipped."""
    return [rest(sheet, kind) for sheet in sheets if not sheet.state.is_out]


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
        headline = (
            f"{sheet.name} takes a CON wound ({wounds}); its CON die is already d6, the "
            "smallest, so nothing else changes."
        )
    else:
        headline = (
            f"{sheet.name} takes a CON wound ({wounds}): CON d{after.con_die}, {_left(after)}."
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
        headline = f"{sheet.name} recovers a CON wound ({left}); its CON die stays d6."
    else:
        headline = (
            f"{sheet.name} recovers a CON wound ({left}): CON d{after.con_die}, Stamina can "
            f"rise to {after.max_stamina} again."
        )
    return finish("recover_wound", sheet, after, ["S-3", "S-1"], headline=headline)
