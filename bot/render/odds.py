"""`/odds`: a headline (up after the next roll, dead within ten), a chart of the next ten rolls,
and a short table of the next roll's results."""

from __future__ import annotations

from fractions import Fraction

import discord

from bot.render.common import (
    STATE_COLOURS,
    chance,
    count,
    fit,
    named,
    rule_footer,
    short_percent,
)
from bot.render.dice import die_line
from bot.render.pictures import ODDS_FILENAME, odds_chart_png
from bot.render.reply import Reply
from bot.services.play import Odds
from rules.models import State
from rules.odds import RecoveryOutcome
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


def _up(outcome: RecoveryOutcome) -> bool:
    return outcome.state is State.UP


def _alive(outcome: RecoveryOutcome) -> bool:
    return outcome.state is not State.DEAD


def odds_reply(odds: Odds, *, private: bool = False) -> Reply:
    sheet, next_roll, spiral, settings = odds.sheet, odds.next_roll, odds.spiral, odds.settings
    roll_name = ROLL_NAMES[next_roll.state]
    dying = next_roll.state is State.DYING
    dead_later = spiral[-1].dead
    # The Last Gasp never wakes anyone: for the Dying, the chance that counts is to live.
    first = (
        f"{short_percent(1 - spiral[0].dead)} to survive the Last Gasp"
        if dying
        else f"{short_percent(spiral[0].up)} to be up after the next {roll_name}"
    )
    headline = f"{first}, {short_percent(dead_later)} to be dead within {len(spiral)} rolls."
    # whether first aid's advantage would reroll the next roll's Misses.
    would_apply = advantage_applies(True, sheet.state, settings)
    roll = f"{count(next_roll.dice, 'die', 'dice')} (each: {die_line(settings.die_faces)})"
    if sheet.advantage and would_apply:
        roll += "; with advantage from first aid, each Miss is rolled again once"
    lines = [
        f"**{headline}**",
        f"{sheet.state.value} at VIT {sheet.vit}/{sheet.max_vit}: the {roll_name} is {roll}.",
    ]
    if sheet.advantage and not would_apply:
        lines.append(
            "Its advantage from first aid waits: on this server it does not apply to the "
            "Last Gasp (R-6)."
        )
    lines += ["", f"**The next {roll_name}**", *_rows(next_roll.outcomes(sheet.advantage))]
    if not sheet.advantage and would_apply:
        wanted = _alive if dying else _up
        better = sum((o.probability for o in next_roll.advantage if wanted(o)), Fraction(0))
        what = "to survive" if dying else "to be up"
        lines.append(f"With first aid's advantage: {short_percent(better)} {what} (F-1).")
    embed = discord.Embed(
        title=f"{named(sheet)} · Odds",
        description="\n".join(lines),
        colour=STATE_COLOURS[sheet.state],
    )
    embed.set_image(url=f"attachment://{ODDS_FILENAME}")
    rules = rule_footer(ROLL_RULES[next_roll.state], settings)
    embed.set_footer(text=" · ".join(filter(None, [rules, "exact odds, no simulation"])))
    steps = [
        (step.roll, float(step.up), float(step.down), float(step.dead + step.retired))
        for step in spiral
    ]
    chart = odds_chart_png(_normalised(steps), title=f"The next {len(steps)} rolls")
    return Reply(embeds=[fit(embed)], files=[(ODDS_FILENAME, chart)], ephemeral=private)


def _normalised(
    steps: list[tuple[int, float, float, float]],
) -> list[tuple[int, float, float, float]]:
    """Float rounding of exact fractions: each step sums to 1 again."""
    out = []
    for roll, up, down, dead in steps:
        total = up + down + dead
        out.append((roll, up / total, down / total, dead / total))
    return out
