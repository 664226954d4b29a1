"""The tree's one error handler, guild-only at the door, autocomplete within Discord's limits."""

from __future__ import annotations

import contextlib
import logging

import discord
import pytest
from discord import app_commands
from discord.webhook import async_ as webhook_async

from bot.failures import NOT_IN_A_SERVER, SOMETHING_WENT_WRONG
from bot.offline import EPHEMERAL
from bot.offline.layout import IS_COMPONENTS_V2, seen
from bot.services import play
from tests.discord.conftest import assert_refused


async def test_an_unexpected_error_is_logged_with_context_and_answered(
    harness, monkeypatch, caplog
):
    await harness.add_character("Roryn")

    async def broken(*args, **kwargs):
        raise ZeroDivisionError("bug")

    monkeypatch.setattr(play, "damage", broken)
    with caplog.at_level(logging.ERROR, logger="lastgasp.errors"):
        result = await harness.run(harness.owner, "damage", character="Roryn", amount=3)
    assert_refused(result, SOMETHING_WENT_WRONG)
    [record] = caplog.records
    message = record.getMessage()
    assert "command /damage failed" in message
    assert f"guild {harness.guild.id}" in message
    assert f"user {harness.owner.user_id}" in message
    assert "'amount': 3" in message and "'character': 'Roryn'" in message
    assert isinstance(record.exc_info[1], ZeroDivisionError)
    assert (await harness.sheet("Roryn")).vit == 10


async def test_after_a_deferral_the_error_is_a_followup(harness, caplog):
    @app_commands.command(name="boom", description="fails after deferring")
    async def boom(interaction: discord.Interaction) -> None:
        await interaction.response.defer(thinking=True)
        raise RuntimeError("late failure")

    harness.bot.tree.add_command(boom)
    with caplog.at_level(logging.ERROR, logger="lastgasp.errors"):
        result = await harness.run(harness.owner, "boom")
    deferred, followup = result.requests
    assert deferred.payload == {"type": 5}
    assert followup.method == "POST" and followup.path == "/webhooks/{webhook_id}/{webhook_token}"
    assert seen(followup.payload["components"]).body == SOMETHING_WENT_WRONG
    assert followup.payload["flags"] == EPHEMERAL | IS_COMPONENTS_V2
    assert "command /boom failed" in caplog.text


async def test_a_refusal_after_a_deferral_is_an_ephemeral_followup(harness):
    from rules.errors import RuleError

    @app_commands.command(name="late", description="refuses after deferring")
    async def late(interaction: discord.Interaction) -> None:
        await interaction.response.defer()
        raise RuleError("Not now: try again after the round.")

    harness.bot.tree.add_command(late)
    result = await harness.run(harness.owner, "late")
    body = result.requests[1].payload
    assert seen(body["components"]).body == "Not now: try again after the round."
    assert body["flags"] == EPHEMERAL | IS_COMPONENTS_V2


async def test_direct_messages_are_refused(harness):
    result = await harness.dm(harness.owner.user_id, "damage", amount=1)
    assert_refused(result, NOT_IN_A_SERVER)


async def test_a_command_discord_knows_but_the_bot_does_not(harness):
    await harness.add_character("Roryn")
    harness.bot.tree.remove_command("odds")
    payload_member = harness.owner
    # the driver needs the command to build options: build an empty /odds by hand
    from bot.offline import interaction_payload

    data = {
        "id": "1",
        "name": "odds",
        "type": 1,
        "options": [],
        "guild_id": str(payload_member.guild.id),
    }
    result = await harness.driver.feed(
        interaction_payload(payload_member, 2, data, harness.driver.application_id)
    )
    assert_refused(result, "out of date")


# Autocomplete: the caller's guild only, own characters first, within Discord's limits


async def test_autocomplete_lists_own_characters_first(harness):
    await harness.add_character("Bryn", owner=harness.player)
    await harness.add_character("Brom", owner=harness.owner, vit=-1)
    await harness.add_character("Other", owner=harness.owner)
    await harness.add_character("Brat", owner=harness.outsider, guild=harness.other_guild)
    choices = await harness.complete(harness.owner, "damage", "character", character="br")
    assert choices == [
        {"name": "🟠 Brom · Critical, VIT -1/10", "value": "Brom"},
        {"name": "🟢 Bryn · Up, VIT 10/10", "value": "Bryn"},
    ]


async def test_autocomplete_never_shows_another_guild(harness):
    await harness.add_character("Roryn")
    assert await harness.complete(harness.outsider, "heal", "character", character="") == []
    choices = await harness.complete(harness.owner, "odds", "character", character="")
    assert [c["value"] for c in choices] == ["Roryn"]


async def test_autocomplete_stays_within_25_choices_of_100_characters(harness):
    for i in range(30):
        await harness.add_character(f"{'W' * 30}{i:02d}", owner=harness.player)
    choices = await harness.complete(harness.owner, "breakdown", "character", character="w")
    assert len(choices) == 25
    assert all(len(c["name"]) <= 100 and len(c["value"]) <= 100 for c in choices)


async def test_autocomplete_in_every_play_command(harness):
    await harness.add_character("Roryn")
    for command in (
        "recover",
        "aid",
        "turn",
        "early",
        "react",
        "push",
        "spend",
        "emotion",
        "relief",
    ):
        choices = await harness.complete(harness.owner, command, "character", character="ro")
        assert [c["value"] for c in choices] == ["Roryn"], command


# Payloads Discord's client would never send: refused, not crashed on, nothing changed


def raw_command(harness, member, name, options, kind=2):
    from bot.offline import interaction_payload

    data = {"id": "1", "name": name, "type": 1, "options": options}
    data["guild_id"] = str(member.guild.id)
    payload = interaction_payload(member, kind, data, harness.driver.application_id)
    return harness.driver.feed(payload)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ([{"name": "amount", "type": 4, "value": "3"}], "`amount` must be a whole number."),
        ([{"name": "amount", "type": 4, "value": True}], "`amount` must be a whole number."),
        (
            [{"name": "amount", "type": 4, "value": 2**64}],
            "`amount` is too large. `amount` must be between 1 and 10000.",
        ),
        (
            [
                {"name": "amount", "type": 4, "value": 1},
                {"name": "character", "type": 3, "value": False},
            ],
            "`character` must be text.",
        ),
        (
            [
                {"name": "amount", "type": 4, "value": 1},
                {"name": "character", "type": 3, "value": "R\x00"},
            ],
            "`character` contains a character that cannot be stored",
        ),
    ],
)
async def test_wrongly_typed_options_are_refused(harness, caplog, options, message):
    before = await harness.add_character("Roryn")
    with caplog.at_level(logging.ERROR):
        result = harness.validated(await raw_command(harness, harness.owner, "damage", options))
    assert_refused(result, message)
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert await harness.sheet("Roryn") == before


async def test_a_missing_required_option_is_refused(harness, caplog):
    with caplog.at_level(logging.ERROR):
        result = await raw_command(harness, harness.owner, "damage", [])
    assert_refused(result, "`amount` is missing: give it a value and retry.")
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


async def test_autocomplete_without_a_focused_option_answers_no_choices(harness, caplog):
    options = [{"name": "character", "type": 3, "value": "Ro"}]
    with caplog.at_level(logging.ERROR):
        result = await raw_command(harness, harness.owner, "heal", options, kind=4)
    assert result.choices == []
    assert result.messages == []
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


class DiscordDown:
    """The response a discord.HTTPException carries: a 500."""

    status = 500
    reason = "Internal Server Error"


@contextlib.contextmanager
def webhook_seam(request):
    """`request(route, **kwargs)` answers discord.py's webhook adapter for the block, in front
    of the driver's seam (which it may call: `driver.handle_webhook`)."""
    patched = webhook_async.AsyncWebhookAdapter.request  # the driver's, restored after

    async def seam(adapter, route, session, **kwargs):
        return await request(route, **kwargs)

    webhook_async.AsyncWebhookAdapter.request = seam
    try:
        yield
    finally:
        webhook_async.AsyncWebhookAdapter.request = patched


async def test_a_reply_discord_refuses_is_not_denied_as_a_change(harness, caplog):
    """The change is committed before the reply: the user must not be told nothing changed."""
    from bot.failures import REPLY_FAILED

    await harness.add_character("Roryn")
    calls = []

    async def refuse_first_callback(route, **kwargs):
        if route.path.endswith("/callback"):
            calls.append(route)
            if len(calls) == 1:
                raise discord.HTTPException(DiscordDown(), "Discord is down")
        return await harness.driver.handle_webhook(route, **kwargs)

    with (
        caplog.at_level(logging.WARNING, logger="lastgasp.errors"),
        webhook_seam(refuse_first_callback),
    ):
        result = await harness.run(harness.owner, "damage", character="Roryn", amount=3)
    assert_refused(result, REPLY_FAILED)
    assert (await harness.sheet("Roryn")).vit == 7  # committed once
    assert len(await harness.history("Roryn")) == 1
    [record] = caplog.records
    assert (
        record.levelno == logging.WARNING
        and "the reply to command /damage failed" in record.getMessage()
    )


def _integer_options(tree: app_commands.CommandTree) -> list[tuple[str, str, int, int]]:
    found = []
    for command in tree.walk_commands():
        if isinstance(command, app_commands.Command):
            for param in command.parameters:
                if param.type is discord.AppCommandOptionType.integer:
                    low, high = int(param.min_value), int(param.max_value)
                    found.append((command.qualified_name, param.display_name, low, high))
    return found


async def test_every_number_out_of_range_names_the_range(harness):
    """Issue 21, item 13: every whole-number option of every command, too large or too small,
    is refused with its range (a number past Discord's ±2^53 said only "is too large")."""
    from bot.offline import Raw

    options = _integer_options(harness.driver.bot.tree)
    assert len(options) > 20 and all(low > -(2**53) and high < 2**53 for *_, low, high in options)
    before = await harness.snapshot()
    for command, option, low, high in options:
        for value in (low - 1, high + 1, Raw(2**60), Raw(-(2**60))):
            result = harness.validated(
                await harness.driver.feed(
                    harness.driver.payload(harness.gm, command, **{option: value})
                )
            )
            said = assert_refused(result, f"`{option}` must be between {low} and {high}.")
            if isinstance(value, Raw):
                side = "large" if value.value > 0 else "small"
                assert said.startswith(f"`{option}` is too {side}. "), said
    assert await harness.snapshot() == before


async def test_aid_with_neither_success_nor_roll_says_to_give_one_F_1(harness):
    """Issue 21, item 13: it said "Either … or …, not both" when neither was given."""
    await harness.add_character("Roryn", vit=-1)
    text = await harness.refusal(harness.gm, "aid", "Give one of them: success", character="Roryn")
    assert "not both" not in text and "roll" in text
    await harness.refusal(
        harness.gm, "aid", "not both", character="Roryn", success=True, roll="1d20", target=10
    )


async def test_a_text_too_short_says_1_character_not_1_characters(harness):
    """Issue 21, item 13: plural and singular."""
    from bot.offline import Raw

    await harness.add_character("Roryn")
    payload = harness.driver.payload(harness.owner, "spend", amount=1, reason=Raw(""))
    result = harness.validated(await harness.driver.feed(payload))
    assert_refused(result, "`reason` takes at least 1 character.")
