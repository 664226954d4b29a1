"""The one place the bot reaches into discord.py's private parts (each use says why; a test,
tests/discord/test_private_api.py, fails clearly when a release moves one).

discord.py keeps each Interaction and its InteractionResponse in a reference cycle (the
response's `_parent` is the interaction; the interaction caches its response in the slot
`_cs_response`). Every object a command touches then waits for the cyclic collector instead of
being freed when the command is done: about forty a command, which under load made the
collector's older generation pause every command in flight for 50–90 ms (the benchmark's p99,
bench/README.md). Emptying the slot once nothing will answer again breaks the cycle.
"""

from __future__ import annotations

import contextlib
from typing import Any

import discord

RESPONSE_SLOT = "_cs_response"  # discord.py 2.7: Interaction.response's cached_slot_property


def forget_response(interaction: discord.Interaction[Any]) -> None:
    """Drop the interaction's cached InteractionResponse. Only once the interaction is answered
    for good: a later `interaction.response` would be a fresh one, that thinks nothing was
    sent."""
    with contextlib.suppress(AttributeError):  # never asked for, or dropped already
        delattr(interaction, RESPONSE_SLOT)
