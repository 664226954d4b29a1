"""What a message costs to build as the bot sends it (layout components) against what it cost as
the embed it was before (issue: every message built from layout components; "a layout costs no
more to build than an embed did"). Four messages from the bot's own renderers: a refusal, a
damage result, a fall (its two buttons) and a status board of 25 characters (its two buttons).

The layout: `bot/render/layout.py`'s `layout(card)` and the body discord.py sends of it
(`to_components`, the flag). The embed, as the bot built it before: an `Embed` with the title,
the text as its description, the colour and the small line as its footer (`to_dict`), and a
discord.py `View` holding the buttons when there were any (`to_components`). Warm, one process,
`timeit`'s best of five; run it on a quiet machine (`python -m bench.layout_cost`)."""

from __future__ import annotations

import argparse
import asyncio
import timeit
from collections.abc import Callable
from datetime import UTC, datetime

import discord

from bot.render.board import board_reply
from bot.render.card import Card, rows_text
from bot.render.dice import Faces
from bot.render.layout import layout
from bot.render.outcome import outcome_reply
from bot.render.reply import Reply
from bot.services.board import BoardView
from rules.models import GuildSettings, Sheet
from rules.vitality import damage


def embed_of(card: Card) -> Callable[[], object]:
    """The card as the embed and view the bot sent before its layout components."""
    text = "\n".join(
        part
        for part in (
            "\n".join(card.lines),
            rows_text(card),
            *("\n".join(str(e) for e in group.entries) for group in card.groups),
        )
        if part
    )
    buttons = [b for b in (card.accessory, *card.buttons) if b is not None]

    def build() -> object:
        embed = discord.Embed(title=card.title, description=text, colour=card.colour)
        if card.small:
            embed.set_footer(text=card.small)
        body: list[object] = [embed.to_dict()]
        if buttons:
            view = discord.ui.View(timeout=None)
            for button in buttons:
                view.add_item(button)
            body.append(view.to_components())
            view.stop()
        return body

    return build


def layout_of(card: Card) -> Callable[[], object]:
    def build() -> object:
        view = layout(card)
        return view.to_components(), view.has_components_v2(), view.is_finished()

    return build


def messages() -> dict[str, Card]:
    settings = GuildSettings()
    up = Sheet(name="Roryn", owner_id=1).update(vit=10)
    hurt = damage(up, 3, settings)
    fallen = damage(up, 10, settings)
    sheets = [Sheet(name=f"Character {i}", owner_id=i).update(vit=i % 11) for i in range(25)]
    board = BoardView(
        guild_id=1,
        channel_id=2,
        combat=None,
        sheets=sheets,
        more=0,
        settings=settings,
        latest_event=1,
    )
    faces = Faces.text()
    return {
        "refusal": Reply.refusal("There is no character called Nobody here.").card,
        "damage": outcome_reply(hurt, character_id=1, settings=settings, faces=faces).card,
        "fall (2 buttons)": outcome_reply(
            fallen, character_id=1, settings=settings, faces=faces
        ).card,
        "board of 25 (2 buttons)": board_reply(board, datetime.now(UTC)).card,
    }


def best_us(build: Callable[[], object], number: int) -> float:
    return 1e6 * min(timeit.repeat(build, number=number, repeat=5)) / number


async def measure(number: int) -> list[str]:
    """On the event loop, as the bot builds them (discord.py's views make a future there)."""
    lines = [f"{'message':<26} {'layout':>9} {'embed':>9}  layout ÷ embed"]
    for name, card in messages().items():
        ours, before = best_us(layout_of(card), number), best_us(embed_of(card), number)
        lines.append(f"{name:<26} {ours:7.1f} µs {before:7.1f} µs  {ours / before:5.2f}")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--number", type=int, default=5000, help="builds a timing (5000)")
    args = parser.parse_args(argv)
    print("\n".join(asyncio.run(measure(args.number))))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
