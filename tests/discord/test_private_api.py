"""bot/private_api.py's hold on discord.py's private parts: each fails here, clearly, when a
release of discord.py moves it; and what it is for holds (a command's objects are freed when
it is done, not by the cyclic collector)."""

from __future__ import annotations

import gc

import discord
from discord import utils

from bot.offline.layout import IS_COMPONENTS_V2
from bot.private_api import RESPONSE_SLOT, PrebuiltLayout, forget_response
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


def _count(kind: type) -> int:
    return sum(1 for o in gc.get_objects() if isinstance(o, kind))


async def test_a_refusal_and_a_sent_layout_are_freed_without_the_collector(
    harness: Harness,
) -> None:
    """A refusal decided by SQLite's writer (on the event loop, as here, or its thread) leaves
    no frames in a cycle (the job lets go of its future: bot/db/hotpath.py's `_hand_back`; the
    future is no local of `act`), and a message's layout holds no item in a
    cycle nor is kept by discord.py (bot/private_api.py's `PrebuiltLayout`): neither waits for
    the collector. Each fails without its guard (checked by hand)."""
    for name in ("Roryn", "Ash", "Bel", "Cor"):
        await harness.add_character(name)
    await harness.run(harness.owner, "damage", character="Roryn", amount=10)  # warm
    await harness.run(harness.owner, "damage", character="Nobody", amount=1)
    gc.collect()
    gc.disable()
    try:
        before = {kind: _count(kind) for kind in (discord.Interaction, discord.ui.LayoutView)}
        for name in ("Ash", "Bel", "Cor"):
            refused = await harness.run(harness.owner, "damage", character="Nobody", amount=1)
            assert refused.ephemeral
            shown = await harness.run(harness.owner, "damage", character=name, amount=10)
            assert shown.card.buttons  # a fall: its recovery roll and odds, in the layout
        await harness.driver.idle()
        del refused, shown
        after = {kind: _count(kind) for kind in before}
        assert after == before, "a command's objects outlived it: a cycle"
    finally:
        gc.enable()


def test_forgetting_a_response_never_asked_for_is_harmless() -> None:
    class Bare:
        __slots__ = (RESPONSE_SLOT,)

    forget_response(Bare())  # type: ignore[arg-type]


def test_discord_py_sends_a_prebuilt_layout_as_it_is_with_the_flag() -> None:
    """discord.py asks the view it sends for its body (`to_components`) and its flag
    (`has_components_v2`), and keeps none that is finished: what PrebuiltLayout overrides."""
    components = [{"type": 17, "components": [{"type": 10, "content": "Roryn falls."}]}]
    view = PrebuiltLayout(components)
    payload = discord.http.handle_message_parameters(view=view).payload
    assert payload is not None
    assert payload.get("components") == components, (
        "discord.py no longer sends a view's to_components(): update bot/private_api.py"
    )
    assert payload.get("flags", 0) & IS_COMPONENTS_V2, (
        "discord.py no longer sets the layout flag from has_components_v2(): update "
        "bot/private_api.py"
    )
    assert view.is_finished() and not view.is_dispatchable() and view.timeout is None


def test_a_prebuilt_layout_has_every_attribute_a_view_of_discord_py_has() -> None:
    """It skips View.__init__ and takes a fresh view's state instead: a release that sets
    something more there gives it to ours too, and one that stops making views outside an
    event loop fails here."""
    made = discord.ui.LayoutView(timeout=None)
    ours = PrebuiltLayout([])
    assert set(vars(made)) <= set(vars(ours)), "update bot/private_api.py's PrebuiltLayout"
    assert ours.children == [] and ours.children is not PrebuiltLayout([]).children


def test_send_answer_finds_the_parts_of_discord_py_it_takes_send_message_s_steps_from() -> None:
    import inspect

    from discord.webhook import async_ as webhook

    for name in ("async_context", "interaction_message_response_params"):
        assert hasattr(webhook, name), (
            f"discord.webhook.async_.{name} is gone: bot/private_api.py's send_answer must "
            "follow discord.InteractionResponse.send_message's new steps"
        )
    given = {"type", "content", "files", "previous_allowed_mentions", "allowed_mentions"}
    given |= {"flags", "view"}
    taken = set(inspect.signature(webhook.interaction_message_response_params).parameters)
    assert given <= taken, f"interaction_message_response_params no longer takes {given - taken}"
    adapter = webhook.AsyncWebhookAdapter.create_interaction_response
    taken = set(inspect.signature(adapter).parameters)
    assert {"session", "proxy", "proxy_auth", "params"} <= taken, (
        "create_interaction_response's parameters moved: update bot/private_api.py's send_answer"
    )
    for name in ("_state", "_session"):  # its connection state and HTTP session
        assert name in discord.Interaction.__slots__, (
            f"discord.Interaction has no {name} any more: update bot/private_api.py's send_answer"
        )
    assert "_response_type" in discord.InteractionResponse.__slots__, (
        "InteractionResponse no longer marks its answer in _response_type: is_done() would "
        "not see send_answer's answer (bot/private_api.py)"
    )


async def test_send_answer_sends_what_send_message_sends(harness: Harness, monkeypatch) -> None:
    """The same requests, byte for byte, for a public answer with a picture and a private
    refusal, as discord.py's own send_message sends them."""
    import bot.replies as replies

    h = harness
    await h.add_character("Roryn", vit=-2)

    async def scripted() -> list[list[tuple[str, str, object, object]]]:
        out = []
        for command, options in (
            ("odds", {"character": "Roryn"}),  # public, with the chart as a file
            ("heal", {"character": "Nobody", "amount": 1}),  # refused: private
        ):
            result = await h.run(h.owner, command, **options)
            out.append([(r.method, r.path, r.payload, r.files) for r in result.requests])
        return out

    ours = await scripted()

    async def through_send_message(interaction, *, view, allowed_mentions, files, ephemeral):
        assert not interaction.response.is_done()
        await interaction.response.send_message(
            view=view, allowed_mentions=allowed_mentions, files=files, ephemeral=ephemeral
        )

    monkeypatch.setattr(replies, "send_answer", through_send_message)
    theirs = await scripted()
    assert ours == theirs
    assert [len(requests) for requests in ours] == [1, 1]
    assert ours[0][0][3] and not ours[1][0][3]  # the chart went as a file; the refusal has none
    assert ours[1][0][2]["data"]["flags"] & 64  # private (EPHEMERAL)
