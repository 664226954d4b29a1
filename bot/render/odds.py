"""`/odds`: a headline (up after the next roll, dead or retired within ten), a chart of the next
ten rolls, and a short table of the next roll's results. Retirement (E-7) is its own outcome,
"Retired", in all three."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from bot.render.card import Card
from bot.render.common import (
    STATE_COLOURS,
    chance,
    count,
    named,
    rule_footer,
    short_percent,
)
from bot.render.dice import die_line
from bot.render.pictures import ODDS_FILENAME, ODDS_SERIES, OddsBar, odds_chart_png
from bot.render.reply import Reply
from bot.services.play import Odds
from rules.models import State
from rules.odds import RecoveryOdds, RecoveryOutcome, SpiralStep
from rules.vitality import advantage_applies

ROLL_NAMES = {
    State.UNCONSCIOUS: "recovery roll",
    State.CRITICAL: "recovery roll",
    State.DYING: "Last Gasp",
}
RARE = Fraction(1, 100)  # below 1%: listed together, so that big rolls stay short
MAX_ROWS = 5


def _rows(outcomes: tuple[RecoveryOutcome, ...]) -> list[str]:
    common = [o for o in outcomes if o.probability >= RARE]
    rare = [o for o in outcomes if o.probability < RARE]
    lines = [f"{chance(o.probability)}: {o.label}" for o in common[:MAX_ROWS]]
    rest = rare + common[MAX_ROWS:]
    if rest:
        total = sum((o.probability for o in rest), Fraction(0))
        lines.append(f"{short_percent(total)}: {len(rest)} rarer results")
    return lines


# The rules each roll follows, named under the odds.
ROLL_RULES = {
    State.UNCONSCIOUS: ("R-1", "R-2", "R-6"),
    State.CRITICAL: ("R-3", "R-4", "R-6"),
    State.DYING: ("R-5", "R-6"),
}


def _and_retired(text: str, retired: Fraction) -> str:
    """E-7: the chance to wake and retire, said beside the chance it sits with, where there is
    one."""
    return f"{text} and {short_percent(retired)} to be retired" if retired else text


def _headline(spiral: list[SpiralStep], roll_name: str, dying: bool) -> str:
    first, last = spiral[0], spiral[-1]
    # The Last Gasp never wakes anyone: for the Dying, the chance that counts is to live.
    if dying:
        start = f"{short_percent(1 - first.dead)} to survive the Last Gasp"
    else:
        start = _and_retired(f"{short_percent(first.up)} to be up", first.retired)
        start += f" after the next {roll_name}"
    end = _and_retired(f"{short_percent(last.dead)} to be dead", last.retired)
    return f"{start}, {end} within {len(spiral)} rolls."


def _helped(next_roll: RecoveryOdds, dying: bool) -> str:
    """F-1, R-6: what first aid's advantage would make of the next roll."""
    if dying:
        return f"{short_percent(1 - next_roll.chance(State.DEAD, advantage=True))} to survive"
    up = f"{short_percent(next_roll.chance(State.UP, advantage=True))} to be up"
    return _and_retired(up, next_roll.chance(State.RETIRED, advantage=True))


def chart_bars(spiral: list[SpiralStep]) -> list[OddsBar]:
    """The chart's bars: the exact shares, each labelled as the text writes a percentage."""
    bars = []
    for step in spiral:
        by_name = {"Dead": step.dead, "Down": step.down, "Up": step.up, "Retired": step.retired}
        shares = tuple(by_name[name] for name, _ in ODDS_SERIES)
        bars.append(OddsBar(step.roll, shares, tuple(short_percent(p) for p in shares)))
    return bars


@dataclass(frozen=True)
class OddsWords:
    """`/odds` in plain words, the same in Discord and on the campaign page: the headline, the
    roll due, the advantage that waits (R-6), the next roll's results, what first aid would
    make of it (F-1)."""

    headline: str
    roll_name: str
    roll: str
    waits: str | None
    rows: tuple[str, ...]
    helped: str | None


def odds_words(odds: Odds) -> OddsWords:
    sheet, next_roll, spiral, settings = odds.sheet, odds.next_roll, odds.spiral, odds.settings
    roll_name = ROLL_NAMES[next_roll.state]
    dying = next_roll.state is State.DYING
    # whether first aid's advantage would reroll the next roll's Misses.
    would_apply = advantage_applies(True, sheet.state, settings)
    roll = f"{count(next_roll.dice, 'die', 'dice')} (each: {die_line(settings.die_faces)})"
    if sheet.advantage and would_apply:
        roll += "; with advantage from first aid, each Miss is rolled again once"
    waits = None
    if sheet.advantage and not would_apply:
        waits = (
            "Its advantage from first aid waits: on this server it does not apply to the "
            "Last Gasp (R-6)."
        )
    helped = None
    if not sheet.advantage and would_apply:
        helped = f"With first aid's advantage: {_helped(next_roll, dying)} (F-1)."
    return OddsWords(
        headline=_headline(spiral, roll_name, dying),
        roll_name=roll_name,
        roll=f"{sheet.state.value} at VIT {sheet.vit}/{sheet.max_vit}: the {roll_name} is {roll}.",
        waits=waits,
        rows=tuple(_rows(next_roll.outcomes(sheet.advantage))),
        helped=helped,
    )


def odds_reply(odds: Odds, *, private: bool = False) -> Reply:
    sheet, next_roll, spiral, settings = odds.sheet, odds.next_roll, odds.spiral, odds.settings
    words = odds_words(odds)
    lines = [f"**{words.headline}**", words.roll]
    if words.waits:
        lines.append(words.waits)
    lines += ["", f"**The next {words.roll_name}**", *words.rows]
    if words.helped:
        lines.append(words.helped)
    rules = rule_footer(ROLL_RULES[next_roll.state], settings)
    card = Card(
        colour=STATE_COLOURS[sheet.state],
        title=f"{named(sheet)} · Odds",
        lines=tuple(lines),
        picture=ODDS_FILENAME,
        small=" · ".join(filter(None, [rules, "exact odds, no simulation"])),
    )
    chart = odds_chart_png(chart_bars(spiral), title=f"The next {len(spiral)} rolls")
    return Reply(card, files=[(ODDS_FILENAME, chart)], ephemeral=private)
