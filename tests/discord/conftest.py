"""The bot as Discord drives it: raw INTERACTION_CREATE payloads through the real command tree.

No network, no token: `bot.offline.OfflineDriver` feeds gateway payloads to discord.py's parsers
and captures every HTTP request. Every captured request is validated against Discord's API
description as it happens (tests/spec_validation.py: the Zod schemas of the pinned npm package
when npm and node are there, else the pinned openapi.json), so a test that sends a bad body fails
even if it only looks at the text (when neither is found the bodies are not validated and the
validation tests skip, saying why), and checked to allow no mention.

How to use it (fixture `harness`, one fresh bot on a fresh SQLite database per test):

    async def test_damage(harness):
        await harness.add_character("Roryn", owner=harness.owner, vit=1)      # straight to the DB
        result = await harness.run(harness.owner, "damage", character="Roryn", amount=3)
        assert not result.ephemeral                     # public result
        assert "VIT 1 → -2" in result.card.body
        assert (await harness.sheet("Roryn")).vit == -2

        refused = await harness.run(harness.player, "damage", character="Roryn", amount=1)
        assert refused.ephemeral and "owner" in refused.reply.card.body

Who can speak (all `bot.offline.Member`):
    harness.owner     "Alice", a player who owns the characters the test creates by default
    harness.player    "Bob", another player of the same guild
    harness.gm        "Gemma", Manage Server in the same guild (P-1)
    harness.gm_role   "Rolf", no Manage Server but the guild's GM role (once settings set it)
    harness.outsider  "Mallory", a member of another guild (harness.other_guild), Manage Server
    harness.member("Name", manage_guild=False, roles=("GM",)) for anyone else.

Running things:
    await harness.run(member, "character create", name="Roryn")     subcommands space-separated
        options by Discord name with Python values: int, str, bool, a Member (user option), a role
        name from harness.guild.roles (role option), offline.Attachment(filename, bytes) (file)
    await harness.complete(member, "damage", "character", character="Ro")  -> list of choices
    await harness.click(member, result.reply, custom_id)                  press a button
    await harness.dm(user_id, "damage", amount=1)                          from a direct message
    payloads Discord's client would not send: harness.driver.payload(member, "damage",
        amount=offline.Raw("three")), or interaction_payload(...) for a hand-made `data`; then
        harness.validated(await harness.driver.feed(payload)) (see bot/offline/__init__.py)

Checks (module functions here): assert_refused(result, *fragments) -> the text of a private,
untitled card in the refusal colour; assert_no_pings(request) and assert_layout(request) (one
card of layout components, no embed, no content) run on every body (interaction answers,
followups, and the bot's own channel messages: the status boards). Every request the bot made
during the test, those of no interaction too (a board's edits), is checked again when the test
ends. Fixtures
(tests/conftest.py): spec_validator, the session's; strict_spec_validator, the same or a skip
saying why the spec is absent (for tests about validation itself). Fixture any_harness: the
same harness on SQLite and, when TEST_DATABASE_URL names a PostgreSQL server, on PostgreSQL in
a database of its own.

Reading the result (`bot.offline.Result`):
    result.card: what a member sees of the reply (bot/offline/layout.py's Seen): .title, .lines
        (headline first), .body, .small (the last small line), .colour, .buttons, .pictures,
        .files, .texts; lines(result), history_entries(result) -> Entry(name, lines), entries()
    result.reply (first message) .card .ephemeral .layout .components (the raw tree) .files
    result.messages (all, in order: reply or deferred+edited original, then followups)
    result.requests (raw captured HTTP: method, path template, payload) ; result.text()

Setting up state without commands (straight through bot.db, in the harness guild by default):
    await harness.add_character(name, owner=member, **sheet_fields) -> Sheet
        any Sheet field: described ones (res, max_vit…) through create_sheet, state (vit,
        stamina, stacks, breakdown, flags) set on top; guild=harness.other_guild elsewhere;
        logged=True also logs its creation, as /character create does (else no event)
    await harness.sheet(name) -> Sheet ; await harness.row(name) -> CharacterRow (its id)
    await harness.update(name, **fields) -> Sheet  (no event: as if it had always been so)
    await harness.history(name, limit=100, bookkeeping=False) -> the logged events (bot.db
        records.Event), newest first: changes only (U-2) unless bookkeeping=True ([] with
        bookkeeping=True: nothing logged at all). history(character_id=…) reaches a deleted
        character's log.
    await harness.events("settings set") -> every event of the guild (of one command), oldest
        first, the guild's own too (combat, rounds, days, settings: character_id None)
    await harness.snapshot() -> every row of every table (assert a refusal changed nothing:
        `before = await harness.snapshot(); …; assert await harness.snapshot() == before`)
    await harness.refusal(member, "cmd", "fragment", …, **options) -> the refusal's text, once
        it is checked private, plain, saying each fragment, and every table unchanged
    await harness.settings(gm_role_id=harness.guild.roles["GM"], death_rule="instant")
    await harness.select(member, name)            the member's active character
    await harness.start_combat(["Roryn"])         combat in harness.guild's channel
    harness.script("C H M")                       the next Narateer faces (default die MMMHHC);
                                                  returns the ScriptedRandom (.remaining)
    harness.script_values(7, 3)                   raw values for randint/randrange (d10 → 7)
    harness.db                                    the bot's bot.db Database (.engine, .transaction)
"""

from __future__ import annotations

import contextlib
import os
import re
import uuid
from collections.abc import AsyncIterator, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.engine import make_url

from bot.app import create_bot
from bot.db.engine import READ_ONLY
from bot.db.events import _event
from bot.db.records import CharacterRow, Event
from bot.db.tables import events, metadata
from bot.offline import Member, OfflineDriver, Request, Result
from bot.offline.layout import IS_COMPONENTS_V2
from bot.render.common import FAILURE_COLOUR
from rules.dice import ScriptedRandom
from rules.models import GuildSettings, Sheet
from rules.sheet_ops import EDITABLE, create_sheet
from tests.spec_validation import Validator

PG_SERVER = os.environ.get("TEST_DATABASE_URL")
SKIP_PG = "TEST_DATABASE_URL is not set: the PostgreSQL run of this test is skipped"


_MESSAGE_PATHS = (
    "/webhooks/",  # an interaction's followups and edits
    "/channels/{channel_id}/messages",  # the bot's own channel messages (the status boards)
)


def _message_body(request: Request) -> dict[str, Any] | None:
    """The message a request sends or edits (None: it carries none): interaction answers,
    followups and edits, and the bot's own channel messages. Other bodies (command sync,
    application emoji, a defer) carry no message."""
    body = request.payload
    if not isinstance(body, dict):
        return None
    if request.path.endswith("/callback"):
        if body.get("type") not in (4, 7):  # only these two carry a message
            return None
        return body.get("data") or {}
    if not request.path.startswith(_MESSAGE_PATHS) or request.method not in ("POST", "PATCH"):
        return None
    return body


def assert_no_pings(request: Request) -> None:
    """Every message body the bot sends allows no mention at all (docs/commands.md: never
    pings)."""
    body = _message_body(request)
    if body is not None and ("components" in body or "content" in body or "embeds" in body):
        assert body.get("allowed_mentions") == {"parse": []}, f"may ping: {body!r}"


def assert_layout(request: Request) -> None:
    """Every message the bot sends is one card of layout components (docs/commands.md, "How
    every message is built"): the flag IS_COMPONENTS_V2, one container, no embed, no content."""
    body = _message_body(request)
    if body is None:
        return
    assert not body.get("embeds"), f"an embed: {body!r}"
    assert not body.get("content"), f"content beside the card: {body!r}"
    assert (body.get("flags") or 0) & IS_COMPONENTS_V2, f"not a layout message: {body!r}"
    components = body.get("components") or []
    assert [c.get("type") for c in components] == [17], f"not one container: {components!r}"


def assert_refused(result: Result, *fragments: str) -> str:
    """A refusal: one private card of a sentence or two (never green), saying each fragment;
    returns its text."""
    reply = result.reply
    assert reply.ephemeral, f"refusal is public: {result.text()}"
    card = reply.card
    assert card.title is None and not card.buttons, f"a refusal is a short text: {result.text()}"
    assert card.colour == FAILURE_COLOUR, f"a refusal in {card.colour!r}: {result.text()}"
    for fragment in fragments:
        assert fragment in card.body, f"{fragment!r} not in {card.body!r}"
    return card.body


def lines(result: Result) -> list[str]:
    """The reply's lines as its card shows them, title and small line aside (headline first)."""
    return result.card.lines


@dataclass(frozen=True)
class Entry:
    """One event of a /history reply: `name` ("/damage · undone"), then its lines: who and when
    first, then what it changed, its dice, its rules (small)."""

    name: str
    lines: list[str]

    @property
    def text(self) -> str:
        return "\n".join(self.lines)


def history_entries(result: Result) -> list[Entry]:
    """A /history reply's events, newest first (bot/render/table.py draws each as a paragraph
    opening with its command in bold)."""
    found = []
    for text in result.card.texts:
        for paragraph in text.split("\n\n"):
            head, _, rest = paragraph.partition("\n")
            match = re.match(r"\*\*(/[^*]+)\*\* (.*)", head)
            if match is None:
                continue
            more = [  # a small line reads as its words ("-# Rules: …" is "Rules: …", small)
                line.removeprefix("-# ")
                for line in rest.split("\n")
                if line and not line.startswith("… and ")
            ]
            found.append(Entry(match[1], [match[2], *more]))
    return found


def entries(result: Result) -> list[str]:
    """The names of a /history reply's entries, newest first."""
    return [entry.name for entry in history_entries(result)]


# --- the harness ---------------------------------------------------------------------------------


class Harness:
    """One bot, two guilds, the usual speakers. See the module docstring."""

    GM_ROLE = "GM"

    def __init__(self, driver: OfflineDriver, validator: Validator) -> None:
        self.driver = driver
        self.bot = driver.bot
        self.validator = validator
        self.guild = driver.add_guild(name="The Table", roles={self.GM_ROLE: 4242})
        self.other_guild = driver.add_guild(name="Elsewhere")
        self.owner = self.member("Alice")
        self.player = self.member("Bob")
        self.gm = self.member("Gemma", manage_guild=True)
        self.gm_role = self.member("Rolf", roles=(self.GM_ROLE,))
        self.outsider = driver.member(self.other_guild, "Mallory", manage_guild=True)
        self._checked: set[int] = set()  # id() of the requests already checked

    @property
    def db(self) -> Any:
        return self.bot.db

    def member(self, name: str, *, manage_guild: bool = False, roles: Iterable[str] = ()) -> Member:
        return self.driver.member(self.guild, name, manage_guild=manage_guild, roles=roles)

    # interactions, every body validated against the spec

    def validated(self, result: Result) -> Result:
        for request in result.requests:
            self._check(request)
        return result

    def _check(self, request: Request) -> None:
        self.validator.check(request)
        assert_no_pings(request)
        assert_layout(request)
        self._checked.add(id(request))

    def check_all_requests(self) -> None:
        """Every request the bot made that no result showed (a status board's edits, a
        confirmation's timeout): validated and checked for pings, as the others were."""
        for request in list(self.driver.requests):
            if id(request) not in self._checked:
                self._check(request)

    async def run(self, member: Member, command: str, /, **options: Any) -> Result:
        return self.validated(await self.driver.invoke(member, command, **options))

    async def refusal(
        self, member: Member, command: str, /, *fragments: str, **options: Any
    ) -> str:
        """Run a command that must be refused: a private text saying each fragment (no embed),
        and every table exactly as it was (docs/commands.md: a refused command changes
        nothing). Returns the text."""
        before = await self.snapshot()
        text = assert_refused(await self.run(member, command, **options), *fragments)
        assert await self.snapshot() == before, f"/{command} was refused but changed the tables"
        return text

    async def complete(
        self, member: Member, command: str, focused: str, /, **options: Any
    ) -> list[dict]:
        result = self.validated(await self.driver.autocomplete(member, command, focused, **options))
        assert result.choices is not None, f"no autocomplete answer: {result.requests!r}"
        return result.choices

    async def click(self, member: Member, message: Any, custom_id: str) -> Result:
        return self.validated(await self.driver.click(member, message, custom_id))

    async def dm(self, user_id: int, command: str, /, **options: Any) -> Result:
        return self.validated(await self.driver.dm(user_id, command, **options))

    # state, straight through the database

    async def add_character(
        self,
        name: str,
        *,
        owner: Member | None = None,
        guild: Any = None,
        logged: bool = False,
        **fields: Any,
    ) -> Sheet:
        """A character as if it had always been so: no event, unless `logged` (then its
        creation is logged as /character create logs it, by its owner)."""
        owner = owner or self.owner
        guild_id = (guild or owner.guild).id
        described = {k: v for k, v in fields.items() if k in EDITABLE}
        state = {k: v for k, v in fields.items() if k not in EDITABLE}  # vit, flags, stacks…
        async with self.db.transaction(guild_id) as uow:
            sheet = create_sheet(name, owner.user_id, await uow.settings(), **described)
            if state and "stamina" not in state:  # CON wounds lower the maximum (S-2)
                draft = sheet.update(**state, stamina=0)
                state["stamina"] = min(sheet.stamina, draft.max_stamina)
            row = await uow.add_character(sheet.update(**state) if state else sheet)
            if logged:
                inputs = {"name": name, "owner_id": owner.user_id}
                await uow.log(row.id, owner.user_id, "character create", inputs, after=row.sheet)
        return row.sheet

    async def row(self, name: str, *, guild: Any = None) -> CharacterRow:
        """The character's row: its id (buttons, `deleted:<id>`) and sheet."""
        async with self.db.transaction((guild or self.guild).id, read_only=True) as uow:
            row = await uow.character(name, lock=False)
        assert row is not None, f"no character {name!r}"
        return row

    async def sheet(self, name: str, *, guild: Any = None) -> Sheet:
        return (await self.row(name, guild=guild)).sheet

    async def update(self, name: str, *, guild: Any = None, **fields: Any) -> Sheet:
        async with self.db.transaction((guild or self.guild).id) as uow:
            row = await uow.character(name)
            assert row is not None, f"no character {name!r}"
            sheet = row.sheet.update(**fields)
            await uow.save_character(row.id, sheet)
        return sheet

    async def history(
        self,
        name: str | None = None,
        *,
        character_id: int | None = None,
        limit: int = 100,
        bookkeeping: bool = False,
        guild: Any = None,
    ) -> list[Event]:
        """The character's logged events, newest first: its changes (U-2), bookkeeping too
        when asked. By name, or by `character_id` (a deleted character's log stays)."""
        async with self.db.transaction((guild or self.guild).id, read_only=True) as uow:
            if character_id is None:
                assert name is not None, "name the character, or give its id"
                row = await uow.character(name, lock=False)
                assert row is not None, f"no character {name!r}"
                character_id = row.id
            return await uow.history(character_id, limit, bookkeeping=bookkeeping)

    async def events(self, command: str | None = None, *, guild: Any = None) -> list[Event]:
        """Every event of the guild (of one command, if named), oldest first, characters'
        and the guild's own (combat, rounds, days, settings)."""
        guild_id = (guild or self.guild).id
        stmt = select(events).where(events.c.guild_id == guild_id)
        if command is not None:
            stmt = stmt.where(events.c.command == command)
        async with self.db.engine.connect() as conn:
            conn = await conn.execution_options(**{READ_ONLY: True})
            records = (await conn.execute(stmt.order_by(events.c.id))).all()
        return [_event(record) for record in records]

    async def snapshot(self) -> dict[str, list[dict[str, Any]]]:
        """Every row of every table, as the driver returns it (JSON as stored text), in key
        order, plus SQLite's autoincrement counters: equal snapshots, unchanged database."""
        found: dict[str, list[dict[str, Any]]] = {}
        async with self.db.engine.connect() as conn:
            conn = await conn.execution_options(**{READ_ONLY: True})  # no write lock to read
            keys = {t.name: [c.name for c in t.primary_key.columns] for t in metadata.sorted_tables}
            if conn.dialect.name == "sqlite":
                keys["sqlite_sequence"] = ["name"]
            for table, key in keys.items():
                rows = await conn.exec_driver_sql(
                    f"SELECT * FROM {table} ORDER BY {', '.join(key)}"
                )
                found[table] = [dict(row) for row in rows.mappings().all()]
        return found

    async def select(self, member: Member, name: str) -> None:
        async with self.db.transaction(member.guild.id) as uow:
            row = await uow.character(name)
            assert row is not None, f"no character {name!r}"
            await uow.set_active(member.user_id, row.id)

    async def start_combat(self, names: Sequence[str] = (), *, guild: Any = None) -> None:
        guild = guild or self.guild
        async with self.db.transaction(guild.id) as uow:
            combat = await uow.start_combat(guild.channel_id)
            for name in names:
                row = await uow.character(name)
                assert row is not None, f"no character {name!r}"
                await uow.add_member(combat.id, row.id)

    async def settings(self, *, guild: Any = None, **changes: Any) -> GuildSettings:
        """Change the guild settings directly (e.g. gm_role_id=harness.guild.roles["GM"]);
        with no change, read them."""
        async with self.db.transaction((guild or self.guild).id) as uow:
            current = await uow.settings()
            if not changes:
                return current
            settings = GuildSettings.model_validate({**current.model_dump(), **changes})
            await uow.save_settings(settings)
        return settings

    # dice

    def script(self, faces: str, die: str = "MMMHHC") -> ScriptedRandom:
        """The next Narateer dice show these faces (D-5)."""
        self.bot.rng = ScriptedRandom.faces(faces, die)
        return self.bot.rng

    def script_values(self, *values: int) -> ScriptedRandom:
        self.bot.rng = ScriptedRandom(values)
        return self.bot.rng


@contextlib.asynccontextmanager
async def started(url: str, validator: Validator) -> AsyncIterator[Harness]:
    """A bot on `url`, set up and ready; every request it made checked when the block ends."""
    bot = create_bot(url, rng=ScriptedRandom())
    driver = OfflineDriver(bot)
    try:
        await driver.start()  # a start that fails still closes what it opened
        harness = Harness(driver, validator)
        yield harness
        harness.check_all_requests()
    finally:
        await driver.close()


@pytest.fixture
async def harness(tmp_path: Path, spec_validator: Validator) -> Any:
    """A fresh bot on a fresh SQLite file, set up and ready; closed after the test."""
    async with started(f"sqlite+aiosqlite:///{tmp_path / 'lastgasp.db'}", spec_validator) as h:
        yield h


@contextlib.asynccontextmanager
async def postgres_database(server_url: str) -> AsyncIterator[str]:
    """A fresh database on the test server (the bot takes a URL, not a search_path), dropped
    afterwards even when the test fails."""
    import asyncpg

    name = f"lastgasp_discord_{uuid.uuid4().hex[:12]}"
    dsn = make_url(server_url).set(drivername="postgresql").render_as_string(hide_password=False)
    admin = await asyncpg.connect(dsn)
    try:
        await admin.execute(f'CREATE DATABASE "{name}"')
        try:
            yield make_url(server_url).set(database=name).render_as_string(hide_password=False)
        finally:
            await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        await admin.close()


# Both databases, for a fixture's params: PostgreSQL's run is skipped, saying why, without
# TEST_DATABASE_URL (`database`).
BOTH_DATABASES = [
    pytest.param("sqlite", id="sqlite"),
    pytest.param("postgresql", id="postgresql", marks=pytest.mark.postgres),
]


@contextlib.asynccontextmanager
async def database(backend: str, tmp_path: Path) -> AsyncIterator[str]:
    """A fresh database's URL: an SQLite file under `tmp_path`, or a database of its own on the
    test server (skipped without one)."""
    if backend == "sqlite":
        yield f"sqlite+aiosqlite:///{tmp_path / 'lastgasp.db'}"
        return
    if not PG_SERVER:
        pytest.skip(SKIP_PG)
    async with postgres_database(PG_SERVER) as url:
        yield url


@pytest.fixture(params=BOTH_DATABASES)
async def any_harness(
    request: pytest.FixtureRequest, tmp_path: Path, spec_validator: Validator
) -> Any:
    """The harness on SQLite and on PostgreSQL (skipped, saying why, without
    TEST_DATABASE_URL): for the rules whose refusals must leave every table unchanged on both."""
    async with database(request.param, tmp_path) as url, started(url, spec_validator) as h:
        yield h
