"""What the use cases share: finding a character and checking the caller may act on it
(P-1..P-4) inside the command's transaction, and the runner of a rule on one character."""

from __future__ import annotations

import random
from collections.abc import Callable

from bot.db import Actor, Database
from bot.db.records import shown
from bot.services.context import ActionContext, Caller, CharacterRow, Permission
from rules import permissions
from rules.models import GuildSettings, Sheet
from rules.outcome import Outcome, RuleError

NO_ACTIVE = "You have no active character: pick one with /character select, or name the character."


def no_character(name: str) -> RuleError:
    return RuleError(
        f"No character named {shown(name)} in this server. /character list shows the names."
    )


def given(options: dict[str, object]) -> dict[str, object]:
    """The options the caller gave (None: left out)."""
    return {key: value for key, value in options.items() if value is not None}


def found(row: CharacterRow | None, name: str | None) -> CharacterRow:
    """The row looked up by `name` (None: the caller's active character), or the refusal."""
    if row is None:
        raise RuleError(NO_ACTIVE) if name is None else no_character(name)
    return row


def is_gm(settings: GuildSettings, caller: Caller) -> bool:
    return permissions.is_gm(settings, caller.manage_guild, caller.role_ids)


def check_permission(
    permission: Permission, gm: bool, owner_id: int | None, caller: Caller
) -> None:
    permissions.check(permission, is_gm=gm, owner_id=owner_id, user_id=caller.user_id)


async def lookup(uow, caller: Caller, name: str | None, permission: Permission) -> CharacterRow:
    """The character (by name, else the caller's active one; locked in a writing transaction)
    once the caller may act on it: for the use cases that need more of the unit of work than
    run_character_action gives."""
    settings = await uow.settings()
    if name is None:
        row = await uow.active_character(caller.user_id)
    else:
        row = await uow.character(name)
    row = found(row, name)
    check_permission(permission, is_gm(settings, caller), row.sheet.owner_id, caller)
    return row


async def require_gm(uow, caller: Caller, *, lock: bool = False) -> GuildSettings:
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
    inputs: dict,
    character: str | None,
    permission: Permission,
    apply: Callable[[ActionContext], Outcome],
    rng: random.Random,
) -> Outcome:
    """Load settings and the character (locked) with its combat, check the permission, apply
    the rule, save `outcome.after`, log the event, commit: one transaction (Database.act). A
    RuleError anywhere rolls back and propagates unchanged."""

    def decide(actor: Actor) -> Outcome:
        # Pure, like the rules: on SQLite it runs inside the writer thread's transaction.
        row = found(actor.row, character)
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
        return outcome

    return await db.act(
        caller.guild_id, character, caller.user_id, decide, command=command, inputs=inputs
    )


async def read_character(
    db: Database, caller: Caller, name: str | None
) -> tuple[CharacterRow, GuildSettings]:
    """A character anyone in the guild may look at (by name, else the caller's active one)
    and the guild's settings, in one read: for the commands that change nothing."""
    actor = await db.read_actor(caller.guild_id, name, caller.user_id)
    return found(actor.row, name), actor.settings


async def change_character(
    db: Database,
    caller: Caller,
    rng: random.Random,
    command: str,
    name: str,
    permission: Permission,
    rule: Callable[[Sheet], Outcome],
    /,
    **inputs: object,
) -> Outcome:
    """run_character_action for a rule that needs the sheet alone; the event logs the
    character's name with `inputs` (which may hold a `name` of their own: a new name)."""
    return await run_character_action(
        db,
        caller,
        command=command,
        inputs={"character": name, **inputs},
        character=name,
        permission=permission,
        apply=lambda ctx: rule(ctx.sheet),
        rng=rng,
    )
