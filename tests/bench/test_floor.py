"""The Discord floor (bench/breakdown.py), what `limit` divides the bot's time by: a command
that touches nothing and answers at once, through the same command tree and seam as the bot's
commands, sent as the bot sends its answers."""

from __future__ import annotations

from bench.breakdown import NOOP, noop_command
from bench.load import BotLoad
from bench.run import floor_payloads, seeded
from bench.world import World, sqlite_database

WORLD = World(guilds=2, characters=10)
COUNT, SEED = 30, 5


async def test_the_floor_answers_each_command_at_once_with_its_card() -> None:
    async with sqlite_database("floor-test") as url:
        await seeded(url, WORLD)
        load = BotLoad(url, WORLD, SEED)
        await load.start()
        load.bot.tree.add_command(noop_command())
        try:
            figures = await load.run_payloads(floor_payloads(load, COUNT, SEED), 4, "floor")
            member = load.plan(1, SEED)[0][0]
            result = await load.driver.invoke(member, NOOP, character="Ash *the* <Bold>")
        finally:
            await load.close()
    assert figures.commands == COUNT and figures.errors == 0 and figures.refused == 0
    reply = result.reply
    assert reply.kind == "reply" and reply.layout and not reply.ephemeral
    assert result.card.title == "Ash *the* <Bold>"  # what a member sees: the name as typed
    assert result.card.body == "VIT 10/10 · Up"
    (request,) = result.requests  # the answer alone: no defer, no followup
    assert request.payload is not None and request.payload["type"] == 4  # a channel message
