"""One log line per command and per click: who (guild, channel, user), what (the command, or the
button without the state its custom id carries), how long (latency_ms) and how it ended
(outcome: ok, refused, error, expired); as text or as JSON keys."""

from __future__ import annotations

import json
import logging
import re
import time

import discord
import pytest
from discord import app_commands

from bot.failures import EXPIRED, SOMETHING_WENT_WRONG
from bot.logs import Fields, JsonFormatter
from bot.offline import Message, Raw, interaction_payload, snowflake
from bot.services import play
from rules.errors import RuleError

FIELDS = ["guild", "channel", "user", "command", "latency_ms", "outcome"]


def command_lines(caplog) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == "lastgasp.commands"]


async def run_logged(driver, caplog, member, command, **options):
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="lastgasp"):
        result = await driver.invoke(member, command, **options)
    [record] = command_lines(caplog)
    return result, record


async def feed_logged(driver, caplog, payload):
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="lastgasp"):
        result = await driver.feed(payload)
    [record] = command_lines(caplog)
    return result, record


async def click_logged(driver, caplog, member, message, custom_id):
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="lastgasp"):
        result = await driver.click(member, message, custom_id)
    [record] = command_lines(caplog)
    return result, record


def assert_line(record, member, command: str, outcome: str, *, guild: object = None) -> None:
    fields = record.msg
    assert isinstance(fields, Fields) and list(fields) == FIELDS
    assert record.levelno == logging.INFO
    assert isinstance(fields["latency_ms"], float) and fields["latency_ms"] >= 0
    assert re.fullmatch(r"\d+(\.\d)?", str(fields["latency_ms"]))
    expected = (
        f"guild={member.guild.id if guild is None else guild} channel={member.guild.channel_id} "
        f"user={member.user_id} command={command} latency_ms={fields['latency_ms']} "
        f"outcome={outcome}"
    )
    assert record.getMessage() == expected


def button_message(custom_id: str) -> Message:
    """A message of the bot's carrying one button (Discord sends a click only for a button
    that is on the message): as an older version, or an earlier command, left it."""
    button = {"type": 2, "style": 2, "label": "Button", "custom_id": custom_id}
    return Message(id=snowflake(), kind="reply", components=[{"type": 1, "components": [button]}])


# --- commands ------------------------------------------------------------------------------------


async def test_a_success_an_error_and_refusals_each_log_one_line(driver, caplog):
    guild = driver.add_guild(roles={})
    gm = driver.member(guild, "Gemma", manage_guild=True)

    _, ok = await run_logged(driver, caplog, gm, "character create", name="Roryn")
    assert_line(ok, gm, '"character create"', "ok")

    # A rule refusing (no such character): the service raised RuleError.
    result, refused = await run_logged(driver, caplog, gm, "damage", character="Nobody", amount=1)
    assert result.ephemeral and "Nobody" in result.reply.card.body
    assert_line(refused, gm, "damage", "refused")

    @app_commands.command(name="boom", description="a bug")
    async def boom(interaction: discord.Interaction) -> None:
        raise ZeroDivisionError("bug")

    @app_commands.command(name="nope", description="refuses")
    async def nope(interaction: discord.Interaction) -> None:
        raise RuleError("Not now.")

    driver.bot.tree.add_command(boom)
    driver.bot.tree.add_command(nope)
    result, error = await run_logged(driver, caplog, gm, "boom")
    assert result.reply.card.body == SOMETHING_WENT_WRONG and result.ephemeral
    assert_line(error, gm, "boom", "error")
    result, refused = await run_logged(driver, caplog, gm, "nope")
    assert (result.reply.card.body, result.ephemeral) == ("Not now.", True)
    assert_line(refused, gm, "nope", "refused")


async def test_a_command_that_ends_without_answering_is_answered_and_logged_as_an_error(
    driver, caplog
):
    """The completion of a command (handled where discord.py dispatches it, bot/app.py): a
    command that returned without an answer still gets one, and its line says error."""
    guild = driver.add_guild(roles={})
    gm = driver.member(guild, "Gemma", manage_guild=True)

    @app_commands.command(name="mute", description="forgets to answer")
    async def mute(interaction: discord.Interaction) -> None:
        return None

    driver.bot.tree.add_command(mute)
    with caplog.at_level(logging.ERROR, logger="lastgasp.tree"):
        result, line = await run_logged(driver, caplog, gm, "mute")
    assert (result.reply.card.body, result.ephemeral) == (SOMETHING_WENT_WRONG, True)
    assert_line(line, gm, "mute", "error")
    assert any("/mute ended without answering" in r.getMessage() for r in caplog.records)


@pytest.mark.parametrize(
    ("command", "options", "logged", "said"),
    [
        # A wrongly typed value (a stale or broken client): bot/options.py, before any command.
        ("damage", {"amount": Raw("three")}, "damage", "`amount` must be a whole number."),
        # Outside the declared range Discord's own client enforces.
        ("damage", {"amount": Raw(0)}, "damage", "`amount` must be between 1 and "),
        ("damage", {"amount": Raw(2**60)}, "damage", "`amount` is too large."),
        # A required option left out.
        ("damage", {"character": "Roryn"}, "damage", "`amount` is missing"),
        ("character create", {}, '"character create"', "`name` is missing"),
        # Text too long for the option's declared length.
        ("character create", {"name": Raw("R" * 7000)}, '"character create"', "`name` takes at"),
        # A NUL that no database column can store.
        ("character create", {"name": Raw("Ro\x00ryn")}, '"character create"', "(NUL)"),
    ],
)
async def test_a_refusal_by_option_validation_logs_one_line(
    driver, caplog, command, options, logged, said
):
    guild = driver.add_guild(roles={})
    player = driver.member(guild, "Bob")
    result, line = await run_logged(driver, caplog, player, command, **options)
    assert result.ephemeral and said in result.reply.card.body, result.reply.card.body
    assert len(result.messages) == 1  # one answer, and the command never ran
    assert_line(line, player, logged, "refused")


async def test_malformed_and_unknown_commands_are_refused_and_logged(driver, caplog):
    guild = driver.add_guild(roles={})
    player = driver.member(guild, "Bob")
    data = {
        "id": "1",
        "name": "damage",
        "type": 1,
        "options": [{"name": "amount", "type": 4, "value": 3, "extra": 1}],
        "guild_id": str(guild.id),
    }
    # An option the command does not declare.
    unknown_option = {**data, "options": [{"name": "power", "type": 4, "value": 3}]}
    payload = interaction_payload(player, 2, unknown_option, driver.application_id)
    result, line = await feed_logged(driver, caplog, payload)
    assert "`power` is not an option of this command" in result.reply.card.body
    assert_line(line, player, "damage", "refused")
    # Options that are not objects at all.
    garbled = {**data, "options": ["amount"]}
    payload = interaction_payload(player, 2, garbled, driver.application_id)
    result, line = await feed_logged(driver, caplog, payload)
    assert result.ephemeral and "garbled" in result.reply.card.body
    assert_line(line, player, "damage", "refused")
    # A command Discord knows but this bot does not (refused before a command is found).
    gone = {**data, "name": "gone", "options": []}
    payload = interaction_payload(player, 2, gone, driver.application_id)
    result, line = await feed_logged(driver, caplog, payload)
    assert "out of date" in result.reply.card.body and result.ephemeral
    assert_line(line, player, "gone", "refused")


async def test_a_command_from_direct_messages_is_refused_and_logged_without_a_guild(driver, caplog):
    caplog.set_level(logging.INFO, logger="lastgasp")
    result = await driver.dm(4242, "damage", amount=1)
    assert result.ephemeral and "server channel" in result.reply.card.body
    [line] = command_lines(caplog)
    assert line.msg["guild"] is None and line.msg["user"] == 4242
    assert line.getMessage().startswith("guild=- channel=")
    assert line.msg["command"] == "damage" and line.msg["outcome"] == "refused"


async def test_autocomplete_is_not_a_command_line(driver, caplog):
    guild = driver.add_guild(roles={})
    caplog.set_level(logging.INFO, logger="lastgasp")
    await driver.autocomplete(driver.member(guild, "Bob"), "damage", "character", character="R")
    assert command_lines(caplog) == []


# --- clicks --------------------------------------------------------------------------------------


async def test_every_click_logs_one_line_ok_refused_or_error(driver, caplog, monkeypatch):
    guild = driver.add_guild(roles={})
    gm = driver.member(guild, "Gemma", manage_guild=True)
    player = driver.member(guild, "Bob")
    await driver.invoke(gm, "character create", name="Roryn")
    asked = await driver.invoke(gm, "character delete", character="Roryn")
    confirm, cancel = asked.reply.custom_ids()
    assert confirm.startswith("lg:delete:confirm:") and cancel.startswith("lg:delete:cancel:")

    # Only the asker may answer: refused; the line names the button, not its state.
    result, line = await click_logged(driver, caplog, player, asked.reply, confirm)
    assert result.ephemeral and "Only the member who asked" in result.reply.card.body
    assert_line(line, player, "delete:confirm", "refused")
    _, line = await click_logged(driver, caplog, gm, asked.reply, cancel)
    assert_line(line, gm, "delete:cancel", "ok")

    fall = await driver.invoke(gm, "damage", character="Roryn", amount=10)  # Unconscious
    [odds] = [i for i in fall.reply.custom_ids() if i.startswith("lg:odds:")]
    result, line = await click_logged(driver, caplog, player, fall.reply, odds)
    assert result.ephemeral and "Something went wrong" not in result.text()
    assert_line(line, player, "odds", "ok")

    # A bug behind a button: the apology, and the line says error.
    async def broken(*args, **kwargs):
        raise ZeroDivisionError("bug")

    monkeypatch.setattr(play, "recovery_odds", broken)
    result, line = await click_logged(driver, caplog, player, button_message(odds), odds)
    assert (result.reply.card.body, result.ephemeral) == (SOMETHING_WENT_WRONG, True)
    assert_line(line, player, "odds", "error")


@pytest.mark.parametrize(
    ("custom_id", "logged"),
    [
        ("delete:yes:abc123", "expired"),  # an older version's (nonce ids)
        ("something else entirely", "expired"),
        ("lg:recover:x", "recover"),  # ours, but no longer a shape the bot reads
        ("lg:board:round:", "board:round"),
    ],
)
async def test_a_click_on_an_expired_button_logs_one_line(driver, caplog, custom_id, logged):
    guild = driver.add_guild(roles={})
    player = driver.member(guild, "Bob")
    result, line = await click_logged(driver, caplog, player, button_message(custom_id), custom_id)
    assert (result.reply.card.body, result.ephemeral) == (EXPIRED, True)
    assert len(result.requests) == 1  # one answer
    assert_line(line, player, logged, "expired")


async def test_a_delete_question_answered_too_late_logs_expired(driver, caplog):
    guild = driver.add_guild(roles={})
    gm = driver.member(guild, "Gemma", manage_guild=True)
    await driver.invoke(gm, "character create", name="Roryn")
    asked = await driver.invoke(gm, "character delete", character="Roryn")
    confirm = asked.reply.custom_ids()[0]
    # The same button, its `until` (Unix time, the last part) an hour gone.
    late = confirm.rsplit(":", 1)[0] + f":{int(time.time()) - 3600}"
    result, line = await click_logged(driver, caplog, gm, button_message(late), late)
    assert (result.reply.card.body, result.ephemeral) == (EXPIRED, True)
    assert_line(line, gm, "delete:confirm", "expired")
    async with driver.bot.db.transaction(guild.id, read_only=True) as uow:
        assert [row.sheet.name for row in await uow.characters()] == ["Roryn"]  # not deleted


# --- the formats ---------------------------------------------------------------------------------


def test_json_lines_carry_the_fields_as_keys():
    fields = Fields(guild=1, channel=2, user=3, command="character create", latency_ms=4.5)
    fields["outcome"] = "ok"
    record = logging.LogRecord("lastgasp.commands", logging.INFO, __file__, 1, fields, None, None)
    line = json.loads(JsonFormatter().format(record))
    assert line.pop("time").endswith("+00:00")
    assert line == {
        "level": "INFO",
        "logger": "lastgasp.commands",
        "guild": 1,
        "channel": 2,
        "user": 3,
        "command": "character create",
        "latency_ms": 4.5,
        "outcome": "ok",
    }
    plain = logging.LogRecord("discord", logging.WARNING, __file__, 1, "lost %s", ("it",), None)
    assert json.loads(JsonFormatter().format(plain))["message"] == "lost it"
    assert str(fields) == (
        'guild=1 channel=2 user=3 command="character create" latency_ms=4.5 outcome=ok'
    )


async def test_a_real_command_line_as_json(driver, caplog):
    """The line of a command the bot ran, through the JSON formatter: every field a key."""
    guild = driver.add_guild(roles={})
    gm = driver.member(guild, "Gemma", manage_guild=True)
    _, record = await run_logged(driver, caplog, gm, "character create", name="Roryn")
    line = json.loads(JsonFormatter().format(record))
    assert [key for key in line if key not in ("time", "level", "logger")] == FIELDS
    assert (line["guild"], line["user"], line["command"]) == (
        guild.id,
        gm.user_id,
        "character create",
    )
    assert line["outcome"] == "ok" and isinstance(line["latency_ms"], float)
