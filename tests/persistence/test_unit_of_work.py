"""The unit of work of the contract: each method, and all-or-nothing transactions."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from bot.db.database import Database
from bot.db.errors import StaleWriteError
from bot.db.records import Board, Combat
from bot.db.tables import characters
from rules.errors import RuleError
from rules.models import DeathRule, GuildSettings, Sheet
from tests.persistence.helpers import GUILD, create, hit, log_of, sheet_of


async def test_settings_default_then_saved(db: Database) -> None:
    async with db.transaction(GUILD) as uow:
        assert await uow.settings() == GuildSettings()
        await uow.save_settings(GuildSettings(death_rule=DeathRule.INSTANT, gm_role_id=2**62))
    async with db.transaction(GUILD, read_only=True) as uow:
        assert await uow.settings() == GuildSettings(death_rule="instant", gm_role_id=2**62)
    async with db.transaction(GUILD + 1) as uow:
        assert await uow.settings() == GuildSettings()  # P-2: per guild


async def test_day_starts_at_one_and_keeps_the_settings(db: Database) -> None:
    async with db.transaction(GUILD) as uow:
        assert await uow.day() == 1
        await uow.save_settings(GuildSettings(emotion_threshold=6))
        await uow.set_day(await uow.day() + 1)
    async with db.transaction(GUILD) as uow:
        assert await uow.day() == 2
        assert (await uow.settings()).emotion_threshold == 6
    async with db.transaction(GUILD) as uow:
        await uow.set_day(5)
        await uow.save_settings(GuildSettings())
    async with db.transaction(GUILD, read_only=True) as uow:
        assert await uow.day() == 5


async def test_names_are_unique_per_guild_ignoring_case(db: Database) -> None:
    row = await create(db, "Roryn")
    taken = r"^This server already has a character named RORYN\. Choose another name\.$"
    with pytest.raises(RuleError, match=taken):
        await create(db, "RORYN")
    other = await create(db, "roryn", guild_id=GUILD + 1)  # another guild may
    assert other.id != row.id
    async with db.transaction(GUILD) as uow:
        found = await uow.character("  rORYn ")
        assert found is not None and found.id == row.id and found.sheet.name == "Roryn"
        assert await uow.character("Roryn2") is None
        assert await uow.character_by_id(other.id) is None  # P-2: not across guilds


async def test_rename_onto_a_taken_name_is_refused(db: Database) -> None:
    await create(db, "Alba")
    bea = await create(db, "Bea")
    with pytest.raises(RuleError, match="already has a character named"):
        async with db.transaction(GUILD) as uow:
            row = await uow.character("Bea")
            await uow.save_character(row.id, row.sheet.update(name="ALBA"))
    async with db.transaction(GUILD) as uow:
        row = await uow.character("bea")
        await uow.save_character(row.id, row.sheet.update(name="Beatrix"))
    async with db.transaction(GUILD) as uow:
        assert (await uow.character("beatrix")).id == bea.id
        assert await uow.character("Bea") is None


async def test_characters_by_name_and_search_own_first(db: Database) -> None:
    for name, owner in (("Cid", 1), ("carl", 2), ("Abe", 2), ("Cyra", 2), ("C_x", 1)):
        await create(db, name, owner_id=owner)
    async with db.transaction(GUILD, read_only=True) as uow:
        names = [row.sheet.name for row in await uow.characters()]
        assert names == ["Abe", "C_x", "carl", "Cid", "Cyra"]
        found = [row.sheet.name for row in await uow.search_characters("c", 2)]
        assert found == ["carl", "Cyra", "C_x", "Cid"]
        assert [r.sheet.name for r in await uow.search_characters("C_", 2)] == ["C_x"]  # no LIKE
        assert [r.sheet.name for r in await uow.search_characters("c", 1, limit=2)] == [
            "C_x",
            "Cid",
        ]


async def test_active_character_per_guild_and_user(db: Database) -> None:
    first = await create(db, "First")
    second = await create(db, "Second")
    async with db.transaction(GUILD) as uow:
        assert await uow.active_character(7) is None
        await uow.set_active(7, first.id)
        await uow.set_active(8, second.id)
        await uow.set_active(7, second.id)
    async with db.transaction(GUILD) as uow:
        assert (await uow.active_character(7)).id == second.id
        assert (await uow.active_character(8)).id == second.id
    async with db.transaction(GUILD + 1) as uow:
        assert await uow.active_character(7) is None


async def test_combat_per_channel_with_one_combat_per_character(db: Database) -> None:
    a = await create(db, "A")
    b = await create(db, "B")
    async with db.transaction(GUILD) as uow:
        assert await uow.combat(10) is None
        combat = await uow.start_combat(10)
        assert combat == Combat(id=combat.id, channel_id=10, round=1)
        await uow.add_member(combat.id, b.id)
        await uow.add_member(combat.id, a.id)
        await uow.set_round(combat.id, 2)
    with pytest.raises(RuleError, match="already running"):
        async with db.transaction(GUILD) as uow:
            await uow.start_combat(10)
    async with db.transaction(GUILD) as uow:
        other = await uow.start_combat(11)
        with pytest.raises(RuleError, match="C-2"):
            await uow.add_member(other.id, a.id)  # C-2
    async with db.transaction(GUILD) as uow:
        combat = await uow.combat(10)
        assert combat is not None and combat.round == 2
        assert [row.sheet.name for row in await uow.members(combat.id, lock=True)] == ["A", "B"]
        assert await uow.combat_of(a.id) == combat
        assert await uow.combat_of(a.id) != await uow.combat(11)
        await uow.remove_member(combat.id, a.id)
        assert await uow.combat_of(a.id) is None
        await uow.end_combat(10)
    async with db.transaction(GUILD) as uow:
        assert await uow.combat(10) is None
        assert await uow.combat_of(b.id) is None  # members leave with the combat
        assert await uow.combat(11) is not None


async def test_delete_keeps_the_log_and_drops_selections_and_membership(db: Database) -> None:
    row = await create(db, "Gone")
    async with db.transaction(GUILD) as uow:
        await uow.set_active(7, row.id)
        await uow.add_member((await uow.start_combat(3)).id, row.id)
        await uow.log(row.id, 7, "character delete", {}, before=row.sheet)
        await uow.delete_character(row.id)
    async with db.transaction(GUILD) as uow:
        assert await uow.character_by_id(row.id) is None
        assert await uow.active_character(7) is None
        assert await uow.members((await uow.combat(3)).id) == []
    assert [event.command for event in await log_of(db, row.id)] == [
        "character create",
        "character delete",
    ]
    new = await create(db, "Gone")  # the name is free again, and the id is never reused
    assert new.id > row.id


async def test_an_error_inside_the_transaction_changes_nothing(db: Database) -> None:
    row = await create(db, "Safe")
    with pytest.raises(RuleError):
        async with db.transaction(GUILD) as uow:
            await uow.character_by_id(row.id)
            await uow.save_character(row.id, row.sheet.update(vit=1))
            await uow.log(row.id, 7, "damage", {"amount": 9}, before=row.sheet)
            await uow.set_day(9)
            await uow.add_character(Sheet(name="Other", owner_id=7))
            raise RuleError("refused half-way")
    assert await sheet_of(db, row.id) == row.sheet
    assert len(await log_of(db, row.id)) == 1
    async with db.transaction(GUILD) as uow:
        assert await uow.day() == 1
        assert await uow.character("Other") is None


async def test_a_save_that_lost_a_race_fails_instead_of_overwriting(db: Database) -> None:
    await create(db, "Raced")
    async with db.transaction(GUILD) as uow:
        stale = await uow.character("Raced", lock=False)
        # Another command's write, as if it had committed in between (same row, newer version).
        await uow.save_character(stale.id, stale.sheet.update(vit=5))
        uow._loaded[stale.id] = (1, uow._loaded[stale.id][1])  # forget that we wrote it
        with pytest.raises(StaleWriteError):
            await uow.save_character(stale.id, stale.sheet.update(vit=9))


async def test_a_save_of_a_sheet_not_loaded_in_the_transaction_is_refused(db: Database) -> None:
    row = await create(db, "Unread")
    with pytest.raises(RuntimeError, match="not loaded in this transaction"):
        async with db.transaction(GUILD) as uow:
            await uow.save_character(row.id, row.sheet.update(vit=1))
    assert await sheet_of(db, row.id) == row.sheet


async def test_combat_membership_stays_within_the_guild(db: Database) -> None:
    mine = await create(db, "Mine")
    theirs = await create(db, "Theirs", guild_id=GUILD + 1)
    async with db.transaction(GUILD + 1) as uow:
        their_combat = await uow.start_combat(20)
        await uow.add_member(their_combat.id, theirs.id)
    async with db.transaction(GUILD) as uow:
        my_combat = await uow.start_combat(21)
        with pytest.raises(ValueError):
            await uow.add_member(their_combat.id, mine.id)
        with pytest.raises(ValueError):
            await uow.add_member(my_combat.id, theirs.id)
        await uow.remove_member(their_combat.id, theirs.id)  # not this guild's: no effect
        assert await uow.combat(20) is None
    async with db.transaction(GUILD + 1) as uow:
        assert [row.id for row in await uow.members(their_combat.id)] == [theirs.id]


async def test_a_read_only_transaction_refuses_to_write(db: Database) -> None:
    row = await create(db, "Reader")
    async with db.transaction(GUILD, read_only=True) as uow:
        with pytest.raises(RuntimeError, match="read-only"):
            await uow.save_character(row.id, row.sheet.update(vit=1))
        with pytest.raises(RuntimeError, match="read-only"):
            await uow.log(row.id, 7, "x", {})
    assert await sheet_of(db, row.id) == row.sheet


async def test_boards_one_per_channel_moved_and_ended(db: Database) -> None:
    async with db.transaction(GUILD) as uow:
        assert await uow.board(30) is None
        await uow.set_board(30, 900)
        await uow.set_board(31, 901)
        await uow.set_board(30, 902)  # a second start moves the channel's board
    async with db.transaction(GUILD + 1) as uow:
        await uow.set_board(40, 903)
        assert await uow.board(30) is None  # P-2: not another guild's
    async with db.transaction(GUILD) as uow:
        assert await uow.board(30) == Board(GUILD, 30, 902)
        assert sorted(await uow.guild_boards(), key=lambda b: b.channel_id) == [
            Board(GUILD, 30, 902),
            Board(GUILD, 31, 901),
        ]
        assert not await uow.end_board(30, 900)  # not that message any more: kept
        assert await uow.end_board(30, 902)
        assert await uow.end_board(31)
        assert not await uow.end_board(31)
        assert not await uow.end_board(40)  # another guild's
    assert await db.all_boards() == [Board(GUILD + 1, 40, 903)]


async def test_listeners_hear_of_committed_writes_only(db: Database) -> None:
    heard: list[int] = []
    db.listen(heard.append)
    row = await create(db, "Heard")
    await hit(db, "Heard", 1)  # Database.act
    async with db.transaction(GUILD, read_only=True) as uow:
        await uow.characters()
    with pytest.raises(RuleError):
        async with db.transaction(GUILD + 1) as uow:
            await uow.set_day(3)
            raise RuleError("rolled back")
    with pytest.raises(RuleError):
        await hit(db, "Nobody", 1)
    assert heard == [GUILD, GUILD]
    latest = await db.latest_events({GUILD, GUILD + 1})
    async with db.transaction(GUILD, read_only=True) as uow:
        assert latest == {GUILD: await uow.latest_event()}
        assert latest[GUILD] == (await log_of(db, row.id))[-1].id


async def test_the_state_column_is_written_with_every_sheet(db: Database) -> None:
    rows = {
        name: await create(db, name, **fields)
        for name, fields in (
            ("Up", {}),
            ("Out", {"dead": True}),
            ("Low", {"vit": 0}),
            ("Gone", {"retired": True}),
        )
    }
    async with db.transaction(GUILD) as uow:
        low = await uow.character("Low")
        assert low is not None
        await uow.save_character(low.id, low.sheet.update(vit=-3))  # RES 2: Dying
    async with db.transaction(GUILD, read_only=True) as uow:
        living, count = await uow.living(1)
    assert count == 2 and [row.sheet.name for row in living] == ["Low"]  # the Dying first
    async with db.engine.connect() as conn:
        states = dict((await conn.execute(select(characters.c.id, characters.c.state))).all())
    assert states == {
        rows["Up"].id: "Up",
        rows["Out"].id: "Dead",
        rows["Low"].id: "Dying",
        rows["Gone"].id: "Retired",
    }
