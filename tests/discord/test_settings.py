"""`/settings show|set` through the real command tree (docs/rules.md, Guild settings; P-1,
P-3)."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from bot.db.tables import events
from rules.models import (
    CriticalBleed,
    DeathRule,
    DyingDamage,
    GuildSettings,
    LastGaspAdvantage,
    ReactionReset,
    RuleIds,
)
from tests.discord._table_helpers import public, refused
from tests.discord.conftest import history_entries


async def settings_of(harness, guild=None) -> GuildSettings:
    async with harness.db.transaction((guild or harness.guild).id, read_only=True) as uow:
        return await uow.settings()


async def settings_events(harness) -> list:
    async with harness.db.engine.connect() as conn:
        stmt = select(events).where(events.c.command == "settings set").order_by(events.c.id)
        return list((await conn.execute(stmt)).all())


async def test_show_is_for_everyone(harness):
    card = public(await harness.run(harness.player, "settings show"))
    assert card.title == "Settings"
    assert card.lines == [
        # each value, then what it means at the table (docs/rules.md, Guild settings)
        "**gm_role**: none (Manage Server) (P-1)",
        "-# members with Manage Server are GMs",
        "**die_faces**: `MMMHHC` (D-2)",
        "-# the Narateer die: Crit 1 in 6, Hit 2 in 6, Miss 3 in 6",
        "**death_rule**: thresholds (V-6)",
        "-# below 0 VIT: Critical, then Dying, then the Last Gasp",
        "**dying_damage**: nothing (V-8)",
        "-# damage lowers a Dying character's VIT; it still rolls its Last Gasp",
        "**critical_bleed**: all_miss (R-4)",
        "-# a Critical roll of only Misses costs 1 VIT",
        "**last_gasp_advantage**: yes (R-6)",
        "-# first aid's advantage rerolls the Last Gasp too",
        "**reaction_reset**: turn (S-5)",
        "-# reactions cost 1 again at each character's turn",
        "**reaction_die**: `1d10` (E-8)",
        "-# rolled for situational breakdowns, before ability and injury",
        "**emotion_threshold**: 4 (E-1)",
        "-# a new character's emotion threshold",
        "**rule_ids**: footer (replies)",
        "-# up to three rule IDs under each result",
        "**check_die**: `1d20` (K-1)",
        "-# rolled by /check when it names no dice, before the sheet's modifiers",
    ]
    assert card.small == "The GM changes them with /settings set."


async def test_set_every_setting_as_gm_and_log_it(harness):
    result = await harness.run(
        harness.gm,
        "settings set",
        gm_role="GM",
        die_faces="mmhhcc",
        death_rule="instant",
        dying_damage="kills",
        critical_bleed="no_crit",
        last_gasp_advantage="no",
        reaction_reset="round",
        reaction_die="2d6kh1",
        emotion_threshold=6,
        rule_ids="off",
        check_die="2d10",
    )
    card = public(result)
    assert card.title == "Settings changed"
    assert card.lines == [
        # each change, then what the new value means
        f"**gm_role**: none (Manage Server) → <@&{harness.guild.roles['GM']}> (P-1)",
        "-# members with this role are GMs, as are those with Manage Server",
        "**die_faces**: `MMMHHC` → `MMHHCC` (D-2)",
        "-# the Narateer die: Crit 2 in 6, Hit 2 in 6, Miss 2 in 6",
        "**death_rule**: thresholds → instant (V-6)",
        "-# VIT below 0 kills at once",
        "**dying_damage**: nothing → kills (V-8)",
        "-# any damage kills a Dying character",
        "**critical_bleed**: all_miss → no_crit (R-4)",
        "-# a Critical roll without a Crit costs 1 VIT",
        "**last_gasp_advantage**: yes → no (R-6)",
        "-# the Last Gasp is never rerolled; advantage waits",
        "**reaction_reset**: turn → round (S-5)",
        "-# reactions cost 1 again for everyone at each round",
        "**reaction_die**: `1d10` → `2d6kh1` (E-8)",
        "-# rolled for situational breakdowns, before ability and injury",
        "**emotion_threshold**: 4 → 6 (E-1)",
        "-# a new character's emotion threshold",
        "**rule_ids**: footer → off (replies)",
        "-# no rule IDs under results (/history keeps them)",
        "**check_die**: `1d20` → `2d10` (K-1)",
        "-# rolled by /check when it names no dice, before the sheet's modifiers",
    ]
    assert await settings_of(harness) == GuildSettings(
        gm_role_id=harness.guild.roles["GM"],
        die_faces="MMHHCC",
        death_rule=DeathRule.INSTANT,
        dying_damage=DyingDamage.KILLS,
        critical_bleed=CriticalBleed.NO_CRIT,
        last_gasp_advantage=LastGaspAdvantage.NO,
        reaction_reset=ReactionReset.ROUND,
        reaction_die="2d6kh1",
        emotion_threshold=6,
        rule_ids=RuleIds.OFF,
        check_die="2d10",
    )
    # /settings show lists what was set
    shown = public(await harness.run(harness.player, "settings show")).body
    assert "**dying_damage**: kills (V-8)" in shown
    assert "**last_gasp_advantage**: no (R-6)" in shown
    assert "**rule_ids**: off (replies)" in shown
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
    assert "→ none (Manage Server)" in public(everyone).body
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
        # a refusal escapes what it quotes: `die\_faces` reads die_faces in Discord
        ("die_faces", "MMHH", ("die\\_faces", "at least one C", "Nothing was changed")),
        ("die_faces", "MMXC", ("die\\_faces", "M, H and C")),
        ("reaction_die", "1d", ("reaction\\_die", "1d10+2")),
        ("reaction_die", "1d2000", ("reaction\\_die", "1000 sides")),
        ("check_die", "d", ("check\\_die", "1d10+2")),
        ("emotion_threshold", 21, ("emotion_threshold", "1 and 20")),
        ("emotion_threshold", 0, ("emotion_threshold", "1 and 20")),
        ("death_rule", "sudden", ("death_rule", "thresholds, instant")),
        ("dying_damage", "sometimes", ("dying_damage", "nothing, kills")),
        ("critical_bleed", "always", ("critical_bleed",)),
        ("last_gasp_advantage", "maybe", ("last_gasp_advantage", "yes, no")),
        ("reaction_reset", "day", ("reaction_reset",)),
        ("rule_ids", "all", ("rule_ids", "footer, off")),
    ],
)
async def test_set_validates_each_setting(harness, option, value, words):
    before = await harness.snapshot()
    result = await harness.run(harness.gm, "settings set", **{option: value})
    refused(result, *words)
    assert await settings_of(harness) == GuildSettings()
    assert await harness.snapshot() == before


async def test_a_settings_refusal_reads_as_sentences(harness):
    """It once read '…like 1d10+2.. Nothing was changed.'."""
    result = await harness.run(harness.gm, "settings set", reaction_die="1d")
    assert ".." not in refused(result, "reaction")


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
    assert [c["value"] for c in options["dying_damage"]["choices"]] == ["nothing", "kills"]
    assert [c["value"] for c in options["last_gasp_advantage"]["choices"]] == ["yes", "no"]
    assert [c["value"] for c in options["rule_ids"]["choices"]] == ["footer", "off"]
    assert not any(o.get("required") for o in options.values())


# --- what each new setting changes, through the command it governs ---------------------------


async def test_rule_ids_off_removes_the_rule_footer(harness):
    await harness.add_character("Roryn", vit=1)
    shown = public(await harness.run(harness.owner, "damage", character="Roryn", amount=1))
    assert shown.small == "Rules: H-1 · V-2 · V-7"
    public(await harness.run(harness.gm, "settings set", rule_ids="off"))
    hidden = public(await harness.run(harness.owner, "heal", character="Roryn", amount=1))
    assert hidden.small is None  # the rules were the small line's only content
    await harness.update("Roryn", reactions_taken=2)
    turn = public(await harness.run(harness.owner, "turn", character="Roryn"))
    assert turn.small == "reaction cost back to 1"  # bookkeeping stays
    # /history still lists every rule (docs/commands.md: the full list there)
    history = await harness.run(harness.owner, "history", character="Roryn")
    assert "Rules: H-2" in history_entries(history)[0].text


async def test_dying_damage_kills_through_the_setting_V_8(harness):
    await harness.add_character("Roryn", vit=-3)
    public(await harness.run(harness.gm, "settings set", dying_damage="kills"))
    card = public(await harness.run(harness.owner, "damage", character="Roryn", amount=1))
    assert card.lines[:2] == [
        "**Roryn dies: on this server any damage to a Dying character kills.**",
        "VIT -3 → -4 · Dying → Dead",
    ]
    assert (await harness.sheet("Roryn")).dead


async def test_last_gasp_advantage_no_through_the_setting_R_6(harness):
    await harness.add_character("Roryn", vit=-2, advantage=True)
    public(await harness.run(harness.gm, "settings set", last_gasp_advantage="no"))
    harness.script("C")  # one die, no reroll
    card = public(await harness.run(harness.gm, "recover", character="Roryn"))
    assert "Last Gasp: 💥  1 Crit" in card.lines
    assert (await harness.sheet("Roryn")).advantage  # it waits for the next recovery roll
