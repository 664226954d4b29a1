"""The data layer: one transaction per command, an event log, undo, Alembic migrations."""

from bot.db.characters import Actor
from bot.db.database import Database
from bot.db.engine import DEFAULT_URL, database_url
from bot.db.migrate import upgrade
from bot.db.records import Combat, Event, name_key
from bot.db.session import StaleWriteError
from bot.db.uow import UnitOfWork

__all__ = [
    "DEFAULT_URL",
    "Actor",
    "Combat",
    "Database",
    "Event",
    "StaleWriteError",
    "UnitOfWork",
    "database_url",
    "name_key",
    "upgrade",
]
