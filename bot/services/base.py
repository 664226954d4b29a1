"""What the use cases share: finding a character and checking the caller may act on it
(P-1..P-4) inside the command's transaction, and the runner of a rule on one character."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from bot.db.database import Database
from bot.db.records import Actor, CharacterRow
from bot.db.uow import UnitOfWork
from bot.services.context import Acted, ActionContext, Caller, Permission, Target
from rules import permissions
from rules.errors import RuleError
from rules.models import GuildSettings
from rules.names import MAX_NAME, graphemes
from rules.outcome import Outcome

NO_ACTIVE = "You have no active character: pick one with /character select, or name the character."
# A button has no option to name a character with.
NO_ACTIVE_TO_SHOW = (
    "You have no active character: pick one with /character select (or make one with "
    "/character create), then press again."
)
GONE = "That character no longer exists (it was deleted). Nothing was changed."


def no_character(name: str) -> RuleError:
    if len(graphemes(name)) > MAX_NAME:  # no name is that long: not worth quoting back
        return RuleError(
            f"No character has a name that long (at most {MAX_NAME} characters). "
            "/character list shows the names."
        )
    return RuleError(
        "No character named {name} in this server. /character list shows the names.", name=name
    )


def given(options: dict[str, Any]) -> dict[str, Any]:
    """The options the caller gave (None: left out)."""
    return {key: value for key, value in options.items() if value is not None}


def found(row: CharacterRow | None, target: Target) -> CharacterRow:
    """The row looked up by `target`, or the refusal that says why there is none."""
    if row is not None:
        return row
    if target is None:
        raise RuleError(NO_ACTIVE)
    if isinstance(target, int):
        raise RuleError(GONE)
    raise no_character(target)


def is_gm(settings: GuildSettings, caller: Caller) -> bool:
    return permissions.is_gm(settings, caller.manage_guild, caller.role_ids)


def check_permission(
    permission: Permission, gm: bool, owner_id: int | None, caller: Caller
) -> None:
    permissions.check(permission, is_gm=gm, owner_id=owner_id, user_id=caller.user_id)


async def lookup(
    uow: UnitOfWork, caller: Caller, target: Target, permission: Permission
) -> CharacterRow:
    """The character (by name, by id, else the caller's active one; locked in a writing
    transaction) once the caller may act on it: for the use cases that need more of the unit
    of work than run_character_action gives."""
    settings = await uow.settings()
    if target is None:
        row = await uow.active_character(caller.user_id)
    elif isinstance(target, int):
        row = await uow.character_by_id(target)
    else:
        row = await uow.character(target)
    row = found(row, target)
    check_permission(permission, is_gm(settings, caller), row.sheet.owner_id, caller)
    return row


async def require_gm(uow: UnitOfWork, caller: Caller, *, lock: bool = False) -> GuildSettings:
    """P-3 for commands on no single character (settings, rounds, days, combat).
    lock=True before the settings themselves are rewritten."""
    settings = await uow.settings(lock=lock)
    check_permission(Permission.GM, is_gm(settings, caller), None, caller)
    return settings


async def run_character_action(
    db: Database,
    caller: Caller,
    *,
    command: str,
    inputs: dict[str, Any],
    target: Target,
    permission: Permission,
    apply: Callable[[ActionContext], Outcome],
    rng: random.Random,
) -> Acted:
    """Load settings and the character (locked) with its combat, check the permission, apply
    the rule, save `outcome.after`, log the event, commit: one transaction (Database.act). A
    RuleError anywhere rolls back and propagates unchanged."""
    decided: dict[str, Any] = {}

    def decide(actor: Actor) -> Outcome:
        # Pure, like the rules: on SQLite it runs inside the writer's transaction (on the event
        # loop, or on the writer thread), and it may run again after a lost race (the last run
        # is the one saved).
        row = found(actor.row, target)
        gm = is_gm(actor.settings, caller)
        check_permission(permission, gm, row.sheet.owner_id, caller)
        ctx = ActionContext(
            sheet=row.sheet,
            settings=actor.settings,
            rng=rng,
            is_gm=gm,
            caller_id=caller.user_id,
            in_combat=actor.combat is not None,
            combat_round=actor.combat.round if actor.combat else None,
        )
        outcome = apply(ctx)
        if outcome.before != row.sheet:  # the log's before/after must chain without a gap
            raise RuntimeError(f"{command}: the outcome does not start from the loaded sheet")
        decided.update(character_id=row.id, settings=actor.settings, in_combat=ctx.in_combat)
        return outcome

    outcome = await db.act(
        caller.guild_id, target, caller.user_id, decide, command=command, inputs=inputs
    )
    return Acted(outcome, decided["character_id"], decided["settings"], decided["in_combat"])


async def read_character(
    db: Database, caller: Caller, target: Target
) -> tuple[CharacterRow, GuildSettings]:
    """A character anyone in the guild may look at (by name, by id, else the caller's active
    one) and the guild's settings, in one read: for the commands that change nothing."""
    actor = await db.read_actor(caller.guild_id, target, caller.user_id)
    return found(actor.row, target), actor.settings


async def change_character(
    db: Database,
    caller: Caller,
    rng: random.Random,
    command: str,
    target: Target,
    permission: Permission,
    rule: Callable[[ActionContext], Outcome],
    inputs: dict[str, Any],
) -> Acted:
    """run_character_action for the sheet commands: the event logs the character's name
    with `inputs` (which may hold a `name` of their own: a new name)."""
    shown = {"character": target} if isinstance(target, str) else {}
    return await run_character_action(
        db,
        caller,
        command=command,
        inputs={**shown, **given(inputs)},
        target=target,
        permission=permission,
        apply=rule,
        rng=rng,
    )
