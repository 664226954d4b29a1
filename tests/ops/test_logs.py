"""One log line per command: who, where, what, how long, and how it ended."""

from __future__ import annotations

import copy
import json
import logging
import re

import discord
from discord import app_commands

from bot.logs import Fields, JsonFormatter
from bot.offline import interaction_payload
from bot.prompts import EXPIRED_TEXT
from rules.outcome import RuleError

FIELDS = ["guild", "channel", "user", "command", "latency_ms", "outcome"]


def command_lines(caplog) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == "lastgasp.commands"]


async def run_logged(driver, caplog, member, command, **options):
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="lastgasp"):
        result = await driver.invoke(member, command, **options)
    [record] = command_lines(caplog)
    return result, record


def assert_line(record, member, command: str, outcome: str) -> None:
    fields = record.msg
    assert isinstance(fields, Fields) and list(fields) == FIELDS
    assert record.levelno == logging.INFO
    assert fields["latency_ms"] >= 0
    expected = (
        f"guild={member.guild.id} channel={member.guild.channel_id} user={member.user_id} "
        f"command={command} latency_ms={fields['latency_ms']} outcome={outcome}"
    )
    assert record.getMessage() == expected


async def test_a_success_an_error_and_refusals_each_log_one_line(driver, caplog):
    guild = driver.add_guild(roles={})
    gm = driver.member(guild, "Gemma", manage_guild=True)

    _, ok = await run_logged(driver, caplog, gm, "character create", name="Roryn")
    assert_line(ok, gm, '"character create"', "ok")
    assert re.fullmatch(r"\d+(\.\d)?", str(ok.msg["latency_ms"]))

    # A rule refusing (no such character): the service raised RuleError.
    result, refused = await run_logged(driver, caplog, gm, "damage", character="Nobody", amount=1)
    assert result.ephemeral and "No character named" in result.reply.content
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
    assert "Something went wrong" in result.reply.content
    assert_line(error, gm, "boom", "error")
    _, refused = await run_logged(driver, caplog, gm, "nope")
    assert_line(refused, gm, "nope", "refused")


async def test_refusals_at_the_door_are_logged_too(driver, caplog):
    guild = driver.add_guild(roles={})
    player = driver.member(guild, "Bob")
    # A wrongly typed option, refused by the tree's interaction_check before any command runs.
    data = {
        "id": "1",
        "name": "damage",
        "type": 1,
        "options": [{"name": "amount", "type": 4, "value": "three"}],
        "guild_id": str(guild.id),
    }
    caplog.set_level(logging.INFO, logger="lastgasp")
    await driver.feed(interaction_payload(player, 2, data, driver.application_id))
    # A command Discord knows but this bot does not (raised before a command is found).
    unknown = {**data, "name": "gone", "options": []}
    result = await driver.feed(interaction_payload(player, 2, unknown, driver.application_id))
    assert "out of date" in result.reply.content
    first, second = command_lines(caplog)
    assert_line(first, player, "damage", "refused")
    assert_line(second, player, "gone", "refused")


async def test_autocomplete_is_not_a_command_line(driver, caplog):
    guild = driver.add_guild(roles={})
    caplog.set_level(logging.INFO, logger="lastgasp")
    await driver.autocomplete(driver.member(guild, "Bob"), "damage", "character", character="R")
    assert command_lines(caplog) == []


async def test_every_click_logs_one_line_ok_refused_or_expired(driver, caplog):
    guild = driver.add_guild(roles={})
    gm = driver.member(guild, "Gemma", manage_guild=True)
    player = driver.member(guild, "Bob")
    await driver.invoke(gm, "character create", name="Roryn")
    asked = await driver.invoke(gm, "character delete", character="Roryn")
    confirm, cancel = asked.reply.custom_ids()
    shown = copy.deepcopy(asked.reply)

    async def click(member, custom_id):
        caplog.clear()
        with caplog.at_level(logging.INFO, logger="lastgasp"):
            result = await driver.click(member, shown, custom_id)
        [record] = command_lines(caplog)
        return result, record

    _, refused = await click(player, confirm)  # only the asker may answer
    assert_line(refused, player, "delete:confirm", "refused")
    _, ok = await click(gm, cancel)
    assert_line(ok, gm, "delete:cancel", "ok")
    late, expired = await click(gm, confirm)  # the nonce is not in the line
    assert late.reply.content == EXPIRED_TEXT
    assert_line(expired, gm, "delete:confirm", "expired")


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
