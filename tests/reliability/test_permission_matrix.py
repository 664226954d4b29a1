"""Permission matrix: every command × (owner, other player, GM, member of another guild).

The expected table is written out from RULES.md section 11, not read from the code:
  P-2  nobody reaches a character of another guild;
  P-3  GM only: breakdowns, settings, rounds, days, resting everyone, CON wounds, reviving,
       completing quests, setting fields, undo (and, by C-1, starting and ending combat);
  P-4  owner or GM: damage, heal, recovery, early, reactions, pushes, spending, emotions,
       relief, start of turn, sheet fields that are not state; first aid: any member (F-1).
Section 11 is silent on reading and on a few sheet commands; there the table follows
COMMANDS.md and says so (marked "COMMANDS.md" or "reading").

Each cell runs in a fresh bot whose setup makes the action valid, so "allowed" means the
command really went through (no refusal at all), and "denied" means a permission refusal
that left the database unchanged, byte for byte. A member of another guild runs the command
in its own guild: for commands on a character it finds no "Roryn" (denied, P-2); for commands
on no character ("own") it acts on its own guild, and the table's guild must stay unchanged.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import pytest

from bot.offline import Attachment, Result
from rules.models import Sheet
from tests.reliability.conftest import check_bodies, of_guild, snapshot

ROLES = ("owner", "player", "gm", "outsider")
OWNER_OR_GM = {"owner", "gm"}
GM = {"gm"}
ANY_MEMBER = {"owner", "player", "gm"}
OWN = "own"  # the outsider acts on its own guild
DENIALS = ("(P-3)", "(P-4)", "No character named")


@dataclass(frozen=True)
class Row:
    command: str
    allowed: set[str]
    options: dict[str, Any] = field(default_factory=dict)
    sheet: dict[str, Any] = field(default_factory=dict)  # Roryn's fields besides the defaults
    combat: bool = False  # Roryn in combat in the table's channel
    outsider: str | None = None  # OWN for commands on no character
    before: Callable[[Any], Awaitable[None]] | None = None
    note: str = ""


async def _damaged_by_gm(h: Any) -> None:
    result = await h.run(h.gm, "damage", character="Roryn", amount=1)
    assert not result.ephemeral, result.text()


async def _empty_combat(h: Any) -> None:
    await h.start_combat([])


def _import_file() -> Attachment:
    sheet = Sheet(name="Imported", owner_id=1).model_dump(mode="json")
    return Attachment("Imported.json", json.dumps(sheet).encode())


R = "Roryn"
TABLE = [
    # Play (P-4, F-1, P-3)
    Row("damage", OWNER_OR_GM, {"character": R, "amount": 1}),
    Row("heal", OWNER_OR_GM, {"character": R, "amount": 1}, {"vit": 5}),
    Row("recover", OWNER_OR_GM, {"character": R, "faces": "C M"}, {"vit": 0}, combat=True),
    Row("aid", ANY_MEMBER, {"character": R, "success": True}, {"vit": 0}, note="F-1"),
    Row("odds", ANY_MEMBER, {"character": R}, {"vit": -1}, note="reading"),
    Row("turn", OWNER_OR_GM, {"character": R}),
    Row("early", OWNER_OR_GM, {"character": R}, combat=True),
    Row("react", OWNER_OR_GM, {"character": R, "what": "dodge"}),
    Row("push", OWNER_OR_GM, {"character": R, "amount": 1}),
    Row("spend", OWNER_OR_GM, {"character": R, "amount": 1, "reason": "Channel Casting"}),
    Row("emotion", OWNER_OR_GM, {"character": R, "emotion": "fear"}),
    Row("relief", OWNER_OR_GM, {"character": R, "method": "drive"}, {"anger": 1}),
    Row("breakdown", GM, {"character": R, "emotion": "fear", "pressure": 4, "roll": 9}),
    # Sheet
    Row(
        "character create",
        ANY_MEMBER | {"outsider"},
        {"name": "Newbie"},
        outsider=OWN,
        note="COMMANDS.md: anyone creates their own",
    ),
    Row(
        "character create",
        GM,
        {"name": "Newbie", "owner": "Carol"},
        outsider=OWN,
        note="COMMANDS.md: `owner` is the GM's",
    ),
    Row("character show", ANY_MEMBER, {"character": R}, note="reading"),
    Row("character list", ANY_MEMBER | {"outsider"}, outsider=OWN, note="reading"),
    Row("character select", OWNER_OR_GM, {"character": R}, note="P-2: a player's own"),
    Row("character edit", OWNER_OR_GM, {"character": R, "insight": 2}),
    Row("character set", GM, {"character": R, "vit": 3}),
    Row("character delete", OWNER_OR_GM, {"character": R}, note="COMMANDS.md"),
    Row("character revive", GM, {"character": R}, {"dead": True}),
    Row("character export", OWNER_OR_GM, {"character": R}, note="COMMANDS.md"),
    Row("character import", ANY_MEMBER | {"outsider"}, {"file": "import"}, outsider=OWN),
    # GM and table
    Row("combat start", GM | {"outsider"}, outsider=OWN, note="C-1"),
    Row("combat end", GM, combat=True, outsider=OWN, note="C-1"),
    Row("combat status", ANY_MEMBER, combat=True, outsider=OWN, note="reading"),
    Row("combat add", OWNER_OR_GM, {"character": R}, before=_empty_combat, note="COMMANDS.md"),
    Row("combat remove", OWNER_OR_GM, {"character": R}, combat=True, note="COMMANDS.md"),
    Row("round", GM, combat=True, outsider=OWN),
    Row("day", GM | {"outsider"}, outsider=OWN),
    Row(
        "rest",
        OWNER_OR_GM,
        {"character": R, "kind": "short"},
        {"stamina": 3},
        note="S-9; P-3 keeps only resting the whole guild for the GM",
    ),
    Row("rest", GM, {"kind": "short", "everyone": True}, {"stamina": 3}, outsider=OWN),
    Row("wound", GM, {"character": R}),
    Row("quest complete", GM, {"character": R}, {"anger": 2, "stress": 1}),
    Row(
        "history",
        OWNER_OR_GM,
        {"character": R},
        before=_damaged_by_gm,
        note="section 11 is silent: the log is the owner's and the GM's",
    ),
    Row("undo", GM, {"character": R}, before=_damaged_by_gm),
    Row("settings show", ANY_MEMBER | {"outsider"}, outsider=OWN, note="reading"),
    Row("settings set", GM | {"outsider"}, {"emotion_threshold": 5}, outsider=OWN),
]


def cells() -> list[Any]:
    params = []
    for row in TABLE:
        extra = "-".join(f"{k}" for k in row.options if k != "character")
        name = row.command.replace(" ", "-") + (f"[{extra}]" if extra else "")
        for role in ROLES:
            params.append(pytest.param(row, role, id=f"{name}-{role}"))
    return params


def test_every_command_of_the_tree_is_in_the_table(harness: Any) -> None:
    from discord import app_commands

    tree = {
        c.qualified_name
        for c in harness.bot.tree.walk_commands()
        if isinstance(c, app_commands.Command)
    }
    assert tree == {row.command for row in TABLE}


def speaker(h: Any, role: str) -> Any:
    return {"owner": h.owner, "player": h.player, "gm": h.gm, "outsider": h.outsider}[role]


def options_for(h: Any, row: Row) -> dict[str, Any]:
    options = dict(row.options)
    if options.get("owner") == "Carol":  # a third player of the table
        options["owner"] = h.member("Carol")
    if options.get("file") == "import":
        options["file"] = _import_file()
    return options


def is_refusal(result: Result) -> bool:
    reply = result.reply
    return reply.ephemeral and not (reply.embeds or reply.components or reply.files)


@pytest.mark.parametrize(("row", "role"), cells())
async def test_permission_cell(harness: Any, row: Row, role: str) -> None:
    h = harness
    await h.add_character("Roryn", owner=h.owner, **row.sheet)
    if row.combat:
        await h.start_combat(["Roryn"])
    if row.before is not None:
        await row.before(h)
    member = speaker(h, role)
    before = await snapshot(h.db)

    result = await h.driver.invoke(member, row.command, **options_for(h, row))
    check_bodies(h.validator, result.requests)
    after = await snapshot(h.db)
    said = result.text()

    if role == "outsider" and row.outsider == OWN:
        # Its own guild: whatever happened there, the table's guild is untouched (P-2).
        assert of_guild(after, h.guild.id) == of_guild(before, h.guild.id), said
        if role in row.allowed:
            assert not is_refusal(result), f"refused in its own guild: {said}"
        return
    if role in row.allowed:
        assert not is_refusal(result), f"/{row.command} by {role} should go through: {said}"
    else:
        assert is_refusal(result), f"/{row.command} by {role} should be refused: {said}"
        assert any(d in result.reply.content for d in DENIALS), f"not a permission refusal: {said}"
        assert after == before, f"/{row.command} by {role} was refused but changed the database"


async def test_the_gm_role_makes_a_gm(harness: Any) -> None:
    """P-1: without Manage Server, the guild's GM role is enough; without it, not."""
    h = harness
    await h.add_character("Roryn", owner=h.owner)
    refused = await h.driver.invoke(h.gm_role, "character set", character="Roryn", vit=3)
    assert is_refusal(refused) and "(P-3)" in refused.reply.content
    await h.settings(gm_role_id=h.guild.roles["GM"])
    allowed = await h.driver.invoke(h.gm_role, "character set", character="Roryn", vit=3)
    assert not is_refusal(allowed), allowed.text()
    assert (await h.sheet("Roryn")).vit == 3
