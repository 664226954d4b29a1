"""The GM's scene (G-1..G-3): the private menu of characters, and the one public message of the
result: each character's headline, change and dice, its recovery roll beside it when it fell,
and who was skipped and why."""

from __future__ import annotations

import discord

from bot.render.buttons import RecoveryButton, SceneMenu
from bot.render.card import Card, Entry, Group
from bot.render.common import (
    EMOTION_COLOUR,
    INFO_COLOUR,
    STATE_COLOURS,
    choice_label,
    count,
    escape,
    fit_units,
    rule_footer,
)
from bot.render.dice import Faces, roll_label, roll_text
from bot.render.outcome import buttons, change_line
from bot.render.reply import Reply
from bot.services.scene import Menu, SceneResult
from rules.models import Emotion, Sheet, State
from rules.outcome import Outcome

OPTION_LABEL_LIMIT = 100  # Discord's, in UTF-16 units
# The more severe a state, the more it colours the scene's card.
_SEVERITY = {
    State.UP: 0,
    State.UNCONSCIOUS: 1,
    State.CRITICAL: 2,
    State.DYING: 3,
    State.RETIRED: 4,
    State.DEAD: 5,
}


def scene_arg(
    what: str,
    amount: int | None = None,
    emotion: Emotion | None = None,
    pressure: int | None = None,
) -> str:
    """The menu's own argument, as its custom id carries it: `5`, or `fear-8`."""
    if what == "breakdown":
        assert emotion is not None and pressure is not None
        return f"{emotion.value}-{pressure}"
    assert amount is not None
    return str(amount)


def _what(what: str, arg: str) -> str:
    """What the menu asks for, in words: `5 damage`, `Fear, Pressure 8`."""
    if what == "breakdown":
        emotion, pressure = arg.split("-")
        return f"a situational breakdown of {Emotion(emotion).label}, Pressure {pressure}"
    return f"{arg} damage" if what == "damage" else f"magic healing of {arg}"


def menu_question(menu: Menu, what: str, arg: str, asker_id: int, until: int) -> Reply:
    """G-1, G-2: the GM picks several characters, privately, within a minute."""
    options = [
        discord.SelectOption(
            label=fit_units(choice_label(sheet), OPTION_LABEL_LIMIT), value=str(row_id)
        )
        for row_id, sheet in menu.characters
    ]
    text = (
        f"**Who faces {_what(what, arg)}?** Pick one or more characters below: this channel's "
        f"combat comes first. The menu closes in a minute."
    )
    if menu.left_out:
        text += (
            f" It offers {len(options)} of {len(options) + menu.left_out} characters (Discord's "
            "most); name one with character: to reach the others."
        )
    placeholder = f"Choose up to {count(len(options), 'character')}"
    select = SceneMenu(what, arg, asker_id, until, options, placeholder=placeholder)
    return Reply(Card(colour=INFO_COLOUR, lines=(text,), buttons=(select,)), ephemeral=True)


def menu_answered(result: SceneResult) -> Reply:
    """What the menu becomes once chosen: the results are public, in the channel."""
    done = count(len(result.scene.outcomes), "character")
    text = f"Done for {done}: the results are in the channel."
    return Reply(Card(colour=INFO_COLOUR, lines=(text,)), ephemeral=True)


def menu_unanswered() -> Reply:
    """What the menu becomes when nobody chose in time."""
    return Reply(Card(colour=INFO_COLOUR, lines=("No choice made: nothing was rolled.",)))


def _entry(row_id: int, outcome: Outcome, faces: Faces, in_combat: bool) -> Entry:
    lines = [f"**{outcome.headline.render(escape)}**"]
    change = change_line(outcome)
    if change:
        lines.append(change)
    lines += [f"{roll_label(r)}: {roll_text(r, faces)}" for r in outcome.rolls]
    lines += [note.render(escape) for note in outcome.notes]  # a Breakdown's effects (E-6)
    roll = next(
        (b for b in buttons(outcome, row_id, in_combat=in_combat) if isinstance(b, RecoveryButton)),
        None,
    )
    return Entry("\n".join(lines), roll)


def _colour(what: str, afters: list[Sheet]) -> int:
    if what == "breakdown":
        return EMOTION_COLOUR
    if not afters:
        return INFO_COLOUR
    worst = max(afters, key=lambda s: _SEVERITY[s.state])
    return STATE_COLOURS[worst.state]


def _verb(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def _headline(what: str, outcomes: list[Outcome]) -> str:
    """What the scene did, counted: how many held firm or broke, fell or woke."""
    n = count(len(outcomes), "character")
    if what == "breakdown":
        held = sum(1 for o in outcomes if o.after == o.before)
        broke = sum(1 for o in outcomes if o.before.breakdown is None and o.after.breakdown)
        addressed = len(outcomes) - held - broke
        parts = [_verb(held, "holds firm", "hold firm"), _verb(broke, "breaks down", "break down")]
        if addressed:
            parts.append(_verb(addressed, "must address it", "must address it"))
        return f"Pressure on {n}: " + ", ".join(parts) + "."
    moved = sum(1 for o in outcomes if o.after.state is not o.before.state)
    done = f"{n} {'takes' if len(outcomes) == 1 else 'take'} the blow"
    if what == "heal":
        done = f"{n} {'is' if len(outcomes) == 1 else 'are'} healed"
    if not moved:
        return done + "."
    return done + f"; {_verb(moved, 'changes state', 'change state')}."


def _title(what: str, arg: str) -> str:
    """`Situational breakdown · Fear, Pressure 8`, `Damage · 5 each`."""
    if what == "breakdown":
        emotion, pressure = arg.split("-")
        return f"Situational breakdown · {Emotion(emotion).label}, Pressure {pressure}"
    return f"{'Damage' if what == 'damage' else 'Magic healing'} · {arg} each"


def scene_reply(what: str, arg: str, result: SceneResult, faces: Faces) -> Reply:
    """One public message: each character's result (its own event, G-1, G-2), a fall's recovery
    roll beside it; the skipped named with why (G-3)."""
    outcomes = [outcome for _, outcome in result.scene.outcomes]
    entries = tuple(
        _entry(row_id, outcome, faces, row_id in result.in_combat)
        for row_id, outcome in result.scene.outcomes
    )
    groups = [Group(entries, gap=True)] if entries else []
    skipped = tuple(f"Skipped: {s.why.render(escape)}" for s in result.scene.skipped)
    if skipped:
        groups.append(Group(skipped))
    rules = ["G-1" if what == "breakdown" else "G-2"] + (["G-3"] if skipped else [])
    rules += [r for o in outcomes for r in o.rules]  # each cites its scene's rule first
    lines = [f"**{_headline(what, outcomes)}**"] if outcomes else ["**Nobody could take part.**"]
    card = Card(
        colour=_colour(what, [o.after for o in outcomes]),
        title=_title(what, arg),
        lines=tuple(lines),
        groups=tuple(groups),
        small=rule_footer(rules, result.settings),
    )
    return Reply(card)
