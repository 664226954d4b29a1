"""bot/private_api.py's hold on discord.py's private parts: each fails here, clearly, when a
release of discord.py moves it; and what it is for holds (a command's objects are freed when
it is done, not by the cyclic collector)."""

from __future__ import annotations

import gc

import discord
from discord import utils

from bot.private_api import RESPONSE_SLOT, forget_response
from tests.discord.conftest import Harness


def test_the_interaction_caches_its_response_in_the_slot_forget_response_empties() -> None:
    prop = discord.Interaction.__dict__.get("response")
    assert isinstance(prop, utils.CachedSlotProperty), (
        "discord.Interaction.response is no longer a cached slot property: "
        "bot/private_api.py's forget_response needs another way"
    )
    assert prop.name == RESPONSE_SLOT, (
        f"discord.py caches Interaction.response in {prop.name!r}, not {RESPONSE_SLOT!r}: "
        "update bot/private_api.py"
    )
    assert RESPONSE_SLOT in discord.Interaction.__slots__


def _interactions() -> int:
    return sum(1 for o in gc.get_objects() if isinstance(o, discord.Interaction))


async def test_a_command_done_is_freed_without_the_collector(harness: Harness) -> None:
    """With the collector off, the interaction of a finished command is gone all the same: its
    response no longer holds it in a cycle (it stays when bot/replies.py's `done` is not
    called: checked by hand)."""
    await harness.add_character("Roryn")
    await harness.run(harness.owner, "damage", character="Roryn", amount=1)  # warm
    gc.collect()
    gc.disable()
    try:
        before = _interactions()
        for _ in range(5):
            result = await harness.run(harness.owner, "damage", character="Roryn", amount=1)
            assert not result.ephemeral
        await harness.driver.idle()
        del result
        assert _interactions() == before, "the interactions outlived their commands: a cycle"
    finally:
        gc.enable()


def test_forgetting_a_response_never_asked_for_is_harmless() -> None:
    class Bare:
        __slots__ = (RESPONSE_SLOT,)

    forget_response(Bare())  # type: ignore[arg-type]
