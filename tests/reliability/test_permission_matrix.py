"""Permission matrix: every command × (owner, other player, GM by Manage Server, GM by the
guild's GM role, member of another guild).

The expected table is written out from the permission rules of docs/rules.md ("Permissions",
P-1..P-6), not read from the code:
  P-1  a GM has Manage Server or the guild's GM role (every cell sets the role; both kinds of
       GM are columns of the table);
  P-2  nobody reaches a character of another guild;
  P-3  GM only: situational breakdowns, settings, rounds, days, resting everyone, CON wounds,
       reviving, completing quests, setting fields, undo (and, by C-1, starting and ending
       combat; by docs/commands.md, the status board);
  P-4  owner or GM: damage, heal, recovery (within R-8), early, reactions, pushes, spending,
       emotions, relief, start of turn, the name and the abilities; first aid: any member (F-1);
  P-5  the rule fields (max VIT, RES, base CON die, emotion threshold): the owner only while
       the character is Up, not in a Breakdown and in no combat; the GM always;
  P-6  import: any member; the character is the importer's; a player's import takes the build
       and starts the state fresh, the GM's keeps the state.
docs/rules.md is silent on reading and on a few sheet commands; there the table follows
docs/commands.md and says so (marked "docs/commands.md" or "reading").

Each cell runs in a fresh bot whose setup makes the action valid, so "allowed" means the
command really went through (no refusal at all), and "denied" means a refusal naming the rule
that denies it, which left the database unchanged, byte for byte. A member of another guild runs
the command in its own guild: for commands on a character it finds no "Roryn" (denied, P-2);
for commands on no character ("own") it acts on its own guild, and the table's guild must stay
unchanged.

The matrix needs nothing of Discord's API description: without it the bodies go unvalidated
and every cell still runs (test_the_matrix_runs_without_discords_api_description).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from bot.offline import Attachment, Result
from tests.reliability.conftest import (
    assert_answered_once,
    check_bodies,
    is_refusal,
    of_guild,
    snapshot,
)

ROLES = ("owner", "player", "gm", "gm_role", "outsider")
GM = {"gm", "gm_role"}
OWNER_OR_GM = {"owner"} | GM
ANY_MEMBER = {"owner", "player"} | GM
OWN = "own"  # the outsider acts on its own guild
ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Row:
    command: str
    allowed: set[str]
    options: dict[str, Any] = field(default_factory=dict)
    sheet: dict[str, Any] = field(default_factory=dict)  # Roryn's fields besides the defaults
    combat: bool = False  # Roryn in combat in the table's channel
    outsider: str | None = None  # OWN for commands on no character
    before: Callable[[Any], Awaitable[None]] | None = None
    after: Callable[[Any, str, Result], Awaitable[None]] | None = None  # allowed cells only
    owner_denied_by: str = "(P-3)"  # the rule the owner's refusal names, when it is refused
    player_denied_by: str | None = None  # the same for another player, when not P-3 or P-4
    # Whether an allowed command went through, from the snapshots before and after; default:
    # its answer is not a refusal (the board's answers are private notices: its row says).
    went_through: Callable[[dict, dict], bool] | None = None
    note: str = ""
    label: str = ""  # tells two rows of one command apart in the test ids


async def _damaged_by_gm(h: Any) -> None:
    result = await h.run(h.gm, "damage", character="Roryn", amount=1)
    assert not result.ephemeral, result.text()


async def _web_on(h: Any) -> None:
    """The campaign page turned on (WEB_SECRET, WEB_BASE_URL): `/web` makes links."""
    from bot.web.links import Links

    h.bot.web_links = Links(
        "a matrix secret, long enough to be one", hours=24, base_url="https://e.org/"
    )


async def _link_given(h: Any, role: str, result: Result) -> None:
    """The member's own link, privately."""
    [button] = result.card.buttons  # a link button
    assert result.reply.ephemeral and button.custom_id.startswith("https://e.org/login/"), role


async def _empty_combat(h: Any) -> None:
    await h.start_combat([])


async def _board_posted(h: Any) -> None:
    await h.run(h.gm, "board start")
    assert h.driver.channel_messages, "no board was posted"


# P-6: a sheet whose build and state both differ from a new character's.
IMPORTED_BUILD = {"max_vit": 12, "res": 4, "con_base": 10, "insight": 2, "threshold": 5}
IMPORTED_STATE = {"vit": 3, "stamina": 4, "stress": 2, "anger": 1, "con_wounds": 1}


def _import_file(with_state: bool) -> Attachment:
    data: dict[str, Any] = {"name": "Imported", **IMPORTED_BUILD}
    if with_state:
        data.update(IMPORTED_STATE)
    return Attachment("Imported.json", json.dumps(data).encode())


async def _imported_build(h: Any, role: str, result: Result) -> None:
    await _imported_as_p6_says(h, role, result, with_state=False)


async def _imported_state(h: Any, role: str, result: Result) -> None:
    await _imported_as_p6_says(h, role, result, with_state=True)


async def _imported_as_p6_says(h: Any, role: str, result: Result, *, with_state: bool) -> None:
    """The importer owns it; a player's import is the build with a fresh state, a GM's keeps
    the state (P-6)."""
    member = speaker(h, role)
    sheet = await h.sheet("Imported", guild=member.guild)
    assert sheet.owner_id == member.user_id, "the import is not the importer's (P-6)"
    for key, value in IMPORTED_BUILD.items():
        assert getattr(sheet, key) == value, f"{key} of the build was not imported"
    gm = role in GM or role == "outsider"  # the outsider has Manage Server in its own guild
    if gm and with_state:
        for key, value in IMPORTED_STATE.items():
            assert getattr(sheet, key) == value, f"the GM's import lost {key} (P-6)"
        return
    fresh = {"vit": sheet.max_vit, "stamina": sheet.max_stamina, "stress": 0}
    fresh |= {"anger": 0, "con_wounds": 0}
    for key, value in fresh.items():
        assert getattr(sheet, key) == value, f"a player's import took {key} (P-6)"
    if with_state and not gm:
        assert "(P-6)" in result.card.body, "the player is not told (P-6)"


async def _revived_with_stress(h: Any, role: str, result: Result) -> None:
    sheet = await h.sheet("Roryn")
    assert (sheet.dead, sheet.vit, sheet.stress) == (False, 1, 0)


async def _given_to_carol(h: Any, role: str, result: Result) -> None:
    sheet = await h.sheet("Roryn")
    [event] = await h.history("Roryn", limit=1)
    assert sheet.owner_id == event.inputs["to"] != h.owner.user_id, "it did not change hands"


async def _cause_logged(h: Any, role: str, result: Result) -> None:
    [event] = await h.history("Roryn", limit=1)
    assert event.inputs.get("cause") == "daring_throw", event.inputs


R = "Roryn"
CRITICAL = {"vit": -1}
TABLE = [
    # Play (P-4, F-1, P-3, R-8)
    Row("damage", OWNER_OR_GM, {"character": R, "amount": 1}),
    Row("heal", OWNER_OR_GM, {"character": R, "amount": 1}, {"vit": 5}),
    Row("recover", OWNER_OR_GM, {"character": R, "faces": "C M"}, {"vit": 0}, combat=True),
    Row(
        "recover",
        GM,
        {"character": R, "faces": "C M"},
        {"vit": 0},
        owner_denied_by="(R-8)",
        note="R-8: outside combat only the GM calls for a recovery roll",
        label="out-of-combat",
    ),
    Row("aid", ANY_MEMBER, {"character": R, "success": True}, {"vit": 0}, note="F-1"),
    Row("odds", ANY_MEMBER, {"character": R}, CRITICAL, note="reading"),
    Row("turn", OWNER_OR_GM, {"character": R}),
    Row("early", OWNER_OR_GM, {"character": R}, combat=True),
    Row("react", OWNER_OR_GM, {"character": R, "what": "dodge"}),
    Row("push", OWNER_OR_GM, {"character": R, "amount": 1}),
    Row("spend", OWNER_OR_GM, {"character": R, "amount": 1, "reason": "Channel Casting"}),
    Row("emotion", OWNER_OR_GM, {"character": R, "emotion": "fear"}),
    Row(
        "emotion",
        OWNER_OR_GM,
        {"character": R, "emotion": "anger", "stages": 2, "cause": "daring_throw"},
        after=_cause_logged,
        note="E-10",
    ),
    Row("relief", OWNER_OR_GM, {"character": R, "method": "drive"}, {"anger": 1}),
    Row("breakdown", GM, {"character": R, "emotion": "fear", "pressure": 4, "roll": 9}),
    Row(
        "breakdown",
        GM,
        {"emotion": "fear", "pressure": 4, "everyone": True},
        combat=True,
        outsider=OWN,
        note="G-1: the combat's members",
    ),
    Row(
        "breakdown",
        GM,
        {"emotion": "fear", "pressure": 4},
        outsider=OWN,
        note="G-1: the GM's menu",
        label="menu",
    ),
    Row("damage", GM, {"amount": 1, "several": True}, outsider=OWN, note="G-2: the menu"),
    Row("heal", GM, {"amount": 1, "several": True}, {"vit": 5}, outsider=OWN, note="G-2"),
    Row("check", OWNER_OR_GM, {"character": R, "roll": "1d20", "target": 5}, note="K-1, P-4"),
    Row("recap", ANY_MEMBER | {"outsider"}, outsider=OWN, note="reading: the table's events"),
    # Sheet
    Row(
        "character create",
        ANY_MEMBER | {"outsider"},
        {"name": "Newbie"},
        outsider=OWN,
        note="docs/commands.md: anyone creates their own",
    ),
    Row(
        "character create",
        GM | {"outsider"},
        {"name": "Newbie", "owner": "Carol"},
        outsider=OWN,
        note="docs/commands.md: `owner` is the GM's",
    ),
    Row("character show", ANY_MEMBER, {"character": R}, note="reading"),
    Row("character list", ANY_MEMBER | {"outsider"}, outsider=OWN, note="reading"),
    Row("character select", OWNER_OR_GM, {"character": R}, note="P-2: a player's own"),
    Row("character edit", OWNER_OR_GM, {"character": R, "insight": 2}, note="P-4: abilities"),
    Row("character edit", OWNER_OR_GM, {"character": R, "name": "Rory"}, note="P-4: the name"),
    Row(
        "character edit",
        OWNER_OR_GM,
        {"character": R, "max_vit": 14, "res": 3, "con": "d10", "threshold": 6},
        note="P-5: the owner, while Up, not in a Breakdown, in no combat",
    ),
    Row(
        "character edit",
        GM,
        {"character": R, "res": 3},
        CRITICAL,
        owner_denied_by="(P-5)",
        label="down",
        note="P-5: not while down",
    ),
    Row(
        "character edit",
        GM,
        {"character": R, "threshold": 6},
        {"fear": 4, "breakdown": "fear"},
        owner_denied_by="(P-5)",
        label="breakdown",
        note="P-5: not in a Breakdown",
    ),
    Row(
        "character edit",
        GM,
        {"character": R, "max_vit": 12},
        combat=True,
        owner_denied_by="(P-5)",
        label="combat",
        note="P-5: not in a combat",
    ),
    Row(
        "character edit",
        OWNER_OR_GM,
        {"character": R, "humility": 3},
        CRITICAL,
        label="down",
        note="P-5 holds the rule fields only: the abilities stay the owner's",
    ),
    Row("character set", GM, {"character": R, "vit": 3}),
    Row("character delete", OWNER_OR_GM, {"character": R}, note="docs/commands.md"),
    Row("character revive", GM, {"character": R}, {"dead": True}),
    Row(
        "character revive",
        GM,
        {"character": R, "stress": 0},
        {"dead": True, "vit": -3, "stress": 3},
        after=_revived_with_stress,
        note="E-7: the revive's stress option",
    ),
    Row("character export", OWNER_OR_GM, {"character": R}, note="docs/commands.md"),
    Row(
        "character give",
        GM,
        {"character": R, "to": "Carol"},
        after=_given_to_carol,
        note="docs/commands.md: handing a character over is the GM's",
    ),
    Row(
        "character import",
        ANY_MEMBER | {"outsider"},
        {"file": "build"},
        outsider=OWN,
        after=_imported_build,
        label="build",
        note="P-6",
    ),
    Row(
        "character import",
        ANY_MEMBER | {"outsider"},
        {"file": "state"},
        outsider=OWN,
        after=_imported_state,
        label="state",
        note="P-6: a player's import = the build only",
    ),
    Row(
        "character import",
        GM | {"outsider"},
        {"file": "build", "owner": "Carol"},
        outsider=OWN,
        owner_denied_by="(P-6)",
        player_denied_by="(P-6)",
        label="for-a-player",
        note="P-6: importing for another player is the GM's",
    ),
    # GM and table
    Row("combat start", GM | {"outsider"}, outsider=OWN, note="C-1"),
    Row("combat end", GM, combat=True, outsider=OWN, note="C-1"),
    Row("combat status", ANY_MEMBER, combat=True, outsider=OWN, note="reading"),
    Row("combat add", OWNER_OR_GM, {"character": R}, before=_empty_combat, note="docs/commands.md"),
    Row("combat remove", OWNER_OR_GM, {"character": R}, combat=True, note="docs/commands.md"),
    Row("round", GM, combat=True, outsider=OWN),
    Row("day", GM | {"outsider"}, outsider=OWN),
    Row(
        "rest",
        OWNER_OR_GM,
        {"character": R, "kind": "short"},
        {"stamina": 3},
        note="S-9; P-3 keeps only resting the whole guild for the GM",
    ),
    Row(
        "rest",
        GM,
        {"character": R, "kind": "short"},
        {"stamina": 3},
        combat=True,
        owner_denied_by="(S-9)",
        label="in-combat",
        note="S-9: a rest is narrative time; in a combat only the GM rests a character",
    ),
    Row(
        "rest",
        GM | {"outsider"},
        {"kind": "short", "everyone": True},
        {"stamina": 3},
        outsider=OWN,
    ),
    Row("wound", GM, {"character": R}),
    Row("wound", GM, {"character": R, "recover": True}, {"con_wounds": 1, "stamina": 6}),
    Row("quest complete", GM, {"character": R}, {"anger": 2, "stress": 1}),
    Row(
        "history",
        OWNER_OR_GM,
        {"character": R},
        before=_damaged_by_gm,
        note="docs/rules.md is silent: the log is the owner's and the GM's",
    ),
    Row(
        "history",
        OWNER_OR_GM,
        {"character": R, "all": True},
        combat=True,
        before=_damaged_by_gm,
        note="U-2: bookkeeping too, for the same readers",
    ),
    Row("undo", GM, {"character": R}, before=_damaged_by_gm),
    Row("settings show", ANY_MEMBER | {"outsider"}, outsider=OWN, note="reading"),
    Row("settings set", GM | {"outsider"}, {"emotion_threshold": 5}, outsider=OWN),
    Row(
        "board start",
        GM | {"outsider"},
        outsider=OWN,
        went_through=lambda before, after: len(after["boards"]) == len(before["boards"]) + 1,
        note="docs/commands.md: GM",
    ),
    Row(
        "board stop",
        GM,
        before=_board_posted,
        outsider=OWN,
        went_through=lambda before, after: len(after["boards"]) == len(before["boards"]) - 1,
        note="docs/commands.md: GM",
    ),
    Row(
        "web",
        ANY_MEMBER | {"outsider"},
        outsider=OWN,
        before=_web_on,
        went_through=lambda before, after: after == before,  # a link writes nothing
        after=_link_given,
        note="docs/commands.md: any member, a link to what they may see",
    ),
    Row(
        "web",
        ANY_MEMBER | {"outsider"},
        {"revoke": True},
        outsider=OWN,
        before=_web_on,
        went_through=lambda before, after: len(after["web_links"]) == len(before["web_links"]) + 1,
        note="docs/commands.md: any member ends their own links",
    ),
]


def _id(row: Row) -> str:
    extra = "-".join(k for k in row.options if k != "character")
    name = row.command.replace(" ", "-") + (f"[{extra}]" if extra else "")
    return name + (f"[{row.label}]" if row.label else "")


def cells() -> list[Any]:
    return [pytest.param(row, role, id=f"{_id(row)}-{role}") for row in TABLE for role in ROLES]


def test_every_command_of_the_tree_is_in_the_table(harness: Any) -> None:
    from discord import app_commands

    tree = {
        c.qualified_name
        for c in harness.bot.tree.walk_commands()
        if isinstance(c, app_commands.Command)
    }
    assert tree == {row.command for row in TABLE}


def test_every_option_of_the_new_design_is_in_the_table() -> None:
    """revive stress:, emotion cause:, history all:, import, the P-5 cases."""
    given = {(row.command, key) for row in TABLE for key in row.options}
    for needed in [
        ("character revive", "stress"),
        ("emotion", "cause"),
        ("history", "all"),
        ("character import", "file"),
        ("character edit", "max_vit"),
        ("character edit", "res"),
        ("character edit", "con"),
        ("character edit", "threshold"),
    ]:
        assert needed in given, needed
    assert sum(row.owner_denied_by == "(P-5)" for row in TABLE) == 3  # down, Breakdown, combat


def speaker(h: Any, role: str) -> Any:
    return {
        "owner": h.owner,
        "player": h.player,
        "gm": h.gm,
        "gm_role": h.gm_role,
        "outsider": h.outsider,
    }[role]


def options_for(h: Any, row: Row) -> dict[str, Any]:
    options = dict(row.options)
    for key in ("owner", "to"):
        if options.get(key) == "Carol":  # a third player of the table
            options[key] = h.member("Carol")
    if options.get("file") in ("build", "state"):
        options["file"] = _import_file(with_state=options["file"] == "state")
    return options


def denial(row: Row, role: str) -> str:
    """What the refusal of a denied cell names."""
    if role == "outsider":
        return "No character named"  # P-2: its own guild has no Roryn
    if role == "owner":
        return row.owner_denied_by
    if row.player_denied_by is not None:
        return row.player_denied_by
    return "(P-4)" if "owner" in row.allowed or row.owner_denied_by != "(P-3)" else "(P-3)"


@pytest.mark.parametrize(("row", "role"), cells())
async def test_permission_cell(harness: Any, row: Row, role: str) -> None:
    h = harness
    await h.settings(gm_role_id=h.guild.roles["GM"])  # P-1: the role makes Rolf a GM
    await h.add_character("Roryn", owner=h.owner, **row.sheet)
    await h.add_character("Faraway", owner=h.outsider)  # the other guild's own character
    if row.combat:
        await h.start_combat(["Roryn"])
    if row.before is not None:
        await row.before(h)
    member = speaker(h, role)
    before = await snapshot(h.db)
    posted = dict(h.driver.channel_messages)

    result = await h.driver.invoke(member, row.command, **options_for(h, row))
    check_bodies(h.validator, result.requests)
    assert_answered_once(result, f"(/{row.command} by {role})")
    after = await snapshot(h.db)
    said = result.text()

    def went_through() -> bool:
        if row.went_through is not None:
            return row.went_through(before, after)
        return not is_refusal(result)

    if role == "outsider" and row.outsider == OWN:
        # Its own guild: whatever happened there, the table's guild is untouched (P-2).
        assert of_guild(after, h.guild.id) == of_guild(before, h.guild.id), said
        if role in row.allowed:
            assert went_through(), f"refused in its own guild: {said}"
            if row.after is not None:
                await row.after(h, role, result)
        return
    if role in row.allowed:
        assert went_through(), f"/{row.command} by {role} should go through: {said}"
        if row.after is not None:
            await row.after(h, role, result)
        return
    assert is_refusal(result), f"/{row.command} by {role} should be refused: {said}"
    expected = denial(row, role)
    assert expected in result.reply.card.body, f"not refused by {expected}: {said}"
    assert after == before, f"/{row.command} by {role} was refused but changed the database"
    assert h.driver.channel_messages == posted, "a refused command posted in the channel"


async def test_the_gm_role_makes_a_gm(harness: Any) -> None:
    """P-1: without Manage Server, the guild's GM role is enough; without it, not."""
    h = harness
    await h.add_character("Roryn", owner=h.owner)
    refused = await h.driver.invoke(h.gm_role, "character set", character="Roryn", vit=3)
    assert is_refusal(refused) and "(P-3)" in refused.reply.card.body
    await h.settings(gm_role_id=h.guild.roles["GM"])
    allowed = await h.driver.invoke(h.gm_role, "character set", character="Roryn", vit=3)
    assert not is_refusal(allowed), allowed.text()
    assert (await h.sheet("Roryn")).vit == 3


async def test_the_owner_edits_the_rule_fields_again_once_up(harness: Any) -> None:
    """P-5 is about now: the refusal says why, and once the character is Up, out of Breakdown
    and out of combat the same edit goes through."""
    h = harness
    await h.add_character("Roryn", owner=h.owner, vit=-1)
    refused = await h.driver.invoke(h.owner, "character edit", character="Roryn", res=5)
    assert is_refusal(refused) and "(P-5)" in refused.reply.card.body
    assert "Critical" in refused.reply.card.body, "the refusal does not say why"
    await h.update("Roryn", vit=4)
    allowed = await h.driver.invoke(h.owner, "character edit", character="Roryn", res=5)
    assert not is_refusal(allowed), allowed.text()
    assert (await h.sheet("Roryn")).res == 5


# Run in a child process: every description made unfindable (no npm, no copy beside the
# repository, an empty cache), checked to be absent, then the matrix file by pytest.
_WITHOUT_THE_DESCRIPTION = textwrap.dedent(
    """
    import sys
    from pathlib import Path

    import tests.discord_spec as spec

    spec.SHARED_COPY = Path("/nonexistent/discord-api-spec/openapi.json")
    spec.node_tools = lambda: None  # as on a machine without npm and node
    from tests.spec_validation import NoSpec, load_validator

    validator = load_validator()
    assert isinstance(validator, NoSpec), "the description was found"
    print("absent:", validator.reason, flush=True)
    import pytest

    sys.exit(pytest.main(sys.argv[1:]))
    """
)


@pytest.mark.slow
def test_the_matrix_runs_without_discords_api_description(tmp_path: Path) -> None:
    """A clone without Discord's OpenAPI description runs every cell (bodies unvalidated),
    skipping none: the matrix needs nothing of it."""
    env = {**os.environ, "DISCORD_SPEC_CACHE": str(tmp_path / "empty-cache")}
    run = subprocess.run(
        [
            sys.executable,
            "-c",
            _WITHOUT_THE_DESCRIPTION,
            str(Path(__file__).relative_to(ROOT)),
            "-p",
            "no:cacheprovider",
            "-q",
            "-rs",
            "-k",
            "not without_discords_api_description",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    out = run.stdout + run.stderr
    assert run.returncode == 0, out[-3000:]
    assert "absent: npm and node are not both on PATH" in out, out[:2000]
    assert "Discord's OpenAPI description is absent" in out, out[:2000]
    summary = next(line for line in reversed(out.splitlines()) if " passed" in line)
    assert "passed" in summary and "skipped" not in summary, summary
    assert f"{len(cells()) + 4} passed" in summary, summary
