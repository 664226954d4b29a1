"""Embeds about the table rather than one action: lists, combat, rounds, days, history, settings."""

from __future__ import annotations

from collections.abc import Sequence

import discord

from bot.db.records import Combat, Event
from bot.render.common import (
    DESCRIPTION_LIMIT,
    FIELDS_LIMIT,
    count,
    escape,
    fit,
    info_colour,
    stamina,
    state_colour,
    truncate,
    vit,
)
from bot.render.outcome import roll_field
from bot.services.context import CharacterRow
from rules.models import GuildSettings, Sheet
from rules.outcome import Outcome, diff

# Every user-visible line is capped so that a long list can never break an embed.
_LINE = 200


def character_line(sheet: Sheet, *, owner: bool = True) -> str:
    """`**Roryn** · Up · VIT 3/10 · Stamina 5/8 · <@owner>` (an embed mention never pings)."""
    parts = [f"**{escape(sheet.name)}**", sheet.state.value, vit(sheet), stamina(sheet)]
    if sheet.breakdown is not None:
        parts.append(f"Breakdown ({sheet.breakdown.label})")
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


def _lines_embed(title: str, lines: Sequence[str], empty: str) -> discord.Embed:
    embed = discord.Embed(title=title, description=joined(lines) or empty, colour=info_colour())
    return fit(embed)


def character_list(rows: Sequence[CharacterRow]) -> discord.Embed:
    embed = _lines_embed(
        "Characters",
        [character_line(row.sheet) for row in rows],
        "No characters yet: create one with /character create.",
    )
    if rows:
        embed.set_footer(text=count(len(rows), "character"))
    return embed


def sheet_notice(title: str, sheet: Sheet, text: str) -> discord.Embed:
    """A one-line result about one character (created, selected, deleted, imported, …)."""
    return fit(
        discord.Embed(
            title=f"{escape(sheet.name)} · {title}",
            description=text,
            colour=state_colour(sheet.state),
        )
    )


# --- combat ----------------------------------------------------------------------------------


def combat_status(combat: Combat, members: Sequence[CharacterRow]) -> discord.Embed:
    lines = []
    for row in members:
        line = character_line(row.sheet, owner=False)
        if row.sheet.early_this_round:
            line += " · acts early"
        lines.append(line)
    return _lines_embed(
        f"Combat · round {combat.round}",
        lines,
        "No characters in this combat yet: add them with /combat add.",
    )


def combat_started(combat: Combat) -> discord.Embed:
    return _lines_embed(
        f"Combat · round {combat.round}",
        [
            "Combat has started in this channel (C-1).",
            "Add characters with /combat add; /round starts the next round.",
        ],
        "",
    )


def combat_ended(combat: Combat, members: Sequence[CharacterRow]) -> discord.Embed:
    names = ", ".join(f"**{escape(row.sheet.name)}**" for row in members) or "nobody"
    return _lines_embed(
        "Combat ended",
        [
            f"The combat in this channel ended after round {combat.round} (C-1).",
            f"Members: {names}",
        ],
        "",
    )


def combat_joined(combat: Combat, sheet: Sheet, joined: bool) -> discord.Embed:
    verb = "joins" if joined else "leaves"
    return sheet_notice(
        "Combat",
        sheet,
        f"{escape(sheet.name)} {verb} the combat in this channel (round {combat.round}).",
    )


def round_started(combat: Combat, early: Sequence[str]) -> discord.Embed:
    """C-1, S-4: the early actors of the round that ended, and how to act early in this one."""
    acted = ", ".join(f"**{escape(name)}**" for name in early) or "nobody"
    lines = [
        f"Acted early in round {combat.round - 1}: {acted}.",
        "To act before the enemy this round, spend 1 Stamina with /early (S-4); "
        "everyone else acts after the enemy.",
    ]
    embed = _lines_embed(f"Round {combat.round}", lines, "")
    embed.set_footer(text="Rules: C-1 · S-4")
    return embed


def day_started(day: int, changed: int) -> discord.Embed:
    lines = [
        "Relief is available again and the +3 daily bonus has ended (C-4).",
        f"{count(changed, 'character')} changed.",
    ]
    embed = _lines_embed(f"Day {day}", lines, "")
    embed.set_footer(text="Rules: C-4")
    return embed


# --- history ---------------------------------------------------------------------------------


def _event_field(event: Event) -> tuple[str, str]:
    stamp = discord.utils.format_dt(event.created_at, "R")
    name = f"/{event.command}"
    if event.reverted:
        name += " · undone"
    lines = [f"by <@{event.user_id}> {stamp}"]
    if event.before is not None and event.after is not None:
        changes = diff(event.before, event.after)
        if changes:
            lines.append(" · ".join(str(change) for change in changes))
    elif event.after is not None:
        lines.append("created")
    elif event.before is not None:
        lines.append("deleted")
    for roll in event.rolls:
        roll_name, roll_value = roll_field(roll)
        lines.append(f"{roll_name}: {roll_value.replace(chr(10), ' · ')}")
    if event.rules:
        lines.append("Rules: " + " · ".join(event.rules))
    return truncate(name, 256), truncate("\n".join(lines), 1024)


def history(sheet: Sheet, events: Sequence[Event]) -> discord.Embed:
    embed = discord.Embed(
        title=f"{escape(sheet.name)} · History",
        description=None if events else "No changes recorded yet.",
        colour=state_colour(sheet.state),
    )
    for event in events[:FIELDS_LIMIT]:
        name, value = _event_field(event)
        embed.add_field(name=name, value=value, inline=False)
    if events:
        embed.set_footer(text="Newest first. The GM can revert the latest change with /undo.")
    return fit(embed)


# --- settings --------------------------------------------------------------------------------


def _setting_values(settings: GuildSettings) -> list[tuple[str, str, str]]:
    """(option, value, rule) in section 10's order."""
    role = f"<@&{settings.gm_role_id}>" if settings.gm_role_id else "none (Manage Server)"
    return [
        ("gm_role", role, "P-1"),
        ("die_faces", f"`{settings.die_faces}`", "D-2"),
        ("death_rule", settings.death_rule.value, "V-6"),
        ("critical_bleed", settings.critical_bleed.value, "R-4"),
        ("reaction_reset", settings.reaction_reset.value, "S-5"),
        ("reaction_die", f"`{escape(settings.reaction_die)}`", "E-8"),
        ("emotion_threshold", str(settings.emotion_threshold), "E-1"),
    ]


def settings_embed(settings: GuildSettings) -> discord.Embed:
    lines = [f"**{name}**: {value} ({rule})" for name, value, rule in _setting_values(settings)]
    embed = _lines_embed("Settings", lines, "")
    embed.set_footer(text="The GM changes them with /settings set.")
    return embed


def settings_changed(before: GuildSettings, after: GuildSettings) -> discord.Embed:
    old = {name: value for name, value, _ in _setting_values(before)}
    lines = [
        f"**{name}**: {old[name]} → {value} ({rule})"
        for name, value, rule in _setting_values(after)
        if old[name] != value
    ]
    return _lines_embed("Settings changed", lines, "No setting changed.")


def outcomes_list(title: str, outcomes: Sequence[Outcome], footer: str) -> discord.Embed:
    """Several characters changed by one command (`/rest everyone:true`): one line each."""
    lines = [
        truncate(
            f"**{escape(o.after.name)}**: "
            + (" · ".join(str(change) for change in o.changes) or "no change"),
            _LINE,
        )
        for o in outcomes
    ]
    embed = _lines_embed(title, lines, "Nobody changed.")
    embed.set_footer(text=footer)
    return embed
