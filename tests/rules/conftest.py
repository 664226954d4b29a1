"""Shared helpers for the rules tests: sheets, settings and scripted dice."""

from __future__ import annotations

import pytest

from rules.dice import ScriptedRandom
from rules.models import GuildSettings, Sheet

DIE = "MMMHHC"
# A recovery roll made by the owner during a combat round.
COMBAT = {"in_combat": True, "by_gm": False}
INSTANT = GuildSettings(death_rule="instant")
# A name a chat message would format and ping: the rules keep it as it is (escaping is the
# renderer's job).
MARKDOWN_NAME = "**Ro_ryn** <@123> @everyone"


def make(**fields: object) -> Sheet:
    """A sheet with the defaults of section 1, and `fields` on top."""
    data: dict[str, object] = {"name": "Hero", "owner_id": 1, **fields}
    return Sheet.model_validate(data)


def dice(letters: str, faces: str = DIE) -> ScriptedRandom:
    """A random source that makes the Narateer dice show `letters`, in order."""
    return ScriptedRandom.faces(letters, faces)


@pytest.fixture
def settings() -> GuildSettings:
    return GuildSettings()
