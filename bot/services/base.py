"""The generic runner of a command on one character: one transaction, all or nothing."""

from __future__ import annotations

import random
from collections.abc import Callable

from bot.db import Database
from bot.db.records import shown
from bot.services.context import ActionContext, Caller, Permission
from rules import permissions
from rules.outcome import Outcome, RuleError

NO_ACTIVE = "You have no active character: pick one with /character select, or name the character."


def no_character(name: str) -> RuleError:
    return RuleError(
        f"No character named {shown(name)} in this server. /character list shows the names."
    )


async def run_character_action(
    db: Database,
    caller: Caller,
    *,
    command: str,
    inputs: dict,
    character: str | None,
    permission: Permission,
    apply: Callable[[ActionContext], Outcome],
    rng: random.Random,
) -> Outcome:
    """Load settings and the character (locked) with its combat, check the permission, apply
    the rule, save `outcome.after`, log the event, commit. A RuleError anywhere rolls back and
    propagates unchanged."""
    async with db.transaction(caller.guild_id) as uow:
        actor = await uow.load_actor(character, caller.user_id)
        if actor.row is None:
            raise RuleError(NO_ACTIVE) if character is None else no_character(character)
        row, settings = actor.row, actor.settings
        gm = permissions.is_gm(settings, caller.manage_guild, caller.role_ids)
        permissions.check(
            permissions.Permission(permission.value),
            is_gm=gm,
            owner_id=row.sheet.owner_id,
            user_id=caller.user_id,
        )
        ctx = ActionContext(
            sheet=row.sheet,
            settings=settings,
            rng=rng,
            is_gm=gm,
            caller_id=caller.user_id,
            in_combat=actor.combat is not None,
            combat_round=actor.combat.round if actor.combat else None,
        )
        outcome = apply(ctx)
        if outcome.before != row.sheet:  # the log's before/after must chain without a gap
            raise RuntimeError(f"{command}: the outcome does not start from the loaded sheet")
        if outcome.after != row.sheet:
            await uow.save_character(row.id, outcome.after)
        await uow.log(row.id, caller.user_id, command, inputs, outcome)
    return outcome
