"""Characters, the active character of each user, and the one-query load of a command's actor."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Row, Select, bindparam, case, delete, func, select
from sqlalchemy.exc import IntegrityError

from bot.db.errors import name_taken, stale
from bot.db.guilds import GuildRepository, settings_from
from bot.db.records import Actor, CharacterRow, Combat
from bot.db.tables import active_characters, characters, combat_members
from bot.db.turns import rows
from bot.db.writes import (
    SAVE_CHARACTER,
    SAVE_SHEET,
    Target,
    actor_params,
    load_actor,
    new_character_values,
    row_keys,
    save_params,
)
from rules.models import Sheet, State
from rules.names import name_key

_COLUMNS = (
    characters.c.id,
    characters.c.sheet,
    characters.c.version,
    characters.c.name_key,
    characters.c.owner_id,
)
# The status board's order: who must roll first (the Last Gasp before the others), then names.
_DOWN_FIRST = {State.DYING.value: 0, State.CRITICAL.value: 1, State.UNCONSCIOUS.value: 2}
_OUT = (State.DEAD.value, State.RETIRED.value)

# Built once (session.py says why): the pages' and boards' reads.
_OF_GUILD = characters.c.guild_id == bindparam("guild_id")
_BY_ID: Select[Any] = select(*_COLUMNS).where(_OF_GUILD, characters.c.id == bindparam("row_id"))
_BY_ID_LOCKED = _BY_ID.with_for_update()
_PAGE: Select[Any] = (
    select(*_COLUMNS)
    .where(_OF_GUILD)
    .order_by(characters.c.name_key, characters.c.id)
    .offset(bindparam("offset"))
    .limit(bindparam("limit"))
)
_COUNT = select(func.count()).select_from(characters).where(_OF_GUILD)
_ALIVE = characters.c.state.not_in(_OUT)
_LIVING: Select[Any] = (
    select(*_COLUMNS)
    .where(_OF_GUILD, _ALIVE)
    .order_by(case(_DOWN_FIRST, value=characters.c.state, else_=9), characters.c.name_key)
    .limit(bindparam("limit"))
)
_LIVING_COUNT = select(func.count()).select_from(characters).where(_OF_GUILD, _ALIVE)


class CharacterRepository(GuildRepository):
    def _row(self, record: Row[Any]) -> CharacterRow:
        row_id, sheet, version, key, owner_id = tuple(record)[:5]
        self._loaded[row_id] = (version, (key, owner_id))
        return CharacterRow(id=row_id, guild_id=self.guild_id, sheet=Sheet.model_validate(sheet))

    def _rows(self, records: Sequence[Row[Any]]) -> list[CharacterRow]:
        rows = [self._row(record) for record in records]
        return sorted(rows, key=lambda row: (name_key(row.sheet.name), row.id))

    def _select(self) -> Select[Any]:
        return select(*_COLUMNS).where(characters.c.guild_id == self.guild_id)

    async def character(self, name: str, *, lock: bool = True) -> CharacterRow | None:
        """By name, ignoring case and look-alike forms, in this guild only (P-2)."""
        stmt = self._locked(self._select().where(characters.c.name_key == name_key(name)), lock)
        record = (await self.conn.execute(stmt)).first()
        return None if record is None else self._row(record)

    async def character_by_id(self, row_id: int, *, lock: bool = True) -> CharacterRow | None:
        stmt = _BY_ID_LOCKED if self._locks(lock) else _BY_ID
        record = (await self.conn.execute(stmt, self._of(row_id=row_id))).first()
        return None if record is None else self._row(record)

    async def active_character(self, user_id: int, *, lock: bool = True) -> CharacterRow | None:
        stmt = self._locked(self._select().where(characters.c.id == self._active_id(user_id)), lock)
        record = (await self.conn.execute(stmt)).first()
        return None if record is None else self._row(record)

    def _active_id(self, user_id: int) -> Any:
        return (
            select(active_characters.c.character_id)
            .where(
                active_characters.c.guild_id == self.guild_id,
                active_characters.c.user_id == user_id,
            )
            .scalar_subquery()
        )

    async def set_active(self, user_id: int, character_id: int) -> None:
        self._writable()
        values = {"guild_id": self.guild_id, "user_id": user_id, "character_id": character_id}
        stmt = self._insert(active_characters).values(**values)
        await self.conn.execute(
            stmt.on_conflict_do_update(
                index_elements=[active_characters.c.guild_id, active_characters.c.user_id],
                set_={"character_id": character_id},
            )
        )

    async def characters(self, *, lock: bool = False) -> list[CharacterRow]:
        """The guild's characters, by name. Locked in id order, so that two commands locking
        several characters never deadlock."""
        stmt = self._locked(self._select().order_by(characters.c.id), lock)
        return self._rows((await self.conn.execute(stmt)).all())

    async def characters_page(self, offset: int, limit: int) -> tuple[list[CharacterRow], int]:
        """A page of the guild's characters by name (the campaign page's cards), and how many
        there are in all."""
        records = await self.conn.execute(_PAGE, self._of(offset=offset, limit=limit))
        page = await rows(self.conn, records, self._row)
        total = (await self.conn.execute(_COUNT, self._of())).scalar_one()
        return page, total

    async def living(self, limit: int) -> tuple[list[CharacterRow], int]:
        """The status board's characters: the living ones, who must roll first, at most
        `limit`; and how many living characters there are in all."""
        records = await self.conn.execute(_LIVING, self._of(limit=limit))
        found = await rows(self.conn, records, self._row)
        total = (await self.conn.execute(_LIVING_COUNT, self._of())).scalar_one()
        return found, total

    async def members(self, combat_id: int, *, lock: bool = False) -> list[CharacterRow]:
        """The characters of a combat, by name (locked in id order, as characters())."""
        stmt = (
            self._select()
            .join(combat_members, combat_members.c.character_id == characters.c.id)
            .where(combat_members.c.combat_id == combat_id)
            .order_by(characters.c.id)
        )
        stmt = self._locked(stmt, lock, of=characters)
        return self._rows((await self.conn.execute(stmt)).all())

    async def search_characters(
        self, prefix: str, user_id: int, limit: int = 25
    ) -> list[CharacterRow]:
        """Autocomplete: names starting with the prefix, the user's own characters first."""
        own = characters.c.owner_id == user_id
        stmt = (
            self._select()
            .where(characters.c.name_key.startswith(name_key(prefix), autoescape=True))
            .order_by(own.desc(), characters.c.name_key)
            .limit(limit)
        )
        return [self._row(record) for record in (await self.conn.execute(stmt)).all()]

    async def add_character(self, sheet: Sheet) -> CharacterRow:
        """RuleError when the guild already has the name (its key, ignoring case and forms)."""
        self._writable()
        if await self.character(sheet.name, lock=False) is not None:
            raise name_taken(sheet.name)
        values = new_character_values(self.guild_id, sheet, self._now())
        stmt = characters.insert().values(**values).returning(characters.c.id)
        try:
            row_id = (await self.conn.execute(stmt)).scalar_one()
        except IntegrityError:  # created by a concurrent command since the check above
            raise name_taken(sheet.name) from None
        self._loaded[row_id] = (1, row_keys(sheet))
        return CharacterRow(id=row_id, guild_id=self.guild_id, sheet=sheet)

    async def save_character(self, row_id: int, sheet: Sheet) -> None:
        """Writes the sheet loaded in this transaction (writes.py's saves, as the hot path)."""
        self._writable()
        loaded = self._loaded.get(row_id)
        if loaded is None:
            raise RuntimeError(f"character {row_id} was not loaded in this transaction")
        version, keys = loaded
        params = save_params(row_id, self.guild_id, version, sheet, self._now())
        new_keys = row_keys(sheet)
        if keys[0] != new_keys[0]:
            # A rename: say so plainly rather than fail on the unique constraint.
            other = await self.character(sheet.name, lock=False)
            if other is not None and other.id != row_id:
                raise name_taken(sheet.name)
        try:
            save = SAVE_CHARACTER if keys != new_keys else SAVE_SHEET
            result = await self.conn.execute(save, params)
        except IntegrityError:
            raise name_taken(sheet.name) from None
        if result.rowcount != 1:
            raise stale(row_id)
        self._loaded[row_id] = (version + 1, new_keys)

    async def delete_character(self, row_id: int) -> None:
        """Its combat membership and active selections go with it (ON DELETE CASCADE);
        its events stay in the log."""
        self._writable()
        await self.conn.execute(
            delete(characters).where(
                characters.c.id == row_id, characters.c.guild_id == self.guild_id
            )
        )
        self._loaded.pop(row_id, None)

    async def load_actor(self, target: Target, user_id: int) -> tuple[Actor, int]:
        """Settings, the character (by name, by id, else the user's active one, locked) and
        its combat, in one statement (writes.load_actor, as the hot path loads it); with the
        row's version."""
        stmt = self._locked(load_actor(target), True, of=characters)
        params = actor_params(self.guild_id, target, user_id)
        record = (await self.conn.execute(stmt, params)).first()
        if record is None:
            return Actor(settings=await self.settings(), row=None, combat=None), 0
        row_id, data, version, settings, combat_id, channel_id, round_number = record
        sheet = Sheet.model_validate(data)
        self._loaded[row_id] = (version, row_keys(sheet))
        row = CharacterRow(id=row_id, guild_id=self.guild_id, sheet=sheet)
        combat = None if combat_id is None else Combat(combat_id, channel_id, round_number)
        return Actor(settings=settings_from(settings), row=row, combat=combat), version
