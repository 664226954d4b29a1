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
        assert "VIT 1 → -2" in result.embed["description"]
        assert (await harness.sheet("Roryn")).vit == -2

        refused = await harness.run(harness.player, "damage", character="Roryn", amount=1)
        assert refused.ephemeral and "owner" in refused.reply.content

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

Checks (module functions here): assert_refused(result, *fragments) -> the ephemeral text, no
embed; assert_no_pings(request) runs on every body. Fixtures (tests/conftest.py): spec_validator,
the session's; strict_spec_validator, the same or a skip saying why the spec is absent (for tests
about validation itself).

Reading the result (`bot.offline.Result`):
    result.reply (first message) .content .embeds .embed .ephemeral .components .files
    result.messages (all, in order: reply or deferred+edited original, then followups)
    result.requests (raw captured HTTP: method, path template, payload) ; result.text()

Setting up state without commands (straight through bot.db, in the harness guild by default):
    await harness.add_character(name, owner=member, **sheet_fields) -> Sheet
        any Sheet field: described ones (res, max_vit…) through create_sheet, state (vit,
        stamina, stacks, breakdown, flags) set on top; guild=harness.other_guild elsewhere
    await harness.sheet(name) -> Sheet ; await harness.update(name, **fields) -> Sheet
    await harness.history(name) -> the logged events, newest first ([] = nothing changed)
    await harness.settings(gm_role_id=harness.guild.roles["GM"], death_rule="instant")
    await harness.select(member, name)            the member's active character
    await harness.start_combat(["Roryn"])         combat in harness.guild's channel
    harness.script("C H M")                       the next Narateer faces (default die MMMHHC)
    harness.script_values(7, 3)                   raw values for randint/randrange (d10 → 7)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import pytest

from bot.app import create_bot
from bot.offline import Member, OfflineDriver, Request, Result
from rules.dice import ScriptedRandom
from rules.models import Sheet
from rules.sheet_ops import EDITABLE, create_sheet
from tests.spec_validation import Validator


def assert_no_pings(request: Request) -> None:
    """Every message body the bot sends allows no mention at all (COMMANDS.md: never pings)."""
    body = request.payload
    if not isinstance(body, dict):
        return
    if request.path.endswith("/callback"):
        if body.get("type") not in (4, 7):  # only these two carry a message
            return
        body = body.get("data") or {}
    elif not request.path.startswith("/webhooks/") or request.method not in ("POST", "PATCH"):
        return
    if "content" in body or "embeds" in body:
        assert body.get("allowed_mentions") == {"parse": []}, f"may ping: {body!r}"


def assert_refused(result: Result, *fragments: str) -> str:
    """A refusal: one ephemeral text reply, no embed, saying each fragment."""
    reply = result.reply
    assert reply.ephemeral, f"refusal is public: {reply!r}"
    assert not reply.embeds
    for fragment in fragments:
        assert fragment in reply.content, f"{fragment!r} not in {reply.content!r}"
    return reply.content


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

    @property
    def db(self) -> Any:
        return self.bot.db

    def member(self, name: str, *, manage_guild: bool = False, roles: Iterable[str] = ()) -> Member:
        return self.driver.member(self.guild, name, manage_guild=manage_guild, roles=roles)

    # interactions, every body validated against the spec

    def validated(self, result: Result) -> Result:
        for request in result.requests:
            self.validator.check(request)
            assert_no_pings(request)
        return result

    async def run(self, member: Member, command: str, /, **options: Any) -> Result:
        return self.validated(await self.driver.invoke(member, command, **options))

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
        self, name: str, *, owner: Member | None = None, guild: Any = None, **fields: Any
    ) -> Sheet:
        owner = owner or self.owner
        guild_id = (guild or owner.guild).id
        described = {k: v for k, v in fields.items() if k in EDITABLE}
        state = {k: v for k, v in fields.items() if k not in EDITABLE}  # vit, flags, stacks…
        async with self.db.transaction(guild_id) as uow:
            sheet = create_sheet(name, owner.user_id, await uow.settings(), **described)
            row = await uow.add_character(sheet.update(**state) if state else sheet)
        return row.sheet

    async def sheet(self, name: str, *, guild: Any = None) -> Sheet:
        async with self.db.transaction((guild or self.guild).id, read_only=True) as uow:
            row = await uow.character(name, lock=False)
        assert row is not None, f"no character {name!r}"
        return row.sheet

    async def update(self, name: str, *, guild: Any = None, **fields: Any) -> Sheet:
        async with self.db.transaction((guild or self.guild).id) as uow:
            row = await uow.character(name)
            assert row is not None, f"no character {name!r}"
            sheet = row.sheet.update(**fields)
            await uow.save_character(row.id, sheet)
        return sheet

    async def history(self, name: str, *, guild: Any = None) -> list[Any]:
        """The character's logged events, newest first."""
        async with self.db.transaction((guild or self.guild).id, read_only=True) as uow:
            row = await uow.character(name, lock=False)
            assert row is not None, f"no character {name!r}"
            return await uow.history(row.id, 100)

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

    async def settings(self, *, guild: Any = None, **changes: Any) -> Any:
        """Change the guild settings directly (e.g. gm_role_id=harness.guild.roles["GM"])."""
        async with self.db.transaction((guild or self.guild).id) as uow:
            current = await uow.settings()
            settings = type(current).model_validate({**current.model_dump(), **changes})
            await uow.save_settings(settings)
        return settings

    # dice

    def script(self, faces: str, die: str = "MMMHHC") -> None:
        """The next Narateer dice show these faces (D-5)."""
        self.bot.rng = ScriptedRandom.faces(faces, die)

    def script_values(self, *values: int) -> None:
        self.bot.rng = ScriptedRandom(values)


@pytest.fixture
async def harness(tmp_path: Path, spec_validator: Validator) -> Any:
    """A fresh bot on a fresh SQLite file, set up and ready; closed after the test."""
    bot = create_bot(f"sqlite+aiosqlite:///{tmp_path / 'lastgasp.db'}", rng=ScriptedRandom())
    driver = OfflineDriver(bot)
    await driver.start()
    try:
        yield Harness(driver, spec_validator)
    finally:
        await driver.close()
