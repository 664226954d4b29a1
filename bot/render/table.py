"""Replies about the table rather than one action: lists, combat, rounds, days, history,
settings."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import discord

from bot.db.records import CharacterRow, Combat, Event
from bot.render.card import Card, Group
from bot.render.changes import change_texts, changes_line, told
from bot.render.common import (
    INFO_COLOUR,
    STATE_COLOURS,
    count,
    escape,
    named,
    rule_footer,
    stamina,
    truncate,
    vit,
)
from bot.render.dice import Faces, die_line, roll_label, roll_text
from bot.render.reply import Reply
from bot.services.table import CombatView, DayResult, Membership, RestResult, RoundResult
from rules.models import GuildSettings, Sheet
from rules.outcome import Outcome, bookkeeping, diff


def character_line(sheet: Sheet, *, owner: bool = True) -> str:
    """`🟠 Roryn · Critical · VIT -1/10 · Stamina 5/8 · @owner` (the mention never pings: no
    message allows one); the dead and the retired have no Stamina to spend."""
    parts = [f"{named(sheet)}", sheet.state.value, vit(sheet)]
    if not sheet.state.is_out:
        parts.append(stamina(sheet))
    if sheet.breakdown is not None:
        parts.append(f"Breakdown of {sheet.breakdown.label}")
    if owner:
        parts.append(f"<@{sheet.owner_id}>")
    return " · ".join(parts)  # bounded: a name, numbers, words; never cut inside a name


def list_card(
    title: str,
    entries: Sequence[str],
    empty: str = "",
    colour: int = INFO_COLOUR,
    *,
    intro: Sequence[str] = (),
) -> Card:
    """A titled list, one entry a line (cut to fit with "… and N more"); `empty` when there is
    none; `intro` lines before it."""
    lines = tuple(intro) if entries or not empty else (*intro, empty)
    return Card(colour=colour, title=title, lines=lines, groups=(Group(tuple(entries)),))


def text_card(title: str, lines: Sequence[str], colour: int = INFO_COLOUR) -> Card:
    return Card(colour=colour, title=title, lines=tuple(lines))


def character_list(rows: Sequence[CharacterRow]) -> Reply:
    card = list_card(
        "Characters",
        [character_line(row.sheet) for row in rows],
        "No characters yet: create one with /character create.",
    )
    if rows:
        card = replace(card, small=count(len(rows), "character"))
    return Reply(card)


def member_characters(member_name: str, rows: Sequence[CharacterRow]) -> Reply:
    """The user menu "Characters": a member's characters, privately, with /character list's
    lines."""
    name = escape(member_name)
    card = list_card(
        f"{name}'s characters",
        [character_line(row.sheet, owner=False) for row in rows],
        f"{name} has no character in this server. /character create makes one.",
    )
    if rows:
        card = replace(card, small=count(len(rows), "character"))
    return Reply(card, ephemeral=True)


def sheet_notice(
    title: str, sheet: Sheet, text: str, *, private: bool = False, colour: int | None = None
) -> Reply:
    """A one-line result about one character (selected, deleted, joined a combat, …), in its
    state's colour unless told otherwise."""
    card = Card(
        colour=STATE_COLOURS[sheet.state] if colour is None else colour,
        title=f"{named(sheet)} · {title}",
        lines=(text,),
    )
    return Reply(card, ephemeral=private)


def _names(sheets: Sequence[Sheet]) -> str:
    """`Roryn`, `Roryn and Sera`, `Roryn, Sera and Ash`."""
    names = [escape(s.name) for s in sheets]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


# --- combat ----------------------------------------------------------------------------------


def combat_status(combat: Combat, members: Sequence[CharacterRow]) -> Reply:
    lines = []
    for row in members:
        line = character_line(row.sheet, owner=False)
        if row.sheet.early_this_round:
            line += " · acts early"
        lines.append(line)
    card = list_card(
        f"Combat · round {combat.round}",
        lines,
        "No characters in this combat yet: add them with /combat add.",
    )
    return Reply(card)


def combat_started(combat: Combat) -> Reply:
    lines = [
        f"**Combat starts in this channel, round {combat.round}.**",
        "Add characters with /combat add; the GM starts each next round with /round.",
    ]
    return Reply(text_card("Combat", lines))


def _rules(card: Card, settings: GuildSettings, *rules: str) -> Card:
    """The rule IDs under a table reply, as under a result: unless `rule_ids` is off."""
    return replace(card, small=rule_footer(rules, settings))


def combat_ended(view: CombatView) -> Reply:
    lines = [f"**The combat in this channel ends after round {view.combat.round}.**"]
    if view.members:
        sheets = [row.sheet for row in view.members]
        verb = "leaves" if len(sheets) == 1 else "leave"
        lines.append(f"{_names(sheets)} {verb} the fight; reactions cost 1 Stamina again.")
    return Reply(_rules(text_card("Combat ended", lines), view.settings, "C-2", "S-5"))


def combat_joined(membership: Membership, *, joined: bool) -> Reply:
    sheet, combat = membership.row.sheet, membership.combat
    verb = "joins" if joined else "leaves"
    text = (
        f"**{escape(sheet.name)} {verb} the combat in this channel (round {combat.round}).**\n"
        "Its next reaction costs 1 Stamina."
    )
    reply = sheet_notice("Combat", sheet, text)
    reply.card = _rules(reply.card, membership.settings, "C-2", "S-5")
    return reply


def round_started(result: RoundResult) -> Reply:
    """C-1, S-4: the early actors of the round that ended, and who must roll now."""
    combat = result.combat
    acted = ", ".join(escape(name) for name in result.early) or "nobody"
    lines = [
        f"**Round {combat.round} begins.**",
        f"Acted early in round {combat.round - 1}: {acted}.",
        "To act before the enemy this round, spend 1 Stamina with /early.",
    ]
    due = [s for s in result.members if s.state.is_down]
    if due:
        lines.append("Recovery rolls due: " + ", ".join(named(s) for s in due) + ".")
    card = text_card(f"Round {combat.round}", lines)
    return Reply(_rules(card, result.settings, "C-1", "S-4", "R-8"))


def day_started(result: DayResult) -> Reply:
    """C-4: who changed, and how, one line each."""
    intro = f"**Day {result.day} begins.** Relief is available again and the +3 daily bonus ends."
    changed = [o for o in result.outcomes if o.changes]
    card = list_card(
        f"Day {result.day}",
        [_outcome_line(o) for o in changed],
        "Nobody had used relief or had the daily bonus: nothing else changes.",
        intro=[intro],
    )
    return Reply(_rules(card, result.settings, "C-4"))


def everyone_rested(kind: str, result: RestResult) -> Reply:
    """S-9 for every living character (`/rest everyone:true`): one line each."""
    lines = [_outcome_line(o) for o in result.outcomes]
    card = list_card(f"Everyone rests · {kind}", lines, "Nobody changed.")
    return Reply(_rules(card, result.settings, "S-9"))


def _outcome_line(outcome: Outcome) -> str:
    texts = change_texts(outcome.changes, outcome.action, vit=outcome.after.vit)
    what = " · ".join(texts) or "no change"
    return f"{named(outcome.after)}: {what}"


# --- history ---------------------------------------------------------------------------------


def _by(user_id: int) -> str:
    """Who did it; user 0 is nobody: the database upgrade that renamed a clashing name."""
    return "by the bot's upgrade" if user_id == 0 else f"by <@{user_id}>"


def event_summary(event: Event) -> str:
    """`/damage by @Alice 5 minutes ago`: what an undo says it reverted (U-3)."""
    stamp = discord.utils.format_dt(event.created_at, "R")
    return f"/{event.command} {_by(event.user_id)} {stamp}"


def undone(reply: Reply, reverted: Event) -> Reply:
    """U-3: the undo's result says what it reverted: command, who, when."""
    card = reply.card
    reply.card = replace(card, lines=(*card.lines, f"Reverted: {event_summary(reverted)}."))
    return reply


# What a command that changed nothing on the sheet did (its row in /history all:true).
_UNCHANGED = {
    "combat add": "Joins the combat.",
    "combat remove": "Leaves the combat.",
    "combat end": "The combat ends.",
    "turn": "The turn begins.",
}


def _event_entry(event: Event, faces: Faces) -> str:
    """One event of /history: what, who and when on its first line, then what it changed, its
    dice and every rule it followed."""
    name = f"/{event.command}"
    if event.reverted:
        name += " · undone"
    if not event.is_change:
        name += " · bookkeeping"
    lines = [f"**{name}** {_by(event.user_id)} {discord.utils.format_dt(event.created_at, 'R')}"]
    what_it_was_told = told(event.inputs, event.user_id)
    if what_it_was_told:
        lines.append(what_it_was_told)
    if event.before is not None and event.after is not None:
        changes = diff(event.before, event.after) or bookkeeping(event.before, event.after)
        told_changes = changes_line(change_texts(changes, event.command, vit=event.after.vit))
        lines.append(told_changes or _UNCHANGED.get(event.command, "Nothing on the sheet changed."))
    elif event.after is not None:
        lines.append("created")
    elif event.before is not None:
        lines.append("deleted")
    for roll in event.rolls:
        lines.append(f"{roll_label(roll)}: {roll_text(roll, faces)}")
    if event.rules:
        lines.append("-# Rules: " + " · ".join(event.rules))  # the full list here
    return truncate("\n".join(lines), 1024)


def history(
    sheet: Sheet, events: Sequence[Event], faces: Faces, *, deleted: bool, everything: bool
) -> Reply:
    """U-2: the latest changes, newest first; with `everything`, bookkeeping too."""
    title = f"{named(sheet)} · History" + (" (deleted)" if deleted else "")
    card = Card(
        colour=STATE_COLOURS[sheet.state],
        title=title,
        lines=() if events else ("No changes recorded yet.",),
        groups=(Group(tuple(_event_entry(e, faces) for e in events), gap=True),),
    )
    if events:
        more = "" if everything else " all:true adds bookkeeping (rounds, turns, combat)."
        card = replace(
            card, small="Newest first. The GM reverts the latest change with /undo." + more
        )
    return Reply(card, ephemeral=True)


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
        ("check_die", f"`{settings.check_die.replace('`', '')}`", "K-1"),
    ]


def _meaning(settings: GuildSettings) -> dict[str, str]:
    """What each value means at the table, in a few words (docs/rules.md, "Guild settings")."""
    return {
        "gm_role": (
            "members with this role are GMs, as are those with Manage Server"
            if settings.gm_role_id
            else "members with Manage Server are GMs"
        ),
        "die_faces": f"the Narateer die: {die_line(settings.die_faces)}",
        "death_rule": {
            "thresholds": "below 0 VIT: Critical, then Dying, then the Last Gasp",
            "instant": "VIT below 0 kills at once",
        }[settings.death_rule.value],
        "dying_damage": {
            "nothing": "damage lowers a Dying character's VIT; it still rolls its Last Gasp",
            "kills": "any damage kills a Dying character",
        }[settings.dying_damage.value],
        "critical_bleed": {
            "all_miss": "a Critical roll of only Misses costs 1 VIT",
            "no_crit": "a Critical roll without a Crit costs 1 VIT",
            "never": "a Critical roll never costs VIT",
        }[settings.critical_bleed.value],
        "last_gasp_advantage": {
            "yes": "first aid's advantage rerolls the Last Gasp too",
            "no": "the Last Gasp is never rerolled; advantage waits",
        }[settings.last_gasp_advantage.value],
        "reaction_reset": {
            "turn": "reactions cost 1 again at each character's turn",
            "round": "reactions cost 1 again for everyone at each round",
        }[settings.reaction_reset.value],
        "reaction_die": "rolled for situational breakdowns, before ability and injury",
        "emotion_threshold": "a new character's emotion threshold",
        "check_die": "rolled by /check when it names no dice, before the sheet's modifiers",
        "rule_ids": {
            "footer": "up to three rule IDs under each result",
            "off": "no rule IDs under results (/history keeps them)",
        }[settings.rule_ids.value],
    }


def settings_reply(settings: GuildSettings) -> Reply:
    meaning = _meaning(settings)
    lines = [
        f"**{name}**: {value} ({rule})\n-# {meaning[name]}"
        for name, value, rule in _setting_values(settings)
    ]
    card = list_card("Settings", lines)
    return Reply(replace(card, small="The GM changes them with /settings set."))


def settings_changed(before: GuildSettings, after: GuildSettings) -> Reply:
    old = {name: value for name, value, _ in _setting_values(before)}
    meaning = _meaning(after)
    lines = [
        f"**{name}**: {old[name]} → {value} ({rule})\n-# {meaning[name]}"
        for name, value, rule in _setting_values(after)
        if old[name] != value
    ]
    return Reply(list_card("Settings changed", lines, "No setting changed."))
