"""A bot on a fresh SQLite file, driven offline (bot.offline), for the operations tests."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.app import create_bot
from bot.offline import OfflineDriver
from rules.dice import ScriptedRandom


@pytest.fixture
async def driver(tmp_path: Path) -> AsyncIterator[OfflineDriver]:
    """Set up (database connected and migrated, cogs loaded), never logged in: not ready."""
    offline = OfflineDriver(
        create_bot(f"sqlite+aiosqlite:///{tmp_path / 'lastgasp.db'}", ScriptedRandom())
    )
    await offline.start()
    try:
        yield offline
    finally:
        await offline.close()
