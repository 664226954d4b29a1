"""Serializability: after a long random concurrent load, every character's final state equals
the sequential replay of its event log through the rules engine.

Hundreds of play commands on a handful of characters, many in flight at once, through the
real command tree, on SQLite and on PostgreSQL. Then, per character, from the sheet it was
created with: each event must start exactly where the previous one ended (no lost update,
no interleaving inside one command), replaying the event's command and inputs through the
rules functions, with the dice the event recorded, must give the sheet the event recorded,
and the last one must be the sheet in the database. Every command that went through left
exactly one event.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from typing import Any

from rules import emotions, sheet_ops, stamina, table, vitality
from rules.dice import ScriptedRandom
from rules.models import GuildSettings, RestKind, Sheet
from rules.outcome import NarateerRoll, Outcome

CHARACTERS = ("Roryn", "Bex", "Cato", "Dara", "Eno", "Fay")
COMMANDS = 1000
IN_FLIGHT = 25
SEED = 1129


def plan(rng: random.Random) -> tuple[str, dict[str, Any]]:
    """One random play command on a random character, as the GM (out of combat the GM may
    call every one of them, R-8)."""
    name = rng.choice(CHARACTERS)
    command = rng.choice(
        ["damage", "damage", "heal", "heal", "recover", "recover", "aid", "react", "push",
         "spend", "emotion", "emotion", "relief", "turn", "rest", "rest", "character revive",
         "quest complete"]
    )  # fmt: skip
    options: dict[str, Any] = {"character": name}
    if command == "damage":
        options["amount"] = rng.randint(1, 4)
    elif command == "heal":
        options["amount"] = rng.randint(1, 5)
    elif command == "aid":
        options["success"] = True
    elif command == "react":
        options["what"] = "dodge"
    elif command in ("push", "spend"):
        options["amount"] = rng.randint(1, 2)
        if command == "spend":
            options["reason"] = "Channel Casting"
    elif command == "emotion":
        options.update(emotion=rng.choice(["anger", "fear", "sadness", "guilt"]), stages=1)
    elif command == "relief":
        options["method"] = rng.choice(["drive", "reward"])
    elif command == "rest":
        options["kind"] = "short"
    return command, options


def dice_of(rolls: tuple[Any, ...], faces: str) -> ScriptedRandom:
    """The random source that makes the rules roll what the event recorded (D-5)."""
    values: list[int] = []
    for roll in rolls:
        assert isinstance(roll, NarateerRoll), f"a replayed command rolled {roll!r}"
        letters = list(roll.faces) + [r for r in roll.rerolls if r is not None]
        values += [faces.index(letter) for letter in letters]
    return ScriptedRandom(values)


Replay = Callable[[Sheet, dict[str, Any], GuildSettings, ScriptedRandom], Outcome]
REPLAY: dict[str, Replay] = {
    "damage": lambda s, i, g, r: vitality.damage(s, i["amount"], g),
    "heal": lambda s, i, g, r: vitality.heal(s, i["amount"], g),
    "recover": lambda s, i, g, r: vitality.recover(
        s, g, r, faces=i.get("faces"), in_combat=False, by_gm=True
    ),
    "aid": lambda s, i, g, r: vitality.first_aid(
        s, g, r, success=i.get("success"), roll=i.get("roll"), target=i.get("target")
    ),
    "react": lambda s, i, g, r: stamina.react(s, i.get("what")),
    "push": lambda s, i, g, r: stamina.push(s, i["amount"], r, what=i.get("what")),
    "spend": lambda s, i, g, r: stamina.spend(s, i["amount"], i["reason"]),
    "emotion": lambda s, i, g, r: emotions.raise_emotion(s, i["emotion"], i["stages"]),
    "relief": lambda s, i, g, r: emotions.relief(s, i["method"], i.get("emotion")),
    "turn": lambda s, i, g, r: table.start_turn(s, g),
    "rest": lambda s, i, g, r: stamina.rest(s, RestKind(i["kind"])),
    "character revive": lambda s, i, g, r: sheet_ops.revive(s),
    "quest complete": lambda s, i, g, r: emotions.complete_quest(s),
}


async def test_concurrent_load_equals_the_sequential_replay_of_the_log(any_harness: Any) -> None:
    h = any_harness
    h.bot.rng = random.Random(SEED)  # the bot's dice; the log keeps every face
    owners = [h.owner, h.player] * 3
    created = {
        name: await h.add_character(name, owner=owner, res=3)
        for name, owner in zip(CHARACTERS, owners, strict=True)
    }
    rng = random.Random(SEED)
    planned = [plan(rng) for _ in range(COMMANDS)]
    in_flight = asyncio.Semaphore(IN_FLIGHT)
    refusals: dict[str, int] = {}

    async def one(command: str, options: dict[str, Any]) -> bool:
        async with in_flight:
            result = await h.driver.invoke(h.gm, command, **options)
        reply = result.reply
        assert "Something went wrong" not in reply.content, (command, options, reply.content)
        if not reply.embeds:
            refusals[command] = refusals.get(command, 0) + 1
        return bool(reply.embeds)  # a result, not a refusal

    went_through = sum(await asyncio.gather(*(one(c, o) for c, o in planned)))
    assert went_through > COMMANDS // 2, f"the load was mostly refused: {refusals}"

    settings = GuildSettings()
    logged = 0
    async with h.db.transaction(h.guild.id, read_only=True) as uow:
        for name in CHARACTERS:
            row = await uow.character(name, lock=False)
            log = list(reversed(await uow.history(row.id, COMMANDS + 10)))
            logged += len(log)
            sheet = created[name]
            for event in log:
                where = f"{name}, event {event.id} /{event.command} {event.inputs}"
                assert event.before == sheet, f"{where} does not start where the last ended"
                rng_of_event = dice_of(event.rolls, settings.die_faces)
                outcome = REPLAY[event.command](sheet, event.inputs, settings, rng_of_event)
                assert outcome.rolls == event.rolls, f"{where}: other dice on replay"
                assert outcome.after == event.after, f"{where}: replay gives another sheet"
                sheet = outcome.after
            assert sheet == row.sheet, f"{name}: the database differs from its replayed log"
    assert logged == went_through, "a command that went through left no event, or two"
