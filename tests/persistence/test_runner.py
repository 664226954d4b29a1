"""run_character_action: one transaction per command, all or nothing."""

from __future__ import annotations

import random

import pytest

from bot.db import Database
from bot.services.base import run_character_action
from bot.services.context import ActionContext, Permission
from rules.outcome import Outcome, RuleError
from rules.vitality import damage
from tests.persistence.helpers import GUILD, caller, create, hit, log_of, sheet_of


async def test_the_active_character_is_the_default(db: Database) -> None:
    row = await create(db, "Ada")
    with pytest.raises(RuleError, match="You have no active character"):
        await hit(db, None, 1)
    async with db.transaction(GUILD) as uow:
        await uow.set_active(7, row.id)
    assert (await hit(db, None, 2)).after.vit == 8


async def test_an_unknown_name_is_refused_with_the_name_escaped(db: Database) -> None:
    with pytest.raises(RuleError) as refused:
        await hit(db, "**Bo**", 1)
    assert str(refused.value) == (
        r"No character named \*\*Bo\*\* in this server. /character list shows the names."
    )


async def test_permissions_are_checked_before_the_rule(db: Database) -> None:
    row = await create(db, "Cal", owner_id=7)
    with pytest.raises(RuleError, match="P-4"):
        await hit(db, "Cal", 1, who=caller(user_id=8))
    assert (await hit(db, "Cal", 1, who=caller(user_id=8, gm=True))).after.vit == 9
    assert len(await log_of(db, row.id)) == 2


async def test_a_refusal_changes_nothing_and_logs_nothing(db: Database) -> None:
    row = await create(db, "Dax")
    with pytest.raises(RuleError, match="Damage is a whole number"):
        await hit(db, "Dax", 0)

    def refuse_late(ctx: ActionContext) -> Outcome:
        raise RuleError("no")

    with pytest.raises(RuleError, match=r"^no$"):
        await run_character_action(
            db,
            caller(),
            command="x",
            inputs={},
            character="Dax",
            permission=Permission.ANYONE,
            apply=refuse_late,
            rng=random.Random(1),
        )
    assert await sheet_of(db, row.id) == row.sheet
    assert len(await log_of(db, row.id)) == 1


async def test_the_rule_sees_settings_combat_and_caller(db: Database) -> None:
    row = await create(db, "Eve")
    async with db.transaction(GUILD) as uow:
        combat = await uow.start_combat(77, round_number=3)
        await uow.add_member(combat.id, row.id)
    seen: list[ActionContext] = []

    def spy(ctx: ActionContext) -> Outcome:
        seen.append(ctx)
        return damage(ctx.sheet, 2, ctx.settings)

    rng = random.Random(5)
    outcome = await run_character_action(
        db,
        caller(user_id=7),
        command="damage",
        inputs={"amount": 2},
        character="eve",
        permission=Permission.OWNER_OR_GM,
        apply=spy,
        rng=rng,
    )
    (ctx,) = seen
    assert (ctx.in_combat, ctx.combat_round, ctx.is_gm, ctx.caller_id) == (True, 3, False, 7)
    assert ctx.rng is rng and ctx.sheet == row.sheet
    assert await sheet_of(db, row.id) == outcome.after
    (event,) = (await log_of(db, row.id))[1:]
    assert (event.command, event.inputs) == ("damage", {"amount": 2})
    assert event.rules == outcome.rules and "H-1" in event.rules
