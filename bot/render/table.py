"""Replies about the table rather than one action: lists, combat, rounds, days, history,
settings."""

from __future__ import annotations

from collections.abc import Sequence

import discord

from bot.db.records import CharacterRow, Combat, Event
from bot.render.common import (
    DESCRIPTION_LIMIT,
    FIELDS_LIMIT,
    INFO_COLOUR,
    STATE_COLOURS,
    count,
    escape,
    fit,
    named,
    stamina,
    truncate,
    vit,
)
from bot.render.dice import Faces, roll_label, roll_text
from bot.render.reply import Reply
from rules.models import GuildSettings, Sheet
from rules.outcome import Outcome, bookkeeping, diff

# Every user-visible line is capped so that a long list can never break an embed.
_LINE = 200


def character_line(sheet: Sheet, *, owner: bool = True) -> str:
    """`🟠 Roryn · VIT -1/10 · Stamina 5/8 · @owner` (an embed mention never pings)."""
    parts = [f"{named(sheet)}", vit(sheet), stamina(sheet)]
    if sheet.breakdown is not None:
        parts.append(f"Breakdown of {sheet.breakdown.label}")
    if owner:
        parts.append(f"<@{sheet.owner_id}>")
    return truncate(" · ".join(parts), _LINE)


def joined(lines: Sequence[str], limit: int = DESCRIPTION_LIMIT) -> str:
    """Whole lines, as many as fit, then how many were left out (a long guild's list)."""
    kept: list[str] = []
    size = 0
    for index, line in enumerate(lines):
        rest = len(lines) - index
        more = f"… and {rest - 1} more" if rest > 1 else ""
        if size + len(line) + 1 + len(more) + 1 > limit:
            kept.append(f"… and {rest} more")
            break
        kept.append(line)
        size += len(line) + 1
    return "\n".join(kept)


def lines_embed(
    title: str, lines: Sequence[str], empty: str = "", colour: int = INFO_COLOUR
) -> discord.Embed:
    return fit(discord.Embed(title=title, description=joined(lines) or empty, colour=colour))


def character_list(rows: Sequence[CharacterRow]) -> Reply:
    embed = lines_embed(
        "Characters",
        [character_line(row.sheet) for row in rows],
        "No characters yet: create one with /character create.",
    )
    if rows:
        embed.set_footer(text=count(len(rows), "character"))
    return Reply(embeds=[embed])


def sheet_notice(title: str, sheet: Sheet, text: str, *, private: bool = False) -> Reply:
    """A one-line result about one character (selected, deleted, joined a combat, …)."""
    embed = discord.Embed(
        title=f"{named(sheet)} · {title}", description=text, colour=STATE_COLOURS[sheet.state]
    )
    return Reply(embeds=[fit(embed)], ephemeral=private)


# --- combat ----------------------------------------------------------------------------------


def combat_status(combat: Combat, members: Sequence[CharacterRow]) -> Reply:
    lines = []
    for row in members:
        line = character_line(row.sheet, owner=False)
        if row.sheet.early_this_round:
            line += " · acts early"
        lines.append(line)
    embed = lines_embed(
        f"Combat · round {combat.round}",
        lines,
        "No characters in this combat yet: add them with /combat add.",
    )
    return Reply(embeds=[embed])


def combat_started(combat: Combat) -> Reply:
    lines = [
        f"**Combat starts in this channel, round {combat.round}.**",
        "Add characters with /combat add; the GM starts each next round with /round.",
    ]
    return Reply(embeds=[lines_embed("Combat", lines)])


def combat_ended(combat: Combat, members: Sequence[CharacterRow]) -> Reply:
    names = ", ".join(escape(row.sheet.name) for row in members) or "nobody"
    lines = [
        f"**The combat in this channel ends after round {combat.round}.**",
        f"It was: {names}. Their reaction costs start fresh (S-5).",
    ]
    return Reply(embeds=[lines_embed("Combat ended", lines)])


def combat_joined(combat: Combat, sheet: Sheet, *, joined: bool) -> Reply:
    verb = "joins" if joined else "leaves"
    text = (
        f"**{escape(sheet.name)} {verb} the combat in this channel (round {combat.round}).** "
        "Its next reaction costs 1 (S-5)."
    )
    return sheet_notice("Combat", sheet, text)


def round_started(combat: Combat, early: Sequence[str], members: Sequence[Sheet]) -> Reply:
    """C-1, S-4: the early actors of the round that ended, and who must roll now."""
    acted = ", ".join(escape(name) for name in early) or "nobody"
    lines = [
        f"**Round {combat.round} begins.**",
        f"Acted early in round {combat.round - 1}: {acted}.",
        "To act before the enemy this round, spend 1 Stamina with /early (S-4).",
    ]
    due = [s for s in members if s.state.is_down]
    if due:
        lines.append("Recovery rolls due: " + ", ".join(named(s) for s in due) + ".")
    embed = lines_embed(f"Round {combat.round}", lines)
    embed.set_footer(text="Rules: C-1 · S-4 · R-8")
    return Reply(embeds=[embed])


def day_started(day: int, changed: int) -> Reply:
    lines = [
        f"**Day {day} begins.** Relief is available again and the +3 daily bonus has ended.",
        f"{count(changed, 'character')} changed.",
    ]
    embed = lines_embed(f"Day {day}", lines)
    embed.set_footer(text="Rules: C-4")
    return Reply(embeds=[embed])


def outcomes_list(title: str, outcomes: Sequence[Outcome], footer: str) -> Reply:
    """Several characters changed by one command (`/rest everyone:true`): one line each."""
    lines = []
    for outcome in outcomes:
        what = " · ".join(str(c) for c in outcome.changes) or "no change"
        lines.append(truncate(f"{named(outcome.after)}: {what}", _LINE))
    embed = lines_embed(title, lines, "Nobody changed.")
    embed.set_footer(text=footer)
    return Reply(embeds=[embed])


# --- history ---------------------------------------------------------------------------------


def event_summary(event: Event) -> str:
    """`/damage by @Alice 5 minutes ago`: what an undo says it reverted (U-3)."""
    stamp = discord.utils.format_dt(event.created_at, "R")
    return f"/{event.command} by <@{event.user_id}> {stamp}"


def _event_field(event: Event, faces: Faces) -> tuple[str, str]:
    name = f"/{event.command}"
    if event.reverted:
        name += " · undone"
    if not event.is_change:
        name += " · bookkeeping"
    lines = [f"by <@{event.user_id}> {discord.utils.format_dt(event.created_at, 'R')}"]
    if event.before is not None and event.after is not None:
        changes = diff(event.before, event.after) or bookkeeping(event.before, event.after)
        if changes:
            lines.append(escape(" · ".join(str(change) for change in changes)))
    elif event.after is not None:
        lines.append("created")
    elif event.before is not None:
        lines.append("deleted")
    for roll in event.rolls:
        lines.append(f"{roll_label(roll)}: {roll_text(roll, faces)}")
    if event.rules:
        lines.append("Rules: " + " · ".join(event.rules))  # the full list here
    return truncate(name, 256), truncate("\n".join(lines), 1024)


def history(
    sheet: Sheet, events: Sequence[Event], faces: Faces, *, deleted: bool, everything: bool
) -> Reply:
    """U-2: the latest changes, newest first; with `everything`, bookkeeping too."""
    title = f"{named(sheet)} · History" + (" (deleted)" if deleted else "")
    embed = discord.Embed(
        title=title,
        description=None if events else "No changes recorded yet.",
        colour=STATE_COLOURS[sheet.state],
    )
    for event in events[:FIELDS_LIMIT]:
        name, value = _event_field(event, faces)
        embed.add_field(name=name, value=value, inline=False)
    if events:
        more = "" if everything else " all:true adds bookkeeping (rounds, turns, combat)."
        embed.set_footer(text="Newest first. The GM reverts the latest change with /undo." + more)
    return Reply(embeds=[fit(embed)], ephemeral=True)


# --- settings --------------------------------------------------------------------------------


def _setting_values(settings: GuildSettings) -> list[tuple[str, str, str]]:
    """(option, value, rule) in the order of docs/rules.md's settings table."""
    role = f"<@&{settings.gm_role_id}>" if settings.gm_role_id else "none (Manage Server)"
    return [
        ("gm_role", role, "P-1"),
        ("die_faces", f"`{settings.die_faces}`", "D-2"),
        ("death_rule", settings.death_rule.value, "V-6"),
        ("dying_damage", settings.dying_damage.value, "V-8"),
        ("critical_bleed", settings.critical_bleed.value, "R-4"),
        ("last_gasp_advantage", settings.last_gasp_advantage.value, "R-6"),
        ("reaction_reset", settings.reaction_reset.value, "S-5"),
        ("reaction_die", f"`{settings.reaction_die.replace('`', '')}`", "E-8"),
        ("emotion_threshold", str(settings.emotion_threshold), "E-1"),
        ("rule_ids", settings.rule_ids.value, "replies"),
    ]


def settings_reply(settings: GuildSettings) -> Reply:
    lines = [f"**{name}**: {value} ({rule})" for name, value, rule in _setting_values(settings)]
    embed = lines_embed("Settings", lines)
    embed.set_footer(text="The GM changes them with /settings set.")
    return Reply(embeds=[embed])


def settings_changed(before: GuildSettings, after: GuildSettings) -> Reply:
    old = {name: value for name, value, _ in _setting_values(before)}
    lines = [
        f"**{name}**: {old[name]} → {value} ({rule})"
        for name, value, rule in _setting_values(after)
        if old[name] != value
    ]
    return Reply(embeds=[lines_embed("Settings changed", lines, "No setting changed.")])
