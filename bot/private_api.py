"""The one place the bot reaches into discord.py's private parts (each use says why; a test,
tests/discord/test_private_api.py, fails clearly when a release moves one).

discord.py keeps each Interaction and its InteractionResponse in a reference cycle (the
response's `_parent` is the interaction; the interaction caches its response in the slot
`_cs_response`). Every object a command touches then waits for the cyclic collector instead of
being freed when the command is done: about forty a command, which under load made the
collector's older generation pause every command in flight for 50–90 ms (the benchmark's p99,
bench/README.md). Emptying the slot once nothing will answer again breaks the cycle.

Every message is sent as a layout already written as Discord's JSON (bot/render/layout.py), in
a view that hands discord.py that JSON (`PrebuiltLayout`): discord.py's own ui objects cost up
to four times an embed to build, and each left a cycle and a view to keep.

A command's first answer is sent as `InteractionResponse.send_message` sends it, without the
`InteractionCallbackResponse` it builds of Discord's reply (`send_answer`): a `Message` parsed
from the message just sent, with its author, components and flags — about a tenth of a
command's time on the event loop (bench/README.md) for an object the bot never reads.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from typing import Any

import discord
from discord.enums import InteractionResponseType
from discord.webhook.async_ import async_context, interaction_message_response_params

RESPONSE_SLOT = "_cs_response"  # discord.py 2.7: Interaction.response's cached_slot_property


def forget_response(interaction: discord.Interaction[Any]) -> None:
    """Drop the interaction's cached InteractionResponse. Only once the interaction is answered
    for good: a later `interaction.response` would be a fresh one, that thinks nothing was
    sent."""
    with contextlib.suppress(AttributeError):  # never asked for, or dropped already
        delattr(interaction, RESPONSE_SLOT)


async def send_answer(
    interaction: discord.Interaction[Any],
    *,
    view: PrebuiltLayout,
    allowed_mentions: discord.AllowedMentions,
    files: Sequence[discord.File],
    ephemeral: bool,
) -> None:
    """`interaction.response.send_message(view=…, allowed_mentions=…, files=…, ephemeral=…)`
    (discord.py 2.7's steps, in its order), without building its return value. The view is
    finished: discord.py would not keep it either."""
    response = interaction.response
    if response.is_done():
        raise discord.InteractionResponded(interaction)
    flags = discord.MessageFlags(ephemeral=True) if ephemeral else discord.utils.MISSING
    state = interaction._state
    params = interaction_message_response_params(
        type=InteractionResponseType.channel_message.value,
        content=None,  # as send_message's default writes it: `"content": null`
        files=files,
        previous_allowed_mentions=state.allowed_mentions,
        allowed_mentions=allowed_mentions,
        flags=flags,
        view=view,
    )
    http = state.http
    await async_context.get().create_interaction_response(
        interaction.id,
        interaction.token,
        session=interaction._session,
        proxy=http.proxy,
        proxy_auth=http.proxy_auth,
        params=params,
    )
    response._response_type = InteractionResponseType.channel_message


class PrebuiltLayout(discord.ui.LayoutView):
    """A layout message whose components are Discord's JSON already (bot/render/layout.py).
    discord.py asks a view it sends for its body with `to_components` and for the flag
    IS_COMPONENTS_V2 with `has_components_v2`; neither is documented, hence here. Finished from
    the start, it is not kept in discord.py's view store nor given a private message's 15-minute
    timeout: every button of ours is a DynamicItem, dispatched from the message itself.

    Made for every message, it skips `View.__init__` (a random id, a future, a walk of its
    children: as long as the rest of the message's build) and takes the state of a view made
    once by it: no children, no timeout, nothing to wait for, the same for every message."""

    def __init__(self, components: list[dict[str, Any]]) -> None:
        self.__dict__.update(_EMPTY_VIEW)
        self._children = []  # its own: never added to, but never shared either
        self._prebuilt = components

    def to_components(self) -> list[dict[str, Any]]:
        return self._prebuilt

    def has_components_v2(self) -> bool:
        return True

    def is_finished(self) -> bool:
        return True  # it waits for no click


def _empty_view_state() -> dict[str, Any]:
    view = discord.ui.LayoutView(timeout=None)  # outside the event loop: no future
    assert not view.children and view.timeout is None
    return dict(vars(view))


_EMPTY_VIEW = _empty_view_state()
