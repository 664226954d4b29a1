"""`/odds`: the exact chances of the next recovery roll, and of the spiral after it."""

from __future__ import annotations

from fractions import Fraction

import discord

from bot.render.common import chance, count, escape, fit, percent, state_colour, vit
from bot.services.play import Odds
from rules.models import State
from rules.odds import RecoveryOutcome

ROLL_NAMES = {
    State.UNCONSCIOUS: "recovery roll (R-1)",
    State.CRITICAL: "recovery roll (R-3)",
    State.DYING: "Last Gasp (R-5)",
}


RARE = Fraction(1, 10_000)  # below 0.01%: listed together, so that big rolls stay readable


def _outcome_lines(outcomes: tuple[RecoveryOutcome, ...]) -> str:
    rare = [o for o in outcomes if o.probability < RARE]
    lines = []
    for o in outcomes:
        if len(rare) > 1 and o in rare:
            if o is rare[0]:
                total = sum((r.probability for r in rare), Fraction(0))
                span = f"{rare[0].label} … {rare[-1].label}"
                lines.append(f"{percent(total)}: {len(rare)} rare results, {span}")
            continue
        lines.append(f"{chance(o.probability)}: {o.label}")
    return "\n".join(lines)


def odds_embed(odds: Odds) -> discord.Embed:
    sheet, next_roll = odds.sheet, odds.next_roll
    embed = discord.Embed(
        title=f"{escape(sheet.name)} · odds of the next {ROLL_NAMES[next_roll.state]}",
        description=(
            f"{vit(sheet)} · **{sheet.state.value}** · {count(next_roll.dice, 'die', 'dice')} "
            f"of `{odds.settings.die_faces}` (D-2)"
            + ("\nAdvantage from first aid applies to this roll (R-6)." if sheet.advantage else "")
        ),
        colour=state_colour(sheet.state),
    )
    embed.add_field(name="Next roll", value=_outcome_lines(next_roll.normal), inline=False)
    embed.add_field(
        name="Next roll with advantage (F-1)",
        value=_outcome_lines(next_roll.advantage),
        inline=False,
    )
    rows = [
        f"{step.roll:>2}: up {percent(step.up)} · down {percent(step.down)} · "
        f"dead {percent(step.dead)}"
        + (f" · retired {percent(step.retired)}" if step.retired else "")
        for step in odds.spiral
    ]
    embed.add_field(
        name=f"After each of the next {len(rows)} rolls, with no other help",
        value="\n".join(rows),
        inline=False,
    )
    embed.set_footer(text="Rules: D-2 · D-3 · R-1..R-6 · exact odds, no simulation")
    return fit(embed)
