"""Combat per channel (C-1) and its members (C-2)."""

from __future__ import annotations

from sqlalchemy import Select, delete, literal, select, update
from sqlalchemy.exc import IntegrityError

from bot.db.records import Combat
from bot.db.session import Session
from bot.db.tables import characters, combat_members, combats
from rules.errors import RuleError

_COLUMNS = (combats.c.id, combats.c.channel_id, combats.c.round)
ALREADY_IN_COMBAT = (
    "That character is already in a combat (C-2): remove it from that one first "
    "with /combat remove."
)


class CombatRepository(Session):
    async def combat(self, channel_id: int, *, lock: bool = False) -> Combat | None:
        """This channel's combat; `lock` before its round is read to be rewritten (C-1: two
        "Next round" at once must make two rounds)."""
        stmt = select(*_COLUMNS).where(
            combats.c.guild_id == self.guild_id, combats.c.channel_id == channel_id
        )
        record = (await self.conn.execute(self._locked(stmt, lock))).first()
        return None if record is None else Combat(*record)

    async def start_combat(self, channel_id: int, *, round_number: int = 1) -> Combat:
        self._writable()
        if await self.combat(channel_id) is not None:
            raise RuleError("A combat is already running in this channel: end it with /combat end.")
        stmt = combats.insert().values(
            guild_id=self.guild_id,
            channel_id=channel_id,
            round=round_number,
            started_at=self._now(),
        )
        try:
            combat_id = (await self.conn.execute(stmt.returning(combats.c.id))).scalar_one()
        except IntegrityError:  # started by a concurrent command since the check
            raise RuleError("A combat is already running in this channel.") from None
        return Combat(id=combat_id, channel_id=channel_id, round=round_number)

    async def end_combat(self, channel_id: int) -> None:
        """Its members leave with it (ON DELETE CASCADE)."""
        self._writable()
        await self.conn.execute(
            delete(combats).where(
                combats.c.guild_id == self.guild_id, combats.c.channel_id == channel_id
            )
        )

    async def combat_of(self, character_id: int) -> Combat | None:
        stmt = (
            select(*_COLUMNS)
            .join(combat_members, combat_members.c.combat_id == combats.c.id)
            .where(
                combats.c.guild_id == self.guild_id, combat_members.c.character_id == character_id
            )
        )
        record = (await self.conn.execute(stmt)).first()
        return None if record is None else Combat(*record)

    async def add_member(self, combat_id: int, character_id: int) -> None:
        """C-2: RuleError when the character is in a combat already (this one or another)."""
        self._writable()
        if await self.combat_of(character_id) is not None:
            raise RuleError(ALREADY_IN_COMBAT)
        # P-2: both the combat and the character must be this guild's.
        both = select(literal(combat_id), characters.c.id).where(
            characters.c.id == character_id,
            characters.c.guild_id == self.guild_id,
            self._guild_combats().where(combats.c.id == combat_id).exists(),
        )
        stmt = combat_members.insert().from_select(["combat_id", "character_id"], both)
        try:
            result = await self.conn.execute(stmt)
        except IntegrityError:
            raise RuleError(ALREADY_IN_COMBAT) from None
        if result.rowcount != 1:
            raise ValueError(f"combat {combat_id} or character {character_id} is not this guild's")

    async def remove_member(self, combat_id: int, character_id: int) -> None:
        self._writable()
        await self.conn.execute(
            delete(combat_members).where(
                combat_members.c.combat_id == combat_id,
                combat_members.c.character_id == character_id,
                combat_members.c.combat_id.in_(self._guild_combats()),
            )
        )

    async def fighting(self) -> set[int]:
        """The ids of the guild's characters that are in a combat (C-2)."""
        stmt = select(combat_members.c.character_id).where(
            combat_members.c.combat_id.in_(self._guild_combats())
        )
        return set((await self.conn.execute(stmt)).scalars())

    def _guild_combats(self) -> Select[tuple[int]]:
        return select(combats.c.id).where(combats.c.guild_id == self.guild_id)

    async def set_round(self, combat_id: int, round_number: int) -> None:
        self._writable()
        await self.conn.execute(
            update(combats)
            .where(combats.c.id == combat_id, combats.c.guild_id == self.guild_id)
            .values(round=round_number)
        )
