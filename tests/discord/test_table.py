"""The GM's table through the real command tree: `/combat …` (C-1, C-2), `/round` (S-4, S-5,
R-8), `/day` (C-4), `/rest` (S-9), `/wound` (S-2, S-3), `/quest complete` (E-5), `/history`,
`/undo`, for the owner, another player, the GM and a member of another guild (P-1..P-4).
"""

from __future__ import annotations

import dataclasses

import pytest
from sqlalchemy import select

from bot.db.tables import events
from bot.offline import snowflake
from rules.models import Emotion, ReactionReset
from tests.discord._table_helpers import public, refused
from tests.discord.conftest import history_entries

NOT_HERE = "No character named"
NO_COMBAT = "no combat in this channel"


async def combat_of(harness, name: str, guild=None):
    async with harness.db.transaction((guild or harness.guild).id, read_only=True) as uow:
        row = await uow.character(name, lock=False)
        return await uow.combat_of(row.id)


async def this_combat(harness, guild=None):
    guild = guild or harness.guild
    async with harness.db.transaction(guild.id, read_only=True) as uow:
        return await uow.combat(guild.channel_id)


async def logged(harness, command: str) -> list:
    async with harness.db.engine.connect() as conn:
        stmt = select(events).where(events.c.command == command).order_by(events.c.id)
        return list((await conn.execute(stmt)).all())


OTHER_CHANNEL = snowflake()


def elsewhere(member):
    """The same member speaking in another channel of the same guild."""
    guild = dataclasses.replace(member.guild, channel_id=OTHER_CHANNEL)
    return dataclasses.replace(member, guild=guild)


# --- /combat -------------------------------------------------------------------------------


async def test_combat_start_and_end_are_the_gms(harness):
    refused(await harness.run(harness.player, "combat start"), "P-3")
    assert await this_combat(harness) is None
    card = public(await harness.run(harness.gm, "combat start"))
    assert card.title == "Combat"
    assert card.lines[0] == ("**Combat starts in this channel, round 1.**")
    refused(await harness.run(harness.gm, "combat start"), "already running")
    refused(await harness.run(harness.owner, "combat end"), "P-3")
    assert (await this_combat(harness)).round == 1
    public(await harness.run(harness.gm, "combat end"))
    assert await this_combat(harness) is None
    refused(await harness.run(harness.gm, "combat end"), NO_COMBAT)
    assert [e.character_id for e in await logged(harness, "combat start")] == [None]


async def test_combat_is_per_guild_and_channel(harness):
    public(await harness.run(harness.outsider, "combat start"))  # its own guild's GM
    assert await this_combat(harness) is None
    refused(await harness.run(harness.owner, "combat status"), NO_COMBAT)
    await harness.settings(gm_role_id=harness.guild.roles["GM"])
    public(await harness.run(harness.gm_role, "combat start"))
    public(await harness.run(elsewhere(harness.gm), "combat start"))  # a second channel


async def test_combat_status_for_anyone(harness):
    await harness.add_character("Roryn")
    await harness.add_character("Bo", owner=harness.player, vit=0)
    await harness.start_combat(["Roryn", "Bo"])
    await harness.update("Roryn", early_this_round=True)
    card = public(await harness.run(harness.player, "combat status"))
    assert card.title == "Combat · round 1"
    assert card.lines == [
        "🟡 Bo · Unconscious · VIT 0/10 · Stamina 8/8",  # one state mark per line, and its name
        "🟢 Roryn · Up · VIT 10/10 · Stamina 8/8 · acts early",
    ]


async def test_combat_add_and_remove_by_owner_or_gm(harness):
    await harness.add_character("Roryn")
    await harness.add_character("Bo", owner=harness.player)
    public(await harness.run(harness.gm, "combat start"))
    card = public(await harness.run(harness.owner, "combat add", character="Roryn"))
    assert card.title == "🟢 Roryn · Combat"
    assert card.body == (
        "**Roryn joins the combat in this channel (round 1).**\nIts next reaction costs 1 Stamina."
    )
    assert card.small == "Rules: C-2 · S-5"
    public(await harness.run(harness.gm, "combat add", character="Bo"))
    assert (await combat_of(harness, "Bo")) == await this_combat(harness)
    left = public(await harness.run(harness.owner, "combat remove", character="Roryn"))
    assert left.title == "🟢 Roryn · Combat"
    assert left.body == (
        "**Roryn leaves the combat in this channel (round 1).**\nIts next reaction costs 1 Stamina."
    )
    assert left.small == "Rules: C-2 · S-5"
    public(await harness.run(harness.gm, "combat remove", character="Bo"))
    assert await combat_of(harness, "Roryn") is None and await combat_of(harness, "Bo") is None
    assert len(await logged(harness, "combat add")) == 2


async def test_combat_add_and_remove_refusals(harness):
    await harness.add_character("Roryn")
    refused(await harness.run(harness.owner, "combat add", character="Roryn"), NO_COMBAT)
    await harness.start_combat()
    refused(await harness.run(harness.player, "combat add", character="Roryn"), "P-4")
    refused(await harness.run(harness.outsider, "combat add", character="Roryn"), NOT_HERE)
    refused(await harness.run(harness.owner, "combat remove", character="Roryn"), "not in")
    public(await harness.run(elsewhere(harness.gm), "combat start"))
    public(await harness.run(elsewhere(harness.owner), "combat add", character="Roryn"))
    # C-2: at most one combat at a time
    refused(await harness.run(harness.owner, "combat add", character="Roryn"), "C-2")
    refused(await harness.run(harness.owner, "combat remove", character="Roryn"), "not in")
    refused(await harness.run(harness.player, "combat remove", character="Roryn"), "P-4")
    assert (await combat_of(harness, "Roryn")).channel_id != harness.guild.channel_id


async def test_combat_end_clears_the_round_flags(harness):
    await harness.add_character("Roryn")
    await harness.start_combat(["Roryn"])
    await harness.update("Roryn", early_this_round=True, recovered_this_round=True)
    card = public(await harness.run(harness.gm, "combat end"))
    assert card.lines == [
        "**The combat in this channel ends after round 1.**",
        "Roryn leaves the fight; reactions cost 1 Stamina again.",
    ]
    assert card.small == "Rules: C-2 · S-5"
    sheet = await harness.sheet("Roryn")
    assert (sheet.early_this_round, sheet.recovered_this_round) == (False, False)
    assert await combat_of(harness, "Roryn") is None


async def test_combat_end_names_who_leaves_S_5(harness):
    await harness.add_character("Roryn")
    await harness.add_character("Sera", owner=harness.player)
    await harness.start_combat(["Roryn", "Sera"])
    card = public(await harness.run(harness.gm, "combat end"))
    assert card.lines[1] == ("Roryn and Sera leave the fight; reactions cost 1 Stamina again.")
    await harness.start_combat()  # nobody joined: nobody to name
    empty = public(await harness.run(harness.gm, "combat end"))
    assert empty.lines == ["**The combat in this channel ends after round 1.**"]


async def test_the_tables_replies_name_their_rules_unless_rule_ids_is_off(harness):
    """Rounds, days, combat and everyone's rest: their rule IDs under the reply, as under a
    result, and none when the GM turned them off."""
    await harness.add_character("Roryn")
    commands = [
        ("combat start", {}, None),
        ("combat add", {"character": "Roryn"}, "Rules: C-2 · S-5"),
        ("round", {}, "Rules: C-1 · S-4 · R-8"),
        ("combat remove", {"character": "Roryn"}, "Rules: C-2 · S-5"),
        ("combat end", {}, "Rules: C-2 · S-5"),
        ("day", {}, "Rules: C-4"),
        ("rest", {"kind": "short", "everyone": True}, "Rules: S-9"),
    ]
    for rule_ids in ("footer", "off"):
        await harness.run(harness.gm, "settings set", rule_ids=rule_ids)
        for command, options, footer in commands:
            card = public(await harness.run(harness.gm, command, **options))
            shown = card.small
            assert shown == (footer if rule_ids == "footer" else None), (command, shown)


# --- /round ----------------------------------------------------------------------------------


async def test_round_lists_early_actors_and_clears_flags(harness):
    await harness.add_character("Roryn")
    await harness.add_character("Bo", owner=harness.player)
    await harness.add_character("Zed")  # not in this combat: untouched
    await harness.start_combat(["Roryn", "Bo"])
    await harness.update("Roryn", early_this_round=True, reactions_taken=2)
    await harness.update("Bo", recovered_this_round=True)
    await harness.update("Zed", early_this_round=True)
    card = public(await harness.run(harness.gm, "round"))
    assert card.title == "Round 2"
    assert card.lines == [
        "**Round 2 begins.**",
        "Acted early in round 1: Roryn.",  # S-4
        "To act before the enemy this round, spend 1 Stamina with /early.",
    ]
    roryn, bo = await harness.sheet("Roryn"), await harness.sheet("Bo")
    assert (roryn.early_this_round, roryn.reactions_taken) == (False, 2)  # reset is per turn
    assert bo.recovered_this_round is False
    assert (await harness.sheet("Zed")).early_this_round is True
    assert (await this_combat(harness)).round == 2
    again = public(await harness.run(harness.gm, "round"))
    assert "Acted early in round 2: nobody." in again.body


async def test_round_resets_reactions_when_the_setting_says_round(harness):
    await harness.settings(reaction_reset=ReactionReset.ROUND)
    await harness.add_character("Roryn")
    await harness.start_combat(["Roryn"])
    await harness.update("Roryn", reactions_taken=3)
    public(await harness.run(harness.gm, "round"))
    assert (await harness.sheet("Roryn")).reactions_taken == 0  # S-5


async def test_round_refusals(harness):
    refused(await harness.run(harness.gm, "round"), NO_COMBAT)
    await harness.add_character("Roryn")
    await harness.start_combat(["Roryn"])
    await harness.update("Roryn", early_this_round=True)
    for who in (harness.owner, harness.player, harness.gm_role):
        refused(await harness.run(who, "round"), "P-3")
    refused(await harness.run(harness.outsider, "round"), NO_COMBAT)
    assert (await this_combat(harness)).round == 1
    assert (await harness.sheet("Roryn")).early_this_round is True


# --- /day ------------------------------------------------------------------------------------


async def test_day_clears_relief_and_the_bonus_in_this_guild(harness):
    await harness.add_character("Roryn")
    await harness.add_character("Bo", owner=harness.player)
    await harness.add_character("Zed", owner=harness.outsider)
    await harness.update("Roryn", relief_used_today=True, daily_bonus=True)
    await harness.update("Zed", guild=harness.other_guild, relief_used_today=True)
    card = public(await harness.run(harness.gm, "day"))
    assert card.title == "Day 2"
    assert card.lines == [  # who changed, and how (C-4)
        "**Day 2 begins.** Relief is available again and the +3 daily bonus ends.",
        "🟢 Roryn: relief available again · the +3 daily bonus ends",
    ]
    roryn = await harness.sheet("Roryn")
    assert (roryn.relief_used_today, roryn.daily_bonus) == (False, False)  # C-4
    assert (await harness.sheet("Zed", guild=harness.other_guild)).relief_used_today is True
    quiet = public(await harness.run(harness.gm, "day"))
    assert quiet.title == "Day 3"
    assert quiet.lines == [
        "**Day 3 begins.** Relief is available again and the +3 daily bonus ends.",
        "Nobody had used relief or had the daily bonus: nothing else changes.",
    ]
    [event] = [e for e in await logged(harness, "day") if e.character_id is not None]
    assert event.sheet_before["relief_used_today"] is True


async def test_day_refusals(harness):
    await harness.add_character("Roryn")
    await harness.update("Roryn", relief_used_today=True)
    for who in (harness.owner, harness.player):
        refused(await harness.run(who, "day"), "P-3")
    assert (await harness.sheet("Roryn")).relief_used_today is True
    public(await harness.run(harness.outsider, "day"))  # its own guild's day only
    assert (await harness.sheet("Roryn")).relief_used_today is True


# --- /rest -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "stamina"), [("short", 1), ("unsafe_long", 3), ("safe_long", 6), ("respite", 10)]
)
async def test_rest_one_character_by_its_owner(harness, kind, stamina):
    await harness.add_character("Roryn", con_base=10)
    await harness.update("Roryn", stamina=0)
    await harness.select(harness.owner, "Roryn")
    card = public(await harness.run(harness.owner, "rest", kind=kind))
    assert f"Stamina 0/10 → {stamina}/10" in card.body  # S-9
    assert (await harness.sheet("Roryn")).stamina == stamina


async def test_rest_everyone_is_the_gms_and_skips_the_dead(harness):
    await harness.add_character("Roryn")
    await harness.add_character("Bo", owner=harness.player)
    await harness.add_character("Dee")
    await harness.add_character("Zed", owner=harness.outsider)
    for name in ("Roryn", "Bo", "Dee"):
        await harness.update(name, stamina=2)
    await harness.update("Zed", guild=harness.other_guild, stamina=2)
    await harness.update("Dee", vit=-5, dead=True)
    card = public(await harness.run(harness.gm, "rest", kind="safe_long", everyone=True))
    assert card.title == "Everyone rests · safe_long"
    assert card.lines == [
        "🟢 Bo: Stamina 2/8 → 7/8",
        "🟢 Roryn: Stamina 2/8 → 7/8",
    ]
    assert (await harness.sheet("Dee")).stamina == 2
    assert (await harness.sheet("Zed", guild=harness.other_guild)).stamina == 2
    assert len(await logged(harness, "rest")) == 2


async def test_rest_refusals(harness):
    await harness.add_character("Roryn")
    await harness.update("Roryn", stamina=1)
    refused(await harness.run(harness.player, "rest", kind="short", character="Roryn"), "P-4")
    refused(await harness.run(harness.owner, "rest", kind="short", everyone=True), "P-3")
    refused(
        await harness.run(harness.gm, "rest", kind="short", character="Roryn", everyone=True),
        "not both",
    )
    refused(await harness.run(harness.outsider, "rest", kind="short", character="Roryn"), NOT_HERE)
    refused(await harness.run(harness.outsider, "rest", kind="short", everyone=True), "no living")
    refused(await harness.run(harness.owner, "rest", kind="nap", character="Roryn"), "kind")
    await harness.update("Roryn", dead=True)
    refused(await harness.run(harness.gm, "rest", kind="short", character="Roryn"), "Dead")
    assert (await harness.sheet("Roryn")).stamina == 1
    public(await harness.run(harness.gm, "character revive", character="Roryn"))
    public(await harness.run(harness.gm, "rest", kind="short", character="Roryn"))


# --- /wound, /quest complete ---------------------------------------------------------------


async def test_wound_and_recovery_are_the_gms(harness):
    await harness.add_character("Roryn", con_base=10)
    card = public(await harness.run(harness.gm, "wound", character="Roryn"))
    assert "CON d10 → d8" in card.body and "Stamina 10/10 → 8/8" in card.body
    card = public(await harness.run(harness.gm, "wound", character="Roryn", recover=True))
    assert "CON d8 → d10" in card.body  # S-3: Stamina does not rise
    assert (await harness.sheet("Roryn")).stamina == 8
    refused(await harness.run(harness.gm, "wound", character="Roryn", recover=True), "no CON wound")


async def test_wound_refusals(harness):
    await harness.add_character("Roryn", con_base=6, con_wounds=3)
    before = await harness.snapshot()
    refused(await harness.run(harness.owner, "wound", character="Roryn"), "P-3")
    refused(await harness.run(harness.outsider, "wound", character="Roryn"), NOT_HERE)
    refused(await harness.run(harness.gm, "wound", character="Roryn"), "3 CON wounds", "S-2")
    assert await harness.snapshot() == before


async def test_quest_complete_clears_stacks_and_stress_and_ends_breakdown(harness):
    await harness.add_character("Roryn")
    await harness.update("Roryn", anger=4, fear=1, stress=3, breakdown=Emotion.ANGER)
    refused(await harness.run(harness.owner, "quest complete", character="Roryn"), "P-3")
    refused(await harness.run(harness.outsider, "quest complete", character="Roryn"), NOT_HERE)
    assert (await harness.sheet("Roryn")).stress == 3
    card = public(await harness.run(harness.gm, "quest complete", character="Roryn"))
    assert card.lines[:2] == [
        "**Quest complete: Roryn's emotions and Stress are all cleared and the Breakdown ends.**",
        "Stress 3 → 0 · Anger 4/4 → 0/4 · Fear 1/4 → 0/4",  # the Breakdown's end is said once
    ]
    sheet = await harness.sheet("Roryn")
    assert (sheet.anger, sheet.fear, sheet.stress, sheet.breakdown) == (0, 0, 0, None)  # E-5


# --- /history, /undo -------------------------------------------------------------------------


async def test_history_for_the_owner_and_the_gm(harness):
    await harness.run(harness.owner, "character create", name="Roryn")
    await harness.run(harness.owner, "character edit", character="Roryn", res=3)
    await harness.run(harness.gm, "character set", character="Roryn", vit=4)
    result = await harness.run(harness.owner, "history")
    assert result.ephemeral
    shown = history_entries(result)
    assert [e.name for e in shown] == ["/character set", "/character edit", "/character create"]
    assert shown[0].lines[0].startswith(f"by <@{harness.gm.user_id}>")  # who, first
    assert "VIT 10 → 4" in shown[0].text and "RES 2 → 3" in shown[1].text
    limited = await harness.run(harness.gm, "history", character="Roryn", limit=1)
    assert [e.name for e in history_entries(limited)] == ["/character set"]


async def test_history_refusals(harness):
    await harness.add_character("Roryn")
    refused(await harness.run(harness.player, "history", character="Roryn"), "P-4")
    refused(await harness.run(harness.outsider, "history", character="Roryn"), NOT_HERE)
    refused(await harness.run(harness.player, "history"), "no active character")
    refused(await harness.run(harness.owner, "history", character="Roryn", limit=26), "1 and 25")


async def test_undo_reverts_the_latest_change(harness):
    await harness.add_character("Roryn")
    await harness.run(harness.gm, "character set", character="Roryn", vit=4)
    await harness.run(harness.gm, "character set", character="Roryn", stress=2)
    card = public(await harness.run(harness.gm, "undo", character="Roryn"))
    assert "Stress 2 → 0" in card.body
    assert (await harness.sheet("Roryn")).vit == 4
    public(await harness.run(harness.gm, "undo", character="Roryn"))
    assert (await harness.sheet("Roryn")).vit == 10
    refused(await harness.run(harness.gm, "undo", character="Roryn"), "Nothing to undo")
    history = await harness.run(harness.gm, "history", character="Roryn")
    assert [e.name for e in history_entries(history)][:2] == ["/undo", "/undo"]
    assert history_entries(history)[2].name == "/character set · undone"


async def test_undo_refusals(harness):
    await harness.add_character("Roryn")
    await harness.run(harness.gm, "character set", character="Roryn", vit=4)
    for who in (harness.owner, harness.player):
        refused(await harness.run(who, "undo", character="Roryn"), "P-3")
    refused(await harness.run(harness.outsider, "undo", character="Roryn"), NOT_HERE)
    assert (await harness.sheet("Roryn")).vit == 4


# --- the declared schema -----------------------------------------------------------------------


async def test_gm_only_commands_are_hidden_from_players(harness):
    tree = harness.bot.tree
    manage_guild = 1 << 5
    for name in ("round", "day", "wound", "undo", "quest"):
        assert tree.get_command(name).to_dict(tree)["default_member_permissions"] == manage_guild
    for name in ("combat", "rest", "history"):  # players use these: checked in the bot
        assert tree.get_command(name).to_dict(tree)["default_member_permissions"] is None
    rest = {o["name"]: o for o in tree.get_command("rest").to_dict(tree)["options"]}
    assert [c["value"] for c in rest["kind"]["choices"]] == [
        "short",
        "unsafe_long",
        "safe_long",
        "respite",
    ]
    assert rest["kind"]["required"] and rest["character"]["autocomplete"]
    history = {o["name"]: o for o in tree.get_command("history").to_dict(tree)["options"]}
    assert (history["limit"]["min_value"], history["limit"]["max_value"]) == (1, 25)
    combat = tree.get_command("combat").to_dict(tree)
    assert {o["name"] for o in combat["options"]} == {"start", "end", "status", "add", "remove"}


@pytest.mark.parametrize(
    ("command", "options"),
    [
        ("character list", {}),
        ("character create", {"name": "Roryn"}),
        ("combat status", {}),
        ("round", {}),
        ("history", {}),
        ("settings show", {}),
    ],
)
async def test_direct_messages_are_refused(harness, command, options):
    refused(await harness.dm(harness.owner.user_id, command, **options), "server")
    async with harness.db.transaction(harness.guild.id, read_only=True) as uow:
        assert await uow.characters() == []
