"""An Outcome (one action on one character) as a reply: the headline first, then the change,
the dice, the details, and bookkeeping in one small line at the end. The Last Gasp is an event:
its own colour and a picture."""

from __future__ import annotations

from bot.render.buttons import LastGaspButton, OddsButton, RaiseButton, RecoveryButton
from bot.render.card import Card, with_buttons
from bot.render.changes import change_texts, changes_line
from bot.render.common import (
    EMOTION_COLOUR,
    FAILURE_COLOUR,
    LAST_GASP_COLOUR,
    STATE_COLOURS,
    escape,
    named,
    rule_footer,
)
from bot.render.dice import Faces, roll_label, roll_text
from bot.render.pictures import LAST_GASP_FILENAME, last_gasp_png
from bot.render.reply import Reply
from rules.condition import RollDue, roll_due
from rules.models import GuildSettings, State
from rules.outcome import Outcome
from rules.rolls import CRIT, HIT, MISS, NarateerRoll

# What each action is called in a title; an unknown action falls back to its own name.
ACTION_TITLES = {
    "damage": "Damage",
    "heal": "Magic healing",
    "recover": "Recovery roll",
    "first_aid": "First aid",
    "turn": "Start of turn",
    "early": "Acts early",
    "react": "Reaction",
    "push": "Pushes a Check",
    "spend": "Spends Stamina",
    "emotion": "Emotion",
    "relief": "Relief",
    "breakdown": "Situational breakdown",
    "quest": "Quest complete",
    "rest": "Rest",
    "wound": "CON wound",
    "recover_wound": "CON wound recovered",
    "edit": "Sheet edited",
    "set": "Sheet set",
    "revive": "Revived",
    "give": "Changes hands",
    "undo": "Undone",
    "combat": "Combat",
    "action_roll": "Action Roll",
    "reaction_roll": "Reaction Roll",
    "daring_throw": "Daring Throw",
}
_EMOTIONAL = {"emotion", "relief", "breakdown", "quest"}


def is_last_gasp(outcome: Outcome) -> bool:
    return outcome.action == "recover" and outcome.before.state is State.DYING


def colour(outcome: Outcome) -> int:
    """By what happened: the Last Gasp its own, whatever its verdict (the picture tells it),
    emotions and a Breakdown purple, a failed check never green, else the state the character
    is left in."""
    if is_last_gasp(outcome):
        return LAST_GASP_COLOUR
    if outcome.after.state.is_out:
        return STATE_COLOURS[outcome.after.state]
    if outcome.action in _EMOTIONAL or breakdown_began(outcome):
        return EMOTION_COLOUR
    if outcome.failed:
        return FAILURE_COLOUR
    return STATE_COLOURS[outcome.after.state]


def breakdown_began(outcome: Outcome) -> bool:
    return outcome.before.breakdown is None and outcome.after.breakdown is not None


def title(outcome: Outcome) -> str:
    if is_last_gasp(outcome):
        return f"{named(outcome.after)} · The Last Gasp"
    if breakdown_began(outcome):
        return f"{named(outcome.after)} · Breakdown"
    what = ACTION_TITLES.get(outcome.action, outcome.action.replace("_", " ").capitalize())
    return f"{named(outcome.after)} · {what}"


_V7 = ("VIT", "State")


def change_line(outcome: Outcome) -> str | None:
    """V-7: `VIT 1 → -1 · Up → Critical` (`VIT -1 · Dying → Dead` when VIT stayed), always,
    then every other visible change, on one line. (Advantage goes to the small line; what the
    headline says already is not said twice.)"""
    said = outcome.headline.casefold()
    # A Breakdown's start or end is the news of the headline whenever it names one.
    skip = {"Advantage"} | ({"Breakdown"} if "breakdown" in said else set())
    changes = [c for c in outcome.changes if c.label not in skip]
    state = change_texts([c for c in changes if c.label in _V7], vit=outcome.after.vit)
    others = change_texts([c for c in changes if c.label not in _V7])
    return changes_line(state + [t for t in others if t.casefold() not in said])


def small_line(outcome: Outcome) -> list[str]:
    """Bookkeeping a player may want to know, in a few words: the reaction cost back to 1
    (S-5), advantage used by a recovery roll (R-6) or lost on waking (H-4). The round's flags
    stay out of sight (they only refuse)."""
    before, after = outcome.before, outcome.after
    items = []
    if after.reactions_taken == 0 < before.reactions_taken:
        items.append("reaction cost back to 1")
    if before.advantage and not after.advantage and outcome.action != "undo":
        if outcome.action == "recover":
            items.append("advantage used")
        else:
            items.append("advantage lost on waking" if "H-4" in outcome.rules else "advantage gone")
    if after.advantage and not before.advantage and outcome.action != "first_aid":
        items.append("advantage on the next recovery roll")
    return items


# How far down a state is: a fall goes further down this list.
_DEPTH = {State.UP: 0, State.UNCONSCIOUS: 1, State.CRITICAL: 2, State.DYING: 3}


def fell(outcome: Outcome) -> bool:
    """A fall to Unconscious, Critical or Dying: the state went further down."""
    before, after = outcome.before.state, outcome.after.state
    return after.is_down and _DEPTH.get(after, 0) > _DEPTH.get(before, 0)


def _roll_back(outcome: Outcome) -> bool:
    """An undo that puts the character back down, or gives back the round's recovery roll
    (U-3, R-8): the roll is the next step again."""
    before, after = outcome.before, outcome.after
    return outcome.action == "undo" and (
        before.state is not after.state
        or (before.recovered_this_round and not after.recovered_this_round)
    )


def buttons(
    outcome: Outcome, character_id: int | None, *, in_combat: bool = False
) -> list[LastGaspButton]:
    """The next step in one click: the recovery roll on the announcement of a fall (R-1, R-3)
    or of Dying (R-5), and on an undo that makes it due again, disabled once this round's roll
    is used (R-8); the odds of a character that is down; the emotions a Daring Throw or a
    Reaction Roll may raise (K-4)."""
    after = outcome.after
    if character_id is not None and outcome.raise_cause is not None and after.state is State.UP:
        return list(RaiseButton.of(character_id, after, outcome.raise_cause))
    if character_id is None or not after.state.is_down:
        return []
    items: list[LastGaspButton] = []
    if fell(outcome) or _roll_back(outcome):
        used = roll_due(after, in_combat=in_combat) is RollDue.NEXT_ROUND
        items.append(RecoveryButton(character_id, after.vit, after.res, next_round=used))
    items.append(OddsButton(character_id))
    return items


def warm_pictures() -> None:
    """Draw every Last Gasp picture once (a few tens of ms each), so that no reply waits on
    one: the die rolled, rerolled from a Miss or not."""
    for face in (CRIT, HIT, MISS):
        for rerolled in (None, MISS):
            survived = face == CRIT
            verdict = "SURVIVES" if survived else "DEAD"
            last_gasp_png(face, rerolled_from=rerolled, survived=survived, verdict=verdict)


def _last_gasp_picture(outcome: Outcome) -> tuple[str, bytes] | None:
    roll = next((r for r in outcome.rolls if isinstance(r, NarateerRoll)), None)
    if roll is None or not roll.faces:
        return None
    final = roll.final[0]
    rerolled = MISS if roll.rerolls and roll.rerolls[0] is not None else None
    survived = final == CRIT
    png = last_gasp_png(
        final, rerolled_from=rerolled, survived=survived, verdict="SURVIVES" if survived else "DEAD"
    )
    return LAST_GASP_FILENAME, png


def outcome_reply(
    outcome: Outcome,
    *,
    character_id: int | None,
    settings: GuildSettings | None,
    faces: Faces,
    in_combat: bool = False,
) -> Reply:
    """The public result of one action (a Last Gasp is always public, R-5). `in_combat`: the
    character is in a combat, where its recovery roll is one per round (R-8)."""
    lines = [f"**{outcome.headline.render(escape)}**"] if outcome.headline else []
    change = change_line(outcome)
    if change:
        lines.append(change)
    for roll in outcome.rolls:
        lines.append(f"{roll_label(roll)}: {roll_text(roll, faces)}")
    lines += [note.render(escape) for note in outcome.notes]
    small = small_line(outcome)
    rules = rule_footer(outcome.rules, settings)
    if rules:
        small.append(rules)
    files = []
    if is_last_gasp(outcome):
        picture = _last_gasp_picture(outcome)
        if picture is not None:
            files.append(picture)
    card = Card(
        colour=colour(outcome),
        title=title(outcome),
        lines=tuple(lines),
        picture=files[0][0] if files else None,
        small=" · ".join(small) or None,
    )
    card = with_buttons(card, buttons(outcome, character_id, in_combat=in_combat))
    return Reply(card, files=files, ephemeral=not outcome.public and not is_last_gasp(outcome))
