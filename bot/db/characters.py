"""Characters, the active character of each user, and the one-query load of a command's actor."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Row, delete, select, update
from sqlalchemy.exc import IntegrityError

from bot.db.guilds import GuildRepository, settings_from
from bot.db.records import Combat, name_key, shown
from bot.db.session import StaleWriteError
from bot.db.tables import active_characters, characters, combat_members, combats, guilds
from bot.services.context import CharacterRow
from rules.models import GuildSettings, Sheet
from rules.outcome import RuleError

_COLUMNS = (characters.c.id, characters.c.sheet, characters.c.version, characters.c.name_key)


@dataclass(frozen=True)
class Actor:
    """What a command on one character needs, loaded (and locked) in one round trip."""

    settings: GuildSettings
    row: CharacterRow | None
    combat: Combat | None


class CharacterRepository(GuildRepository):
    def _row(self, record: Row[Any]) -> CharacterRow:
        row_id, sheet, version, key = record[:4]
        self._loaded[row_id] = (version, key)
        return CharacterRow(id=row_id, guild_id=self.guild_id, sheet=Sheet.model_validate(sheet))

    def _rows(self, records: Sequence[Row[Any]]) -> list[CharacterRow]:
        rows = [self._row(record) for record in records]
        return sorted(rows, key=lambda row: (name_key(row.sheet.name), row.id))

    def _select(self) -> Any:
        return select(*_COLUMNS).where(characters.c.guild_id == self.guild_id)

    async def character(self, name: str, *, lock: bool = True) -> CharacterRow | None:
        """By name, ignoring case, in this guild only (P-2)."""
        stmt = self._locked(self._select().where(characters.c.name_key == name_key(name)), lock)
        record = (await self.conn.execute(stmt)).first()
        return None if record is None else self._row(record)

    async def character_by_id(self, row_id: int, *, lock: bool = True) -> CharacterRow | None:
        stmt = self._locked(self._select().where(characters.c.id == row_id), lock)
        record = (await self.conn.execute(stmt)).first()
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
        """Section 1: RuleError when the guild already has the name, in any case."""
        self._writable()
        key = name_key(sheet.name)
        if await self.character(sheet.name, lock=False) is not None:
            raise name_taken(sheet.name)
        now = self._now()
        stmt = characters.insert().values(
            guild_id=self.guild_id,
            name_key=key,
            owner_id=sheet.owner_id,
            sheet=sheet.model_dump(mode="json"),
            version=1,
            created_at=now,
            updated_at=now,
        )
        try:
            row_id = (await self.conn.execute(stmt.returning(characters.c.id))).scalar_one()
        except IntegrityError:  # created by a concurrent command since the check above
            raise name_taken(sheet.name) from None
        self._loaded[row_id] = (1, key)
        return CharacterRow(id=row_id, guild_id=self.guild_id, sheet=sheet)

    async def save_character(self, row_id: int, sheet: Sheet) -> None:
        self._writable()
        key = name_key(sheet.name)
        stmt = update(characters).where(
            characters.c.id == row_id, characters.c.guild_id == self.guild_id
        )
        loaded = self._loaded.get(row_id)
        if loaded is not None:
            stmt = stmt.where(characters.c.version == loaded[0])
        if loaded is None or loaded[1] != key:
            # A rename: say so plainly rather than fail on the unique constraint.
            other = await self.character(sheet.name, lock=False)
            if other is not None and other.id != row_id:
                raise name_taken(sheet.name)
        stmt = stmt.values(
            sheet=sheet.model_dump(mode="json"),
            name_key=key,
            owner_id=sheet.owner_id,
            version=characters.c.version + 1,
            updated_at=self._now(),
        )
        if loaded is None:  # the new version is unknown: ask for it
            stmt = stmt.returning(characters.c.version)
        try:
            result = await self.conn.execute(stmt)
        except IntegrityError:
            raise name_taken(sheet.name) from None
        version = loaded[0] + 1 if loaded else result.scalar_one_or_none()
        if (loaded and result.rowcount != 1) or version is None:
            raise StaleWriteError(f"character {row_id} changed or vanished since it was read")
        self._loaded[row_id] = (version, key)

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

    async def load_actor(self, name: str | None, user_id: int) -> Actor:
        """Settings, the character (by name, else the user's active one, locked) and its
        combat, in one statement: what hotpath.py loads, where it is not available (an
        in-memory SQLite database)."""
        if name is not None:
            which = characters.c.name_key == name_key(name)
        else:
            which = characters.c.id == self._active_id(user_id)
        stmt = (
            select(
                *_COLUMNS, guilds.c.settings, combats.c.id, combats.c.channel_id, combats.c.round
            )
            .select_from(characters)
            .outerjoin(guilds, guilds.c.guild_id == characters.c.guild_id)
            .outerjoin(combat_members, combat_members.c.character_id == characters.c.id)
            .outerjoin(combats, combats.c.id == combat_members.c.combat_id)
            .where(characters.c.guild_id == self.guild_id, which)
        )
        record = (await self.conn.execute(self._locked(stmt, True, of=characters))).first()
        if record is None:
            return Actor(settings=await self.settings(), row=None, combat=None)
        combat = None
        if record[5] is not None:
            combat = Combat(id=record[5], channel_id=record[6], round=record[7])
        return Actor(settings=settings_from(record[4]), row=self._row(record), combat=combat)


def name_taken(name: str) -> RuleError:
    return RuleError(
        f"This server already has a character named {shown(name)}. Choose another name."
    )
