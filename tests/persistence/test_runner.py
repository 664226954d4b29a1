"""run_character_action: one transaction per command, all or nothing."""

from __future__ import annotations

import random

import pytest

from bot.db.database import Database
from bot.services.base import run_character_action
from bot.services.context import ActionContext, Permission
from rules.errors import RuleError
from rules.outcome import Outcome
from rules.vitality import damage
from tests.persistence.helpers import GUILD, caller, create, hit, log_of, sheet_of


async def test_the_active_character_is_the_default(db: Database) -> None:
    row = await create(db, "Ada")
    with pytest.raises(RuleError, match="You have no active character"):
        await hit(db, None, 1)
    async with db.transaction(GUILD) as uow:
        await uow.set_active(7, row.id)
    assert (await hit(db, None, 2)).after.vit == 8


async def test_a_row_id_targets_that_character_and_a_gone_one_is_refused(db: Database) -> None:
    row = await create(db, "Ida")
    await create(db, "Other")
    assert (await hit(db, row.id, 3)).after.vit == 7  # a button's target: the row id
    async with db.transaction(GUILD) as uow:
        await uow.delete_character(row.id)
    with pytest.raises(RuleError, match="no longer exists"):
        await hit(db, row.id, 1)
    with pytest.raises(RuleError, match="no longer exists"):
        await hit(db, 424242, 1)
    assert [event.command for event in await log_of(db, row.id)] == ["character create", "damage"]


async def test_an_unknown_name_is_refused_with_the_name_as_a_value(db: Database) -> None:
    with pytest.raises(RuleError) as refused:
        await hit(db, "**Bo**", 1)
    assert str(refused.value) == (
        "No character named **Bo** in this server. /character list shows the names."
    )
    assert refused.value.values == {"name": "**Bo**"}  # escaped where it is rendered


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
            target="Dax",
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
    acted = await run_character_action(
        db,
        caller(user_id=7),
        command="damage",
        inputs={"amount": 2},
        target="eve",
        permission=Permission.OWNER_OR_GM,
        apply=spy,
        rng=rng,
    )
    outcome = acted.outcome
    assert acted.character_id == row.id and acted.settings == seen[0].settings
    (ctx,) = seen
    assert (ctx.in_combat, ctx.combat_round, ctx.is_gm, ctx.caller_id) == (True, 3, False, 7)
    assert ctx.rng is rng and ctx.sheet == row.sheet
    assert await sheet_of(db, row.id) == outcome.after
    (event,) = (await log_of(db, row.id))[1:]
    assert (event.command, event.inputs) == ("damage", {"amount": 2})
    assert event.rules == outcome.rules and "H-1" in event.rules
