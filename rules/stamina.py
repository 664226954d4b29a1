"""Stamina (seed 001): act early, reactions, pushing a Check, other spending, rest, CON wounds."""

from __future__ import annotations

import random
from collections.abc import Iterable

from rules import notation
from rules.condition import action_modifier, breakdown_note, finish, refuse_if_out
from rules.models import CON_SIZES, RestKind, Sheet
from rules.outcome import Outcome, RuleError

MAX_SPEND = 20


def _pay(sheet: Sheet, cost: int, doing: str, instead: str) -> Sheet:
    """Spend `cost` Stamina, or refuse and spend nothing (V-5, S-8, S-5)."""
    refuse_if_out(sheet, doing)
    state = sheet.state
    if state.is_down:  # [interpretation] down, "the world no longer responds": no actions
        raise RuleError(
            f"{sheet.name} is {state.value} and cannot act or spend Stamina until it is back "
            "up: heal it (/heal), give first aid (/aid) or make its recovery roll (/recover)."
        )
    if sheet.stamina == 0:
        raise RuleError(
            f"{sheet.name} has 0 Stamina and cannot spend any (S-8). "
            "Stamina comes back with rest (/rest)."
        )
    if cost > sheet.stamina:
        raise RuleError(
            f"{doing[:1].upper()}{doing[1:]} costs {cost} Stamina but {sheet.name} has only "
            f"{sheet.stamina}/{sheet.max_stamina}: nothing was spent. {instead}"
        )
    return sheet.update(stamina=sheet.stamina - cost)


def _amount(amount: int) -> None:
    if isinstance(amount, bool) or not isinstance(amount, int) or not 1 <= amount <= MAX_SPEND:
        raise RuleError(f"Spend a whole number of Stamina from 1 to {MAX_SPEND}.")


def act_early(sheet: Sheet, *, in_combat: bool) -> Outcome:
    """S-4: in combat, once per round, 1 Stamina to act before the enemy."""
    if not in_combat:
        raise RuleError(
            f"{sheet.name} is not in a combat: acting early is for combat rounds. "
            "Join this channel's combat with /combat add."
        )
    if sheet.early_this_round:
        raise RuleError(f"{sheet.name} already acts early this round: once per round (S-4).")
    after = _pay(sheet, 1, "acting early", "").update(early_this_round=True)
    note = f"{sheet.name} acts before the enemy this round."
    return finish("early", sheet, after, ["S-4"], notes=[note])


def react(sheet: Sheet, what: str | None = None) -> Outcome:
    """S-5: the n-th reaction since the start of the turn costs n."""
    cost = sheet.reactions_taken + 1
    after = _pay(sheet, cost, f"reaction {cost}", "The cost resets at the start of its turn.")
    after = after.update(reactions_taken=cost)
    doing = f": {what.strip()}" if what and what.strip() else ""
    note = f"Reaction {cost} for {cost} Stamina{doing}. The next one costs {cost + 1}."
    return finish("react", sheet, after, ["S-5"], notes=[note])


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
    label = f"Check: {what.strip()}" if what and what.strip() else "Check"
    notes = [f"+{amount} on the Check; the Stamina is spent whether it succeeds or not."]
    rolls = ()
    if roll is not None:
        modifier = amount + action_modifier(sheet)
        rolls = (notation.roll(roll, rng, label=label, modifier=modifier, target=target),)
        if modifier != amount:
            rules.append("H-3")
            notes.append(f"Condition {modifier - amount:+d} included in the roll.")
    if sheet.breakdown is not None:
        rules.append("E-6")
        notes.append(breakdown_note(sheet))
    return finish("push", sheet, after, rules, rolls=rolls, notes=notes)


def spend(sheet: Sheet, amount: int, reason: str) -> Outcome:
    """S-7: class abilities, Channel Casting, resisting hardship… with a stated reason."""
    _amount(amount)
    reason = (reason or "").strip()
    if not reason:
        raise RuleError("Say what the Stamina is spent on (a class ability, resisting cold…).")
    after = _pay(sheet, amount, reason, "Spend less, or rest first.")
    return finish("spend", sheet, after, ["S-7"], notes=[f"{amount} Stamina: {reason}."])


REST_NAMES = {
    RestKind.SHORT: "Short rest",
    RestKind.UNSAFE_LONG: "Unsafe long rest",
    RestKind.SAFE_LONG: "Safe long rest",
    RestKind.RESPITE: "Respite",
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
    note = f"{REST_NAMES[kind]}: up to {gained} Stamina back."
    return finish("rest", sheet, after, ["S-9"], notes=[note])


def rest_all(sheets: Iterable[Sheet], kind: RestKind) -> list[Outcome]:
    """S-9: the GM rests every living character at once; Dead and Retired ones are skipped."""
    return [rest(sheet, kind) for sheet in sheets if not sheet.state.is_out]


def wound(sheet: Sheet) -> Outcome:
    """S-2: the CON die steps down one size (d6 is the floor); Stamina drops to the new max."""
    if sheet.con_die == CON_SIZES[0]:
        raise RuleError(
            f"{sheet.name}'s CON die is already d6, the smallest (S-2): "
            "a further wound cannot reduce it."
        )
    stepped = sheet.update(con_wounds=sheet.con_wounds + 1, stamina=0)
    after = stepped.update(stamina=min(sheet.stamina, stepped.max_stamina))
    return finish("wound", sheet, after, ["S-1", "S-2"])


def recover_wound(sheet: Sheet) -> Outcome:
    """S-3: the CON die steps back up; the maximum rises, current Stamina does not."""
    if sheet.con_wounds == 0:
        raise RuleError(f"{sheet.name} has no CON wound to recover (CON d{sheet.con_die}).")
    after = sheet.update(con_wounds=sheet.con_wounds - 1)
    return finish("recover_wound", sheet, after, ["S-1", "S-3"])
