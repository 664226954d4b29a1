"""A statement compiled once (bot/db/compiled.py): its parameters are what SQLAlchemy's own
processors make of the values, in the statement's order, the statement's literals included,
and the time a command's save and event share is processed once without ever being mixed up
with another time."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy.engine import Dialect

from bot.db import compiled as compiled_module
from bot.db.compiled import Compiled
from bot.db.engine import create_engine
from bot.db.writes import EVENT_COLUMNS, LOG_EVENT, SAVE_SHEET, event_values, save_params
from rules.models import Sheet
from rules.rolls import NumericRoll

# The engines' own dialects (their JSON serializer is the bot's); neither connects.
DIALECTS = [
    create_engine(url).sync_engine.dialect
    for url in ("sqlite+aiosqlite:///:memory:", "postgresql+asyncpg://nobody@localhost/none")
]


def _values() -> dict[str, Any]:
    now = datetime(2026, 12, 6, 4, 5, 6, 789, tzinfo=UTC)
    before = Sheet(name="Ayla", owner_id=5)
    after = before.update(vit=4)
    roll = NumericRoll(label="Damage", expression="1d6", dice=(4,), value=4, total=4)
    return {
        **save_params(1, 2, 3, after, now, keys=False),
        **event_values(
            guild_id=2,
            character_id=1,
            user_id=9,
            command="damage",
            inputs={"amount": 6, "cause": "fire é"},
            before=before,
            after=after,
            rolls=[roll],
            rules=("D-1", "V-7"),
            now=now,
        ),
    }


def _reference(statement: Any, dialect: Dialect, values: dict[str, Any], keys: Any = None):
    """What SQLAlchemy makes of the values, parameter by parameter."""
    compiled = statement.compile(dialect=dialect, column_keys=keys)
    out = []
    for name in compiled.positiontup:
        bind = compiled.binds[name]
        value = values[name] if bind.required else bind.value
        process = bind.type.dialect_impl(dialect).bind_processor(dialect)
        out.append(value if process is None else process(value))
    return compiled.string, tuple(out)


@pytest.mark.parametrize("dialect", DIALECTS, ids=lambda d: d.name)
def test_parameters_are_sqlalchemys_own_in_order_literals_included(dialect: Dialect) -> None:
    values = _values()
    for statement, keys in ((SAVE_SHEET, None), (LOG_EVENT, list(EVENT_COLUMNS))):
        made = Compiled.of(statement, dialect, keys)
        sql, expected = _reference(statement, dialect, values, keys)
        assert made.sql == sql
        assert made.params(values) == expected
    assert Compiled.of(SAVE_SHEET, dialect).literals  # `version + 1`: not the caller's to give


def test_the_shared_time_is_processed_once_and_never_mixed_with_another() -> None:
    calls: list[datetime] = []

    def process(value: datetime) -> str:
        calls.append(value)
        return value.isoformat()

    kept = compiled_module._last_kept(process)
    now = datetime(2026, 12, 6, tzinfo=UTC)
    later = now + timedelta(seconds=1)
    assert kept(now) == kept(now) == now.isoformat()
    assert kept(later) == later.isoformat()
    assert kept(now) == now.isoformat()  # an equal time is not the one kept: made anew
    assert calls == [now, later, now]
