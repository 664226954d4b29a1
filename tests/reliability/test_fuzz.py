"""Fuzzing: hypothesis writes INTERACTION_CREATE payloads for every command of the tree.

Option values of the wrong type, out of range, huge and empty strings, markdown and mention
syntax, unknown characters, missing required options, unknown options, subcommands and
commands. For each payload: the interaction is answered; nothing escapes as an error (no
"something went wrong", nothing logged at ERROR, and the bot's one log line of the command says
ok or refused, never error); every body the bot sends is one Discord accepts and pings nobody;
the other guild's rows are untouched (P-2); and a refused command leaves the database
unchanged: every row of every table, as stored.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from pathlib import Path
from typing import Any

import pytest
from discord import AppCommandOptionType, app_commands
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from bot.errors import SOMETHING_WENT_WRONG
from bot.offline import Attachment, Member, Raw, Result, interaction_payload
from tests.discord.conftest import assert_no_pings
from tests.reliability.conftest import (
    PG_SERVER,
    SKIP_PG,
    check_bodies,
    database_url,
    of_guild,
    snapshot,
    started_harness,
)

# Names that exist in the fuzzed guilds, in several spellings (section 1: case-insensitive).
NAMES = ("Roryn", "roryn", "RORYN", " Roryn ", "Bex", "Zoë", "Far Away")
NASTY = (
    "",
    " ",
    "@everyone",
    "@here",
    "<@1300000000000000001>",
    "<@&4242>",
    "<#1>",
    "**Roryn**",
    "_Bex_",
    "`Roryn`",
    "||Bex||",
    "# Roryn",
    "> quote",
    "[x](https://example.com)",
    "Roryn\nBex",
    "\u200b",
    "\u202eRoryn",
    "💀",
    "ﬀ",
    "\x00",
    "'; DROP TABLE characters; --",
    "%s %d {name}",
    "\\",
    "C H M",
    "C C C C C C C C C C C C C C C C C C C C C C C C C",
    "1d20+3",
    "1000d1000",
    "1d0",
    "d",
    "-1",
    "1e309",
)
WRONG = st.one_of(
    st.text(max_size=12),
    st.floats(allow_nan=False, allow_infinity=False),
    st.booleans(),
    st.lists(st.integers(), max_size=2),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)
BIG_INTS = (0, -1, 2**31, -(2**31) - 1, 2**53, -(2**53), 2**63 - 1, -(2**63), 2**64, 10**30)


def texts(param: app_commands.Parameter) -> st.SearchStrategy[str]:
    names = st.sampled_from(NAMES)
    if param.display_name == "character":
        return st.one_of(names, names, st.sampled_from(NASTY), st.text(max_size=40))
    return st.one_of(
        st.sampled_from(NASTY),
        names,
        st.text(max_size=40),
        st.integers(1, 6000).map(lambda n: "x" * n),
        st.sampled_from([c.value for c in param.choices]) if param.choices else names,
    )


def integers(param: app_commands.Parameter) -> st.SearchStrategy[int]:
    low = int(param.min_value) if param.min_value is not None else -(2**53)
    high = int(param.max_value) if param.max_value is not None else 2**53
    return st.one_of(
        st.integers(low, high),
        st.sampled_from((*BIG_INTS, low - 1, high + 1, low, high)),
    )


def clean_value(draw: Any, param: app_commands.Parameter, members: list[Member]) -> Any:
    """A value the Discord client would let through: declared choices and ranges."""
    kind = param.type
    if param.choices:
        return draw(st.sampled_from([c.value for c in param.choices]))
    if kind is AppCommandOptionType.integer:
        low = int(param.min_value) if param.min_value is not None else 0
        high = int(param.max_value) if param.max_value is not None else 30
        return draw(st.integers(low, min(high, low + 12)))
    if kind is AppCommandOptionType.string and param.display_name in ("character", "name"):
        return draw(st.sampled_from(NAMES))
    if kind is AppCommandOptionType.string:
        return draw(st.sampled_from(["C H", "M", "1d20+3", "dodge", "Channel Casting", "MMHC"]))
    return valid_value(draw, param, members)


def valid_value(draw: Any, param: app_commands.Parameter, members: list[Member]) -> Any:
    """A value of the declared type: anything, of any size."""
    kind = param.type
    if param.choices and draw(st.booleans()):
        return draw(st.sampled_from([c.value for c in param.choices]))
    if kind is AppCommandOptionType.string:
        return draw(texts(param))
    if kind is AppCommandOptionType.integer:
        return draw(integers(param))
    if kind is AppCommandOptionType.boolean:
        return draw(st.booleans())
    if kind is AppCommandOptionType.user:
        return draw(st.sampled_from(members))
    if kind is AppCommandOptionType.role:
        return draw(st.sampled_from(["GM", "4242", "1"]))
    if kind is AppCommandOptionType.attachment:
        data = draw(
            st.one_of(
                st.binary(max_size=200),
                st.sampled_from([b"{}", b"[]", b'{"name": "Imp"}', b"x" * 70_000]),
                st.builds(lambda name: f'{{"name": "{name}", "vit": 5}}'.encode(), st.text()),
            )
        )
        return Attachment(draw(st.sampled_from(["sheet.json", "a.txt", ""])) or "f", data)
    return draw(st.text(max_size=20))


@st.composite
def payloads(
    draw: Any,
    harness: Any,
    commands: list[app_commands.Command],
    members: list[Member],
) -> dict:
    """One INTERACTION_CREATE of type 2 (or 4, autocomplete) with fuzzed options."""
    command = draw(st.sampled_from(commands))
    member = draw(st.sampled_from(members))
    clean = draw(st.booleans())  # half the payloads are ones a Discord client could send
    options: dict[str, Any] = {}
    focused = None
    autocompleted = [p for p in command.parameters if p.autocomplete]
    if autocompleted and draw(st.integers(0, 9)) == 0:
        focused = draw(st.sampled_from(autocompleted)).display_name
    for param in command.parameters:
        required = param.required or param.display_name == focused
        if not required and draw(st.integers(0, 1 if clean else 2)) == 0:
            continue
        if required and not clean and draw(st.integers(0, 15)) == 0:
            continue  # a required option missing: Discord would not, a stale client might
        name = param.display_name
        if name == focused:
            options[name] = draw(texts(param))  # what has been typed so far
            continue
        if not clean and draw(st.integers(0, 3)) == 0:  # a value of another type
            options[name] = Raw(draw(WRONG))
            continue
        options[name] = (clean_value if clean else valid_value)(draw, param, members)
    payload = harness.driver.payload(member, command.qualified_name, focused=focused, **options)
    # The (sub)command's own entry: data itself, or its innermost subcommand.
    own = payload["data"]
    for _ in command.qualified_name.split()[1:]:
        own = own["options"][0]
    if not clean and draw(st.integers(0, 7)) == 0:  # an option the command does not have
        own["options"].append({"name": draw(st.text(max_size=8)), "type": 3, "value": "x"})
    if not clean and draw(st.integers(0, 12)) == 0:  # an unknown command or subcommand
        own["name"] = draw(st.sampled_from(["frobnicate", "", "DAMAGE", "character", "x" * 40]))
    return payload


COMMAND_LOG = "lastgasp.commands"  # bot/logs.py: one line per command, with its outcome


class Captured(logging.Handler):
    """What the bot logs during one example: errors, and the command lines."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.levelno >= logging.ERROR or record.name == COMMAND_LOG:
            self.records.append(record)

    @property
    def errors(self) -> list[logging.LogRecord]:
        return [r for r in self.records if r.levelno >= logging.ERROR]

    @property
    def outcomes(self) -> list[str]:
        return [r.msg["outcome"] for r in self.records if r.name == COMMAND_LOG]


def is_refusal(result: Result) -> bool:
    reply = result.reply
    return reply.ephemeral and not (reply.embeds or reply.components or reply.files)


async def check(harness: Any, payload: dict, logged: Captured, loop_errors: list) -> None:
    before = await snapshot(harness.db)
    result = await harness.driver.feed(payload)
    check_bodies(harness.validator, result.requests)
    what = f"{payload['data']['name']} {payload['data'].get('options')!r:.300}"
    after = await snapshot(harness.db)
    for other in (harness.guild.id, harness.other_guild.id):
        if other != int(payload["guild_id"]):  # P-2: nobody reaches another guild
            assert of_guild(after, other) == of_guild(before, other), f"crossed guilds: {what}"
    assert not logged.errors, f"logged at ERROR: {logged.errors[0].getMessage()} ({what})"
    assert not loop_errors, f"unhandled in the event loop: {loop_errors[0]} ({what})"
    for request in result.requests:
        assert_no_pings(request)  # names with mention syntax never ping (COMMANDS.md)
    if payload["type"] == 4:
        assert result.choices is not None, f"autocomplete not answered: {what}"
        assert after == before, f"autocomplete changed the database: {what}"
        return
    assert result.messages, f"no answer to {what}"
    assert result.reply.content != SOMETHING_WENT_WRONG, f"an error escaped: {what}"
    # The bot's own account of the command: one line, and never an error.
    assert logged.outcomes in (["ok"], ["refused"]), f"logged {logged.outcomes}: {what}"
    if logged.outcomes == ["refused"]:
        assert after == before, f"a refused command changed the database: {what}"
    if is_refusal(result):
        event("refused")
        assert after == before, f"a refusal changed the database: {what}"
    else:
        event(f"done: {payload['data']['name']}")


def fuzz_the_bot(
    url: contextlib.AbstractAsyncContextManager, validator: Any, examples: int
) -> None:
    """Hypothesis drives a synchronous test: the bot lives on this loop for all the examples,
    on the database `url` opens."""
    loop = asyncio.new_event_loop()
    loop_errors: list = []
    loop.set_exception_handler(lambda _loop, context: loop_errors.append(context.get("message")))
    logged = Captured()
    logging.getLogger().addHandler(logged)
    command_level = logging.getLogger(COMMAND_LOG).level
    logging.getLogger(COMMAND_LOG).setLevel(logging.INFO)
    stack = contextlib.AsyncExitStack()
    try:
        database = loop.run_until_complete(stack.enter_async_context(url))
        h = loop.run_until_complete(stack.enter_async_context(started_harness(database, validator)))
        loop.run_until_complete(_populate(h))
        commands = [c for c in h.bot.tree.walk_commands() if isinstance(c, app_commands.Command)]
        # Weighted towards who may act, so that many fuzzed commands get through too.
        members = [h.owner, h.owner, h.player, h.gm, h.gm, h.gm, h.gm_role, h.outsider]

        @settings(
            max_examples=examples,
            deadline=None,
            derandomize=True,  # the same examples in CI every time
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
            database=None,
        )
        @given(payload=payloads(h, commands, members))
        def fuzz(payload: dict) -> None:
            logged.records.clear()
            loop_errors.clear()
            loop.run_until_complete(check(h, payload, logged, loop_errors))

        fuzz()
    finally:
        logging.getLogger().removeHandler(logged)
        logging.getLogger(COMMAND_LOG).setLevel(command_level)
        loop.run_until_complete(stack.aclose())
        loop.close()


@pytest.mark.parametrize(
    ("backend", "examples"),
    [
        pytest.param("sqlite", 1200, id="sqlite"),
        pytest.param("postgresql", 600, id="postgresql", marks=pytest.mark.postgres),
    ],
)
def test_every_fuzzed_interaction_is_answered_and_refusals_change_nothing(
    tmp_path: Path, spec_validator: Any, backend: str, examples: int
) -> None:
    if backend == "postgresql" and not PG_SERVER:
        pytest.skip(SKIP_PG)
    fuzz_the_bot(database_url(backend, tmp_path), spec_validator, examples)


async def _populate(harness: Any) -> None:
    await harness.add_character("Roryn")
    await harness.add_character("Bex", owner=harness.player, vit=0)
    await harness.add_character("Zoë", owner=harness.owner, vit=-1, anger=2)
    await harness.add_character("Far Away", owner=harness.outsider)
    await harness.start_combat(["Roryn"])


@pytest.mark.parametrize("value", ["abc", "5", "", 1.5, True, None, [1], {"a": 1}, 2**64])
async def test_a_wrongly_typed_amount_is_refused_and_changes_nothing(harness, caplog, value):
    """The fuzzer's main finding class, pinned: whatever stands in an integer option."""
    await harness.add_character("Roryn")
    before = await snapshot(harness.db)
    data = {
        "id": "1",
        "name": "damage",
        "type": 1,
        "options": [
            {"name": "amount", "type": 4, "value": value},
            {"name": "character", "type": 3, "value": "Roryn"},
        ],
        "guild_id": str(harness.guild.id),
    }
    payload = interaction_payload(harness.owner, 2, data, harness.driver.application_id)
    with caplog.at_level(logging.ERROR):
        result = await harness.driver.feed(payload)
    assert is_refusal(result)
    assert result.reply.content != SOMETHING_WENT_WRONG
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert await snapshot(harness.db) == before
