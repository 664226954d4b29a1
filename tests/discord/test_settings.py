"""`/settings show|set` through the real command tree (RULES.md section 10, P-1, P-3)."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from bot.db.tables import events
from rules.models import CriticalBleed, DeathRule, GuildSettings, ReactionReset
from tests.discord._table_helpers import public, refused


async def settings_of(harness, guild=None) -> GuildSettings:
    async with harness.db.transaction((guild or harness.guild).id, read_only=True) as uow:
        return await uow.settings()


async def settings_events(harness) -> list:
    async with harness.db.engine.connect() as conn:
        stmt = select(events).where(events.c.command == "settings set").order_by(events.c.id)
        return list((await conn.execute(stmt)).all())


async def test_show_is_for_everyone(harness):
    embed = public(await harness.run(harness.player, "settings show"))
    assert embed["description"].splitlines() == [
        "**gm_role**: none (Manage Server) (P-1)",
        "**die_faces**: `MMMHHC` (D-2)",
        "**death_rule**: thresholds (V-6)",
        "**critical_bleed**: all_miss (R-4)",
        "**reaction_reset**: turn (S-5)",
        "**reaction_die**: `1d10` (E-8)",
        "**emotion_threshold**: 4 (E-1)",
    ]


async def test_set_every_setting_as_gm_and_log_it(harness):
    result = await harness.run(
        harness.gm,
        "settings set",
        gm_role="GM",
        die_faces="mmhhcc",
        death_rule="instant",
        critical_bleed="no_crit",
        reaction_reset="round",
        reaction_die="2d6kh1",
        emotion_threshold=6,
    )
    embed = public(result)
    assert embed["title"] == "Settings changed"
    assert "**death_rule**: thresholds → instant (V-6)" in embed["description"]
    assert "**die_faces**: `MMMHHC` → `MMHHCC` (D-2)" in embed["description"]
    assert await settings_of(harness) == GuildSettings(
        gm_role_id=harness.guild.roles["GM"],
        die_faces="MMHHCC",
        death_rule=DeathRule.INSTANT,
        critical_bleed=CriticalBleed.NO_CRIT,
        reaction_reset=ReactionReset.ROUND,
        reaction_die="2d6kh1",
        emotion_threshold=6,
    )
    [event] = await settings_events(harness)
    assert event.character_id is None and event.user_id == harness.gm.user_id
    assert event.inputs["before"]["death_rule"] == "thresholds"
    assert event.inputs["after"]["death_rule"] == "instant"
    assert event.inputs["changes"]["emotion_threshold"] == 6
    # another guild keeps its own settings (P-2)
    assert await settings_of(harness, harness.other_guild) == GuildSettings()


async def test_gm_role_makes_gms_and_everyone_clears_it(harness):
    refused(await harness.run(harness.gm_role, "settings set", death_rule="instant"), "P-3")
    public(await harness.run(harness.gm, "settings set", gm_role="GM"))
    public(await harness.run(harness.gm_role, "settings set", death_rule="instant"))  # P-1
    assert (await settings_of(harness)).death_rule is DeathRule.INSTANT
    everyone = await harness.run(harness.gm, "settings set", gm_role=str(harness.guild.id))
    assert "→ none (Manage Server)" in public(everyone)["description"]
    assert (await settings_of(harness)).gm_role_id is None
    refused(await harness.run(harness.gm_role, "settings set", death_rule="thresholds"), "P-3")


async def test_set_refusals_change_nothing(harness):
    for who in (harness.owner, harness.player):
        refused(await harness.run(who, "settings set", death_rule="instant"), "P-3")
    refused(await harness.run(harness.gm, "settings set"), "Nothing to change")
    public(await harness.run(harness.outsider, "settings set", death_rule="instant"))
    assert await settings_of(harness) == GuildSettings()
    assert len(await settings_events(harness)) == 1  # the other guild's


@pytest.mark.parametrize(
    ("option", "value", "words"),
    [
        ("die_faces", "MMHH", ("die_faces", "at least one C")),
        ("die_faces", "MMXC", ("die_faces", "M, H and C")),
        ("reaction_die", "1d", ("reaction_die",)),
        ("reaction_die", "1d2000", ("reaction_die",)),
        ("emotion_threshold", 21, ("emotion_threshold", "1 and 20")),
        ("emotion_threshold", 0, ("emotion_threshold", "1 and 20")),
        ("death_rule", "sudden", ("death_rule", "thresholds, instant")),
        ("critical_bleed", "always", ("critical_bleed",)),
        ("reaction_reset", "day", ("reaction_reset",)),
    ],
)
async def test_set_validates_each_setting(harness, option, value, words):
    result = await harness.run(harness.gm, "settings set", **{option: value})
    refused(result, *words)
    assert await settings_of(harness) == GuildSettings()
    assert await settings_events(harness) == []


async def test_settings_schema(harness):
    tree = harness.bot.tree
    group = tree.get_command("settings").to_dict(tree)
    assert group["default_member_permissions"] is None  # `show` is everyone's
    options = {o["name"]: o for o in group["options"][1]["options"]}
    assert group["options"][1]["name"] == "set"
    assert options["gm_role"]["type"] == 8  # role
    assert (
        options["emotion_threshold"]["min_value"],
        options["emotion_threshold"]["max_value"],
    ) == (
        1,
        20,
    )
    assert [c["value"] for c in options["death_rule"]["choices"]] == ["thresholds", "instant"]
    assert [c["value"] for c in options["critical_bleed"]["choices"]] == [
        "all_miss",
        "no_crit",
        "never",
    ]
    assert [c["value"] for c in options["reaction_reset"]["choices"]] == ["turn", "round"]
    assert not any(o.get("required") for o in options.values())
