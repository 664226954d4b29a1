"""A deterministic table for the golden replies (tests/discord/test_golden.py).

Everything a golden file holds must come out the same on every run and every machine: so the
bot runs on a fresh SQLite file with a fixed clock and scripted dice, the guild, its channel,
its GM role and every speaker have fixed ids, the status board's worker never edits on its own
(only `flush` does), and what is recorded leaves out what Discord or the driver invents (message
ids, interaction tokens). The delete question's deadline is read from the bot's clock: fixed
too, so it is recorded as it is.

    async with table(tmp_path / "golden.db", check) as t:   # check(request): the spec, pings
        await t.add_character("Roryn", vit=1)   # straight to the database, not recorded
        t.script("C H")                         # the next Narateer faces (D-5)
        result = await t.run(t.alice, "damage", character="Roryn", amount=1)
        await t.press(t.alice, result.reply, "Recovery roll")   # or t.click(…, custom_id)
        await t.flush_boards()                  # the board's edit, recorded as a step
        t.steps                                 # what the golden file holds

A step is what one interaction (or a board flush) produced: who did what, as a player would
type it, and every message as the channel shows it (see `message_record`). `record=False` runs a
command as setup only.
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import AsyncIterator, Callable, Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bot.app import create_bot
from bot.offline import EPHEMERAL, Member, Message, OfflineDriver, Request, Result
from bot.offline.layout import IS_COMPONENTS_V2
from rules.dice import ScriptedRandom
from rules.models import GuildSettings, Sheet
from rules.sheet_ops import EDITABLE, create_sheet

# Fixed ids: they show in custom ids (the board's "Next round"), mentions and escapes.
GUILD_ID = 700_000_000_000_000_001
CHANNEL_ID = 700_000_000_000_000_002
GM_ROLE_ID = 700_000_000_000_000_003
ALICE_ID = 700_000_000_000_000_101
BOB_ID = 700_000_000_000_000_102
GEMMA_ID = 700_000_000_000_000_103
# The application's emoji, for the moment that draws dice as pictures.
EMOJI_IDS = {
    "lg_miss": 700_000_000_000_000_901,
    "lg_hit": 700_000_000_000_000_902,
    "lg_crit": 700_000_000_000_000_903,
    "lg_miss_rerolled": 700_000_000_000_000_904,
}
NOW = datetime(2026, 3, 14, 19, 30, tzinfo=UTC)  # the bot's clock, frozen
BOARD_INTERVAL = 3600.0  # the board worker never edits during a moment: `flush_boards` does

STYLES = {1: "primary", 2: "secondary", 3: "success", 4: "danger", 5: "link", 6: "premium"}
# How a message got there matters to the channel only as "the answer", "another message after
# it", "the clicked message, edited" and "the bot's own message in the channel". A reply that
# was deferred first (a slow machine) reads exactly like one that was not.
KINDS = {
    "reply": "reply",
    "deferred": "reply",
    "followup": "followup",
    "update": "update",
    "channel": "channel",
}


def fixed_clock() -> datetime:
    return NOW


# --- what a message looks like in the channel, as JSON --------------------------------------


def colour(value: int | None) -> str | None:
    return None if value is None else f"#{value:06x}"


def button_record(item: dict[str, Any]) -> dict[str, Any]:
    """A button: label, style (by name), custom id (as sent: every part is fixed here, the
    delete deadline too, from the bot's frozen clock)."""
    entry: dict[str, Any] = {
        "label": item.get("label"),
        "style": STYLES.get(item.get("style", 0), item.get("style")),
    }
    for key in ("custom_id", "emoji", "url"):
        if item.get(key):
            entry[key] = item[key]
    if item.get("disabled"):
        entry["disabled"] = True
    return entry


def component_record(component: dict[str, Any]) -> Any:
    """One layout component as a reader of the file sees it: a container by its colour
    (`#rrggbb`), a text by its markdown, a separator, a gallery or file by its attachment, a
    section's text and accessory, a row's buttons or menu."""
    kind = component.get("type")
    children = [component_record(c) for c in component.get("components", [])]
    if kind == 17:
        return {"container": colour(component.get("accent_color")), "items": children}
    if kind == 10:
        return {"text": component.get("content", "")}
    if kind == 14:
        return "separator"
    if kind == 9:
        return {"section": children, "accessory": component_record(component["accessory"])}
    if kind == 12:
        return {"gallery": [i["media"]["url"] for i in component.get("items", [])]}
    if kind == 13:
        return {"file": component.get("file", {}).get("url")}
    if kind == 1:
        return {"row": children}
    if kind == 2:
        return button_record(component)
    if kind == 3:
        return {
            "select": component.get("custom_id"),
            "placeholder": component.get("placeholder"),
            "options": [o.get("label") for o in component.get("options", [])],
            "max_values": component.get("max_values", 1),
        }
    return component


def attachment_record(name: str, data: bytes) -> dict[str, Any]:
    """A file by name and size; its SHA-256 too, so a changed picture shows as a diff."""
    return {"filename": name, "size": len(data), "sha256": hashlib.sha256(data).hexdigest()}


def message_record(message: Message) -> dict[str, Any]:
    """One message as the channel shows it; nothing the driver or Discord invents (ids)."""
    record: dict[str, Any] = {
        "kind": KINDS.get(message.kind, message.kind),
        "visibility": "ephemeral" if message.ephemeral else "public",
    }
    other_flags = message.flags & ~EPHEMERAL & ~IS_COMPONENTS_V2  # every message is a layout
    if other_flags:
        record["flags"] = other_flags
    if message.content:
        record["content"] = message.content
    if message.embeds:
        record["embeds"] = message.embeds
    if message.components:
        record["card"] = [component_record(c) for c in message.components]
    if message.files:
        record["attachments"] = [attachment_record(name, data) for name, data in message.files]
    return record


def option_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Member):
        return f"@{value.name}"
    return str(value)


def command_text(command: str, options: dict[str, Any]) -> str:
    """`/damage character:Roryn amount:3`, as the player typed it."""
    parts = [f"/{command}"]
    parts += [f"{name}:{option_text(v)}" for name, v in options.items() if v is not None]
    return " ".join(parts)


def button_label(message: Message, custom_id: str) -> str | None:
    return next((b.label for b in message.card.buttons if b.custom_id == custom_id), None)


def button_id(message: Message, label: str) -> str:
    """The custom id of the button labelled `label` (fails saying which buttons there are)."""
    found = {b.label: b.custom_id for b in message.card.buttons}
    assert label in found, f"no button {label!r} on the message; it has {sorted(found)}"
    return found[label]


# --- the table -----------------------------------------------------------------------------


class Table:
    """One guild with fixed ids, three speakers, a recorder of steps. See the module docstring."""

    def __init__(self, driver: OfflineDriver, check: Callable[[Request], None]) -> None:
        self.driver = driver
        self.bot: Any = driver.bot
        self.check = check
        self.guild = driver.add_guild(
            GUILD_ID, name="The Table", roles={"GM": GM_ROLE_ID}, channel_id=CHANNEL_ID
        )
        self.alice = driver.member(self.guild, "Alice", user_id=ALICE_ID)
        self.bob = driver.member(self.guild, "Bob", user_id=BOB_ID)
        self.gemma = driver.member(self.guild, "Gemma", user_id=GEMMA_ID, manage_guild=True)
        self.steps: list[dict[str, Any]] = []
        self._checked: set[int] = set()
        self._channel_seen: dict[int, tuple[int, str]] = {}

    # running things

    async def run(
        self, member: Member, command: str, /, *, record: bool = True, **options: Any
    ) -> Result:
        result = await self.driver.invoke(member, command, **options)
        self._validate(result.requests)
        if record:
            step = {"by": member.name, "command": command_text(command, options)}
            self._record(step, result)
        else:
            self._channel_changes()  # setup: the board it made is not this moment's
        return result

    async def click(
        self, member: Member, message: Message, custom_id: str, /, *, record: bool = True
    ) -> Result:
        label = button_label(message, custom_id)
        result = await self.driver.click(member, message, custom_id)
        self._validate(result.requests)
        if record:
            step = {"by": member.name, "click": label, "custom_id": custom_id}
            self._record(step, result)
        return result

    async def choose(self, member: Member, message: Message, *labels: str) -> Result:
        """Choose the options of the message's select menu whose labels contain each of
        `labels` (one each), as the GM picks characters in a scene's menu."""
        [menu] = message.card.selects
        values = []
        for wanted in labels:
            [value] = [v for label, v in menu.options if wanted in label]
            values.append(value)
        result = await self.driver.select(member, message, menu.custom_id, values)
        self._validate(result.requests)
        self._record({"by": member.name, "choose": list(labels)}, result)
        return result

    async def press(self, member: Member, message: Message, label: str) -> Result:
        """Click the button labelled `label` on `message`."""
        return await self.click(member, message, button_id(message, label))

    async def flush_boards(self) -> None:
        """The status board worker's pending edits, now; recorded as a step of their own."""
        await self.bot.boards.flush()
        self._validate(self.driver.requests)
        changed = self._channel_changes()
        self.steps.append({"by": "the bot", "board edit": True, "channel": changed})

    def _record(self, step: dict[str, Any], result: Result) -> None:
        messages = [message_record(m) for m in result.messages]
        if messages and messages[0]["kind"] == "followup":
            # A private answer after a public defer (a slow machine) comes as a followup, the
            # deferred message deleted: to the channel, it is the answer.
            messages[0]["kind"] = "reply"
        step["messages"] = messages
        changed = self._channel_changes()
        if changed:
            step["channel"] = changed
        self.steps.append(step)

    def _channel_changes(self) -> list[dict[str, Any]]:
        """The bot's own channel messages posted or edited since the last look."""
        changed = []
        for message in self.driver.channel_messages.values():
            record = message_record(message)
            text = repr(record)
            seen = self._channel_seen.get(message.id)
            if seen is None or seen != (message.edits, text):
                entry = {"posted" if seen is None else "edited": record}
                changed.append(entry)
                self._channel_seen[message.id] = (message.edits, text)
        return changed

    def _validate(self, requests: Iterable[Request]) -> None:
        for request in requests:
            if id(request) not in self._checked:
                self.check(request)
                self._checked.add(id(request))

    # dice

    def script(self, faces: str, die: str = "MMMHHC") -> ScriptedRandom:
        """The next Narateer dice show these faces (D-5)."""
        self.bot.rng = ScriptedRandom.faces(faces, die)
        return self.bot.rng

    def script_values(self, *values: int) -> ScriptedRandom:
        """Raw values for dice expressions: `1d20` → the next value."""
        self.bot.rng = ScriptedRandom(values)
        return self.bot.rng

    # state, straight through the database (setup, not recorded)

    async def add_character(
        self, name: str, *, owner: Member | None = None, **fields: Any
    ) -> Sheet:
        """A character as if it had always been so (no event): described fields (res,
        max_vit…) through create_sheet, state fields (vit, stress, stacks, flags) on top."""
        owner = owner or self.alice
        described = {k: v for k, v in fields.items() if k in EDITABLE}
        state = {k: v for k, v in fields.items() if k not in EDITABLE}
        async with self.bot.db.transaction(self.guild.id) as uow:
            sheet = create_sheet(name, owner.user_id, await uow.settings(), **described)
            if state and "stamina" not in state:  # CON wounds lower the maximum (S-2)
                draft = sheet.update(**state, stamina=0)
                state["stamina"] = min(sheet.stamina, draft.max_stamina)
            row = await uow.add_character(sheet.update(**state) if state else sheet)
        return row.sheet

    async def character_id(self, name: str) -> int:
        async with self.bot.db.transaction(self.guild.id, read_only=True) as uow:
            row = await uow.character(name, lock=False)
        assert row is not None, f"no character {name!r}"
        return int(row.id)

    async def start_combat(self, names: Iterable[str] = ()) -> None:
        async with self.bot.db.transaction(self.guild.id) as uow:
            combat = await uow.start_combat(self.guild.channel_id)
            for name in names:
                row = await uow.character(name)
                assert row is not None, f"no character {name!r}"
                await uow.add_member(combat.id, row.id)

    async def settings(self, **changes: Any) -> GuildSettings:
        async with self.bot.db.transaction(self.guild.id) as uow:
            current = await uow.settings()
            settings = GuildSettings.model_validate({**current.model_dump(), **changes})
            await uow.save_settings(settings)
        return settings


@contextlib.asynccontextmanager
async def table(
    database: Path, check: Callable[[Request], None], *, emoji: bool = False
) -> AsyncIterator[Table]:
    """A started bot on a fresh SQLite file at `database`, a Table on it; closed afterwards.
    With `emoji`, the application has the dice emoji before the bot starts (so the dice are
    drawn as `<:lg_crit:…>`)."""
    bot = create_bot(
        f"sqlite+aiosqlite:///{database}",
        rng=ScriptedRandom(),
        clock=fixed_clock,
        board_interval=BOARD_INTERVAL,
    )
    driver = OfflineDriver(bot)
    if emoji:
        driver.emoji.update(EMOJI_IDS)
    await driver.start()
    try:
        yield Table(driver, check)
    finally:
        await driver.close()
