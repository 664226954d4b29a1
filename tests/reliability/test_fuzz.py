"""Fuzzing: hypothesis writes INTERACTION_CREATE payloads for every command of the tree.

Option values of the wrong type, out of range, huge and empty strings, markdown and mention
syntax, unknown characters, missing required options, unknown options, subcommands and
commands, and option structures no Discord client sends: an option without `type`, a `type`
that is not the declared one, an option that is not an object, options that are not a list, a
user, role or attachment id missing from `resolved`; autocompletes whose typed text is not text
or is 60,000 characters long.

For each payload:
- the interaction is answered exactly once: one callback, of type 4 (a message), 5 (a defer)
  or 8 (autocomplete choices), whatever followups come after;
- nothing escapes as an error: no "Something went wrong", nothing logged by `lastgasp.errors`
  (at any level) or by anyone at ERROR, no exception left in the event loop, and the bot's one
  log line of the command says ok or refused, never error;
- every body the bot sends is one Discord accepts (when its API description is present) and
  pings nobody;
- the other guild's rows are untouched (P-2), and a refused command leaves the database
  unchanged: every row of every table, as stored;
- what the bot says never holds a name or typed text unescaped: where a fuzzed value with
  markdown or mention syntax appears, it appears escaped (or inside a code span).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import logging
import os
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from discord import AppCommandOptionType, app_commands
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from bot.failures import SOMETHING_WENT_WRONG
from bot.offline import Attachment, Member, Raw, Request, Result, interaction_payload
from bot.render.common import escape
from bot.web.links import Links
from tests.discord.conftest import assert_no_pings
from tests.reliability.conftest import (
    PG_SERVER,
    SKIP_PG,
    LogCapture,
    assert_answered_once,
    captured_logs,
    check_bodies,
    database_url,
    is_refusal,
    of_guild,
    snapshot,
    started_harness,
)

# Names that exist in the fuzzed guilds, in several spellings (section 1: case-insensitive).
NAMES = ("Roryn", "roryn", "RORYN", " Roryn ", "Bex", "Zoë", "Far Away", "*Star*")
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
    "-# Roryn",
    "> quote",
    "[x](https://example.com)",
    "~~Bex~~",
    "Roryn\nBex",
    "\u200b",
    "Roryn\u200b",
    "\u202eRoryn",
    "💀",
    "ﬀ",
    "\x00",
    "ﷺ" * 8,
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
    st.none(),
    st.lists(st.integers(), max_size=2),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
    st.integers().map(str),
)
# Names a clean /character create, edit or import gives: markdown and mentions among them.
NEW_NAMES = ("Newbie", "**Bold**", "_Under_", "@everyone", "[x](https://e.co/a)", "# Head", "Ünï")
BIG_INTS = (0, -1, 2**31, -(2**31) - 1, 2**53, -(2**53), 2**63 - 1, -(2**63), 2**64, 10**30)
RESOLVED_TYPES = (
    AppCommandOptionType.user.value,
    AppCommandOptionType.role.value,
    AppCommandOptionType.attachment.value,
)


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
    if kind is AppCommandOptionType.string and param.display_name == "character":
        return draw(st.sampled_from(NAMES))
    if kind is AppCommandOptionType.string and param.display_name == "name":
        return draw(st.sampled_from(NEW_NAMES))
    if kind is AppCommandOptionType.string:
        return draw(st.sampled_from(["C H", "M", "1d20+3", "dodge", "Channel Casting", "MMHC"]))
    if kind is AppCommandOptionType.attachment:
        sheet = {"name": draw(st.sampled_from(NEW_NAMES)), "max_vit": draw(st.integers(1, 30))}
        if draw(st.booleans()):
            sheet = {"format": "last-gasp/sheet", "version": 1, "sheet": sheet}
        return Attachment("sheet.json", json.dumps(sheet).encode())
    return valid_value(draw, param, members)


def sheets() -> st.SearchStrategy[bytes]:
    """What an import's file may hold: an export, a bare sheet, or anything."""
    name = st.one_of(st.sampled_from(NASTY), st.sampled_from(NAMES), st.text(max_size=40))
    number = st.one_of(st.integers(-20, 1000), st.sampled_from(BIG_INTS), WRONG)
    sheet = st.fixed_dictionaries(
        {"name": name},
        optional={
            "max_vit": number,
            "vit": number,
            "res": number,
            "stress": number,
            "anger": number,
            "con_base": st.one_of(st.sampled_from([6, 8, 10, 12, "d8"]), number),
            "breakdown": st.sampled_from(["anger", "fear", None, "joy"]),
            "advantage": st.booleans(),
            "colour": st.text(max_size=5),
        },
    )
    exported = sheet.map(lambda s: {"format": "last-gasp/sheet", "version": 1, "sheet": s})
    return st.one_of(
        st.one_of(sheet, exported).map(lambda d: json.dumps(d).encode()),
        st.binary(max_size=200),
        st.sampled_from([b"{}", b"[]", b"x" * 70_000, b'{"vit": 1' + b"0" * 5000 + b"}"]),
    )


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
        filename = draw(st.sampled_from(["sheet.json", "a.txt", "f", "Roryn.JSON"]))
        return Attachment(filename, draw(sheets()))
    return draw(st.text(max_size=20))


def leaf_of(payload: dict, command: app_commands.Command) -> dict:
    """The (sub)command's own entry: data itself, or its innermost subcommand."""
    own = payload["data"]
    for _ in command.qualified_name.split()[1:]:
        own = own["options"][0]
    return own


# Malformations the fuzzer leaves out while a known bug fails them every time: each is pinned by
# an xfail(strict) test, which fails once the bug is fixed (then drop it from here).
KNOWN_BUGS: set[str] = set()


def no_pings(request: Request) -> None:
    """assert_no_pings, but for the known bug above."""
    board_edit = request.method == "PATCH" and request.path.startswith("/channels/")
    body = request.payload if isinstance(request.payload, dict) else {}
    if "board edit mentions" in KNOWN_BUGS and board_edit and "content" not in body:
        return
    assert_no_pings(request)


def malform(draw: Any, payload: dict, own: dict) -> None:
    """One of the option structures no Discord client sends."""
    options = own["options"]
    resolved = payload["data"].get("resolved") or {}
    kinds = ["no type", "type as text", "another type", "not an object", "not a list"]
    kinds = [k for k in kinds if k not in KNOWN_BUGS]
    kinds += ["missing resolved"] if resolved else []
    kinds += ["no value"] if options else []
    kind = draw(st.sampled_from(kinds))
    event(f"malformed: {kind}")
    if "focused type" in KNOWN_BUGS and kind in ("no type", "type as text"):
        options = [o for o in options if not o.get("focused")]
    option = draw(st.sampled_from(options)) if options else None
    if kind == "no type" and option is not None:
        option.pop("type", None)
    elif kind == "type as text" and option is not None:
        option["type"] = str(option.get("type"))
    elif kind == "another type" and option is not None:
        option["type"] = draw(st.sampled_from([3, 4, 5, 6, 8, 10, 11, 99, 1]))
    elif kind == "no value" and option is not None:
        option.pop("value", None)
    elif kind == "not an object":
        options.append(draw(st.sampled_from(["x", 4, None, ["a"]])))
    elif kind == "not a list":
        own["options"] = draw(st.sampled_from([{"name": "x"}, "x", 4]))
    elif kind == "missing resolved":
        ids = [o for o in options if isinstance(o, dict) and o.get("type") in RESOLVED_TYPES]
        if ids and draw(st.booleans()):
            gone = str(draw(st.sampled_from(ids))["value"])
            for objects in resolved.values():
                objects.pop(gone, None)  # its id is given, its object is not
        else:
            payload["data"].pop("resolved")


@st.composite
def payloads(
    draw: Any,
    harness: Any,
    commands: list[app_commands.Command],
    members: list[Member],
) -> tuple[dict, list[bytes]]:
    """One INTERACTION_CREATE of type 2 (or 4, autocomplete) with fuzzed options, and the
    files it attaches."""
    command = draw(st.sampled_from(commands))
    clean = draw(st.booleans())  # half the payloads are ones a Discord client could send
    # Clean ones mostly from who may act, so that many of them go through.
    member = draw(st.sampled_from(members[:4] if clean else members))
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
    own = leaf_of(payload, command)
    if focused is not None and not clean and draw(st.integers(0, 3)) == 0:
        typed = next((o for o in own["options"] if o.get("focused")), {})
        typed["value"] = draw(st.sampled_from([5, None, ["Ro"], {"a": 1}, 1.5, "R" * 60_000]))
    if not clean and draw(st.integers(0, 7)) == 0:  # an option the command does not have
        own["options"].append({"name": draw(st.text(max_size=8)), "type": 3, "value": "x"})
    if not clean and draw(st.integers(0, 3)) == 0:
        malform(draw, payload, own)
    if not clean and draw(st.integers(0, 12)) == 0:  # an unknown command or subcommand
        own["name"] = draw(st.sampled_from(["frobnicate", "", "DAMAGE", "character", "x" * 40]))
    files = [v.data for v in options.values() if isinstance(v, Attachment)]
    return payload, files


COMMAND_LOG = "lastgasp.commands"  # bot/logs.py: one line per command, with its outcome
# Whose answer is a private text when they go through: the board's notices, `/web`'s link and
# its revocation.
NOTICES = {"board start", "board stop", "web"}


class CommandLines(logging.Handler):
    """The bot's one line per command, with its outcome."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.outcomes: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.name == COMMAND_LOG:
            self.outcomes.append(record.msg["outcome"])


# --- escaped names and typed text ----------------------------------------------------------------

# Markdown that formats, and the start of a mention: a value holding one (and a letter) must
# never be shown as it was typed.
MARKUP = re.compile(r"[*_~|`>#\[]|@(everyone|here)|<@|<#")
CODE_SPAN = re.compile(r"`[^`\n]*`")
DECLARED = re.compile(r"[a-z_]{1,32}")  # how the commands' own options are named


def typed_values(payload: dict, files: list[bytes]) -> set[str]:
    """Every string the payload carries that a user typed (option names and values, and the
    names inside an imported file)."""
    found: set[str] = set()

    def walk(options: Any) -> None:
        if not isinstance(options, list):
            return
        for option in options:
            if not isinstance(option, dict):
                continue
            if isinstance(option.get("value"), str):
                found.add(option["value"])
            name = option.get("name")
            if isinstance(name, str) and not DECLARED.fullmatch(name):
                found.add(name)  # an option name no command declares: typed
            walk(option.get("options"))

    walk(payload["data"].get("options"))
    for data in files:
        with contextlib.suppress(ValueError, UnicodeDecodeError, RecursionError):
            document = json.loads(data)
            sheet = document.get("sheet", document) if isinstance(document, dict) else None
            if isinstance(sheet, dict) and isinstance(sheet.get("name"), str):
                found.add(sheet["name"])
    return found


def needs_escaping(value: str) -> bool:
    return bool(MARKUP.search(value)) and any(c.isalnum() for c in value) and escape(value) != value


def unescaped(text: str, value: str) -> bool:
    """Whether `value` stands in `text` as typed, outside its escaped form and any code span.
    Escaping depends on where a value stands: `# Head` is a heading only at a line's start, so
    in the middle of a sentence it is shown as it is."""
    covered = [m.span() for m in CODE_SPAN.finditer(text)]
    mid_line = escape("x " + value)[2:]
    for escaped in {escape(value), mid_line} - {value}:
        start = text.find(escaped)
        while start != -1:
            covered.append((start, start + len(escaped)))
            start = text.find(escaped, start + 1)
    start = text.find(value)
    while start != -1:
        end = start + len(value)
        line = text[text.rfind("\n", 0, start) + 1 : start]
        harmless = value == mid_line and line.strip("*") != ""
        if not harmless and not any(s <= start and end <= e for s, e in covered):
            return True
        start = text.find(value, start + 1)
    return False


def shown_texts(result: Result) -> list[str]:
    """Where markdown renders: every text display of every message (the title's heading too)."""
    return [text for message in result.messages for text in message.card.texts]


def check_escaped(result: Result, values: set[str], what: str) -> None:
    for value in values:
        if not needs_escaping(value):
            continue
        for text in shown_texts(result):
            assert not unescaped(text, value), f"{value!r} shown unescaped in {text!r} ({what})"


def test_the_escape_check_sees_an_unescaped_name() -> None:
    """The check itself: raw markdown fails it, the escaped form and code spans pass."""
    assert unescaped("No character named **Roryn** here.", "**Roryn**")
    assert unescaped("# Roryn is Up", "# Roryn")
    assert unescaped("Hi @everyone", "@everyone")
    assert not unescaped(f"No character named {escape('**Roryn**')}.", "**Roryn**")
    assert not unescaped(f"{escape('# Roryn')} is Up", "# Roryn")
    assert not unescaped("`**Roryn**` is not an option", "**Roryn**")
    assert unescaped("**# Roryn is Up**", "# Roryn")  # a line start, bold or not: strict
    # `#` is escaped wherever it stands (bot/render/common.py): raw mid-line, it is a value's
    assert unescaped("**Healing changes nothing: # Roryn is Up**", "# Roryn")
    assert not needs_escaping("-1") and not needs_escaping("C H M")


# --- one example ---------------------------------------------------------------------------------


def names(state: dict[str, list[dict]]) -> set[str]:
    """The names of every character in a snapshot."""
    sheets = (r["sheet"] for r in state["characters"])
    return {(json.loads(s) if isinstance(s, str) else s)["name"] for s in sheets}


async def check(
    harness: Any,
    payload: dict,
    files: list[bytes],
    logged: LogCapture,
    lines: CommandLines,
    loop_errors: list,
    tally: Counter[str],
    choices: set[str],
) -> None:
    before = await snapshot(harness.db)
    result = await harness.driver.feed(payload)
    gc.collect()  # a task's exception nobody retrieved is reported when it is collected
    what = f"{payload['data'].get('name')} {payload['data'].get('options')!r:.300}"
    check_bodies(harness.validator, result.requests)
    after = await snapshot(harness.db)
    for other in (harness.guild.id, harness.other_guild.id):
        if other != int(payload["guild_id"]):  # P-2: nobody reaches another guild
            assert of_guild(after, other) == of_guild(before, other), f"crossed guilds: {what}"
    assert not logged.records, f"logged: {logged.text()} ({what})"
    assert not loop_errors, f"unhandled in the event loop: {loop_errors[0]} ({what})"
    for request in result.requests:
        no_pings(request)  # names with mention syntax never ping (docs/commands.md)
    kind = assert_answered_once(result, what)
    if payload["type"] == 4:
        assert kind == 8 and result.choices is not None, f"autocomplete not answered: {what}"
        assert len(result.choices) <= 25, what
        assert after == before, f"autocomplete changed the database: {what}"
        event("autocomplete")
        tally["autocomplete"] += 1
        return
    assert result.messages, f"no answer to {what}"
    assert not any(m.loading for m in result.messages), f"left thinking: {what}"
    for message in result.messages:
        assert SOMETHING_WENT_WRONG not in message.card.body, f"an error escaped: {what}"
    # The bot's own account of the command: one line, and never an error.
    assert lines.outcomes in (["ok"], ["refused"]), f"logged {lines.outcomes}: {what}"
    values = (typed_values(payload, files) - choices) | names(after)
    check_escaped(result, values, what)
    if lines.outcomes == ["refused"]:
        assert is_refusal(result), f"a refusal with more than a private text: {what}"
        assert after == before, f"a refused command changed the database: {what}"
        event("refused")
        tally["refused"] += 1
    else:
        # Went through. A private text alone is then one of the notices that are answers
        # (the board's), never a refusal logged as ok.
        if is_refusal(result):
            assert command_name_of(payload) in NOTICES, f"a refusal logged as ok: {what}"
        event(f"done: {payload['data']['name']}")
        tally["done"] += 1
        tally[f"done: {command_name_of(payload)}"] += 1


def command_name_of(payload: dict) -> str:
    data = payload["data"]
    names, options = [data.get("name")], data.get("options")
    while isinstance(options, list) and options and isinstance(options[0], dict):
        if options[0].get("type") not in (1, 2):
            break
        names.append(options[0].get("name"))
        options = options[0].get("options")
    return " ".join(map(str, names))


def fuzz_the_bot(
    url: contextlib.AbstractAsyncContextManager, validator: Any, examples: int
) -> None:
    """Hypothesis drives a synchronous test: the bot lives on this loop for all the examples,
    on the database `url` opens."""
    loop = asyncio.new_event_loop()
    loop_errors: list = []
    loop.set_exception_handler(lambda _loop, context: loop_errors.append(context.get("message")))
    lines = CommandLines()
    tally: Counter[str] = Counter()
    command_log = logging.getLogger(COMMAND_LOG)
    command_level = command_log.level
    command_log.setLevel(logging.INFO)
    command_log.addHandler(lines)
    stack = contextlib.ExitStack()
    logged = stack.enter_context(captured_logs())
    async_stack = contextlib.AsyncExitStack()
    try:
        database = loop.run_until_complete(async_stack.enter_async_context(url))
        h = loop.run_until_complete(
            async_stack.enter_async_context(started_harness(database, validator))
        )
        loop.run_until_complete(_populate(h))
        # The campaign page turned on: `/web` makes links (bot/web/links.py) like any command.
        h.bot.web_links = Links(
            "the fuzzer's secret, long enough to be one", hours=24, base_url="https://e.org/"
        )
        commands = [c for c in h.bot.tree.walk_commands() if isinstance(c, app_commands.Command)]
        # A declared choice (`no_crit`) is the bot's own word, not typed text.
        choices = {str(c.value) for cmd in commands for p in cmd.parameters for c in p.choices}
        # Who may act first (clean payloads take them), then everyone.
        members = [h.gm, h.owner, h.gm_role, h.gm, h.owner, h.player, h.gm, h.outsider]

        @settings(
            max_examples=examples,
            deadline=None,
            derandomize=True,  # the same examples in CI every time
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
            database=None,
        )
        @given(example=payloads(h, commands, members))
        def fuzz(example: tuple[dict, list[bytes]]) -> None:
            payload, files = example
            logged.clear()
            lines.outcomes.clear()
            loop_errors.clear()
            checked = check(h, payload, files, logged, lines, loop_errors, tally, choices)
            loop.run_until_complete(checked)

        fuzz()
        # Not a fuzzer of refusals only: many commands went through, of many kinds.
        kinds = [k for k in tally if k.startswith("done: ")]
        assert tally["done"] >= examples // 10, sorted(tally.items())
        assert len(kinds) >= min(20, examples // 30), sorted(tally.items())
    finally:
        command_log.removeHandler(lines)
        command_log.setLevel(command_level)
        loop.run_until_complete(async_stack.aclose())
        stack.close()
        loop.close()


def examples_of(default: int) -> int:
    """FUZZ_EXAMPLES=n runs n examples per database instead (a quick local run)."""
    return int(os.environ.get("FUZZ_EXAMPLES", default))


@pytest.mark.parametrize(
    ("backend", "examples"),
    [
        pytest.param("sqlite", examples_of(1200), id="sqlite"),
        pytest.param("postgresql", examples_of(600), id="postgresql", marks=pytest.mark.postgres),
    ],
)
def test_every_fuzzed_interaction_is_answered_once_and_refusals_change_nothing(
    tmp_path: Path, spec_validator: Any, backend: str, examples: int
) -> None:
    if backend == "postgresql" and not PG_SERVER:
        pytest.skip(SKIP_PG)
    fuzz_the_bot(database_url(backend, tmp_path), spec_validator, examples)


async def _populate(harness: Any) -> None:
    await harness.settings(gm_role_id=harness.guild.roles["GM"])  # P-1: Rolf is a GM
    await harness.add_character("Roryn")
    await harness.add_character("Bex", owner=harness.player, vit=0)
    await harness.add_character("Zoë", owner=harness.owner, vit=-1, anger=2)
    await harness.add_character("*Star*", owner=harness.player, vit=-3, res=1)
    await harness.add_character("Far Away", owner=harness.outsider)
    await harness.start_combat(["Roryn"])


# --- the fuzzer's finding classes, pinned --------------------------------------------------------


def _damage(harness: Any, options: list[Any], **data: Any) -> dict:
    body = {"id": "1", "name": "damage", "type": 1, "options": options}
    body.update(guild_id=str(harness.guild.id), **data)
    return interaction_payload(harness.owner, 2, body, harness.driver.application_id)


async def _refused_and_unchanged(harness: Any, payload: dict) -> Result:
    before = await snapshot(harness.db)
    with captured_logs() as logged:
        result = await harness.driver.feed(payload)
    assert_answered_once(result)
    assert is_refusal(result), result.text()
    assert SOMETHING_WENT_WRONG not in result.reply.card.body
    assert not logged.records, logged.text()
    assert await snapshot(harness.db) == before
    return result


@pytest.mark.parametrize("value", ["abc", "5", "", 1.5, True, None, [1], {"a": 1}, 2**64])
async def test_a_wrongly_typed_amount_is_refused_and_changes_nothing(harness, value):
    """Whatever stands in an integer option."""
    await harness.add_character("Roryn")
    amount = {"name": "amount", "type": 4, "value": value}
    await _refused_and_unchanged(harness, _damage(harness, [amount, _roryn()]))


def _roryn() -> dict:
    return {"name": "character", "type": 3, "value": "Roryn"}


@pytest.mark.parametrize(
    "amount",
    [
        pytest.param({"name": "amount", "value": 3}, id="no-type"),
        pytest.param({"name": "amount", "type": "4", "value": 3}, id="type-as-text"),
        pytest.param({"name": "amount", "type": 3, "value": "3"}, id="declared-int-sent-as-string"),
        pytest.param({"name": "amount", "type": 4}, id="no-value"),
        pytest.param("amount", id="not-an-object"),
    ],
)
async def test_a_malformed_option_is_refused_once_and_changes_nothing(harness, amount):
    await harness.add_character("Roryn")
    await _refused_and_unchanged(harness, _damage(harness, [amount, _roryn()]))


@pytest.mark.parametrize("command", ["damage", "character list"])
async def test_options_that_are_not_a_list_are_refused_once(harness, command):
    h = harness
    await h.add_character("Roryn")
    payload = h.driver.payload(h.owner, command, **({"amount": 1} if command == "damage" else {}))
    own = payload["data"] if command == "damage" else payload["data"]["options"][0]
    own["options"] = {"name": "amount", "type": 4, "value": 1}
    loop_errors: list = []
    asyncio.get_running_loop().set_exception_handler(lambda _l, c: loop_errors.append(c))
    try:
        result = await _refused_and_unchanged(h, payload)
        gc.collect()
    finally:
        asyncio.get_running_loop().set_exception_handler(None)
    assert not loop_errors, loop_errors
    assert result.messages


async def test_a_missing_required_option_is_named(harness):
    await harness.add_character("Roryn")
    result = await _refused_and_unchanged(harness, _damage(harness, [_roryn()]))
    assert "amount" in result.reply.card.body, result.text()


@pytest.mark.parametrize("kind", ["user", "role", "attachment"])
async def test_an_id_missing_from_resolved_is_refused_once(harness, kind):
    h = harness
    if kind == "user":
        payload = h.driver.payload(h.gm, "character create", name="Newbie", owner=h.player)
    elif kind == "role":
        payload = h.driver.payload(h.gm, "settings set", gm_role="GM")
    else:
        payload = h.driver.payload(h.gm, "character import", file=Attachment("a.json", b"{}"))
    payload["data"].pop("resolved")
    await _refused_and_unchanged(h, payload)


async def test_an_unknown_subcommand_is_answered_once(harness):
    h = harness
    payload = h.driver.payload(h.gm, "character list")
    payload["data"]["options"][0]["name"] = "frobnicate"
    await _refused_and_unchanged(h, payload)


@pytest.mark.parametrize("typed", [5, None, ["Ro"], "R" * 60_000])
async def test_an_autocomplete_of_anything_answers_valid_choices(harness, typed):
    h = harness
    await h.add_character("Roryn")
    payload = h.driver.payload(h.owner, "damage", focused="character", character="Ro")
    [option] = payload["data"]["options"]
    option["value"] = typed
    with captured_logs() as logged:
        result = await h.driver.feed(payload)
    assert assert_answered_once(result) == 8
    assert result.choices == [] or all(c["name"] and c["value"] for c in result.choices)
    assert not logged.records, logged.text()


@pytest.mark.parametrize(
    "mangle",
    [
        pytest.param(lambda o: o.pop("type"), id="no-type"),
        pytest.param(lambda o: o.update(type="3"), id="type-as-text"),
    ],
)
async def test_an_autocomplete_with_a_malformed_focused_option_answers(harness, mangle):
    h = harness
    await h.add_character("Roryn")
    payload = h.driver.payload(h.owner, "recover", focused="character", character="Ro")
    [option] = payload["data"]["options"]
    mangle(option)
    loop_errors: list = []
    asyncio.get_running_loop().set_exception_handler(lambda _l, c: loop_errors.append(c))
    try:
        with captured_logs() as logged:
            result = await h.driver.feed(payload)
            gc.collect()
    finally:
        asyncio.get_running_loop().set_exception_handler(None)
    assert not loop_errors, loop_errors
    assert not logged.records, logged.text()
    assert assert_answered_once(result) == 8


@pytest.mark.parametrize("name", ["**Bold**", "[x](https://e.co/a)", "# Head", "@everyone"])
async def test_a_refusal_shows_a_typed_name_escaped(harness, name):
    """docs/commands.md: names and typed text escaped in refusals, as in results."""
    h = harness
    payload = h.driver.payload(h.owner, "damage", amount=1, character=name)
    result = await _refused_and_unchanged(h, payload)
    assert unescaped(result.reply.card.body, name) is False, result.reply.card.body
    assert escape(name) in result.reply.card.body, result.reply.card.body
