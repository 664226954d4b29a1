"""The GM's scene (G-1..G-3) through the command tree (docs/rules.md, Several characters at
once): `/breakdown everyone:true`, the GM's private menu of characters (`/breakdown` with neither
`character` nor `everyone`, `/damage several:true`, `/heal several:true`), chosen as Discord
sends a choice (a component payload with `values`); one public message, one event per
character, the ones that cannot take part named and skipped. Every die scripted. The scene's
transaction runs on SQLite and, when TEST_DATABASE_URL names a server, on PostgreSQL."""

from __future__ import annotations

import asyncio
import copy
from datetime import timedelta
from typing import Any

import pytest

from bot.cogs import scene_menu
from bot.offline import Message, Result
from bot.offline.layout import COMPONENTS_LIMIT, TEXT_LIMIT, Select, count, text_length
from bot.render.common import EMOTION_COLOUR, INFO_COLOUR, STATE_COLOURS, escape
from rules.emotion_texts import ADDRESS_ACTIONS
from rules.models import Emotion, State
from tests.discord.conftest import Harness, assert_refused, lines

EXPIRED = "This menu has expired"
CHOSEN_ALREADY = (
    "This menu was answered already: the rolls are in the channel. Nothing more was done."
)
HOSTILE = "**Sir** @everyone"
HOSTILE_SHOWN = "\\*\\*Sir\\*\\* \\@everyone"


@pytest.fixture
def both(any_harness):
    return any_harness


# --- helpers -------------------------------------------------------------------------------------


def callbacks(result: Result) -> list[Any]:
    return [r for r in result.requests if r.path.endswith("/callback")]


def menu_of(result: Result) -> Select:
    [select] = result.card.selects
    return select


def value_of(select: Select, name: str) -> str:
    """The option of the character `name` (its label: `🟢 Roryn · Up, VIT 10/10`)."""
    [value] = [v for label, v in select.options if label.split(" ", 1)[1].startswith(f"{name} · ")]
    return value


async def ask(harness: Harness, command: str, member: Any = None, **options: Any) -> Result:
    """The GM's private menu."""
    asked = await harness.run(member or harness.gm, command, **options)
    assert asked.ephemeral, asked.text()
    assert callbacks(asked)[0].payload["type"] == 4
    return asked


async def choose(
    harness: Harness, member: Any, message: Message, select: Select, names: list[str]
) -> Result:
    values = [value_of(select, name) for name in names]
    return harness.validated(await harness.driver.select(member, message, select.custom_id, values))


def scene_message(result: Result) -> Message:
    """The public message of the scene, posted after the menu's own answer."""
    menu, posted = result.messages
    assert menu.ephemeral and not posted.ephemeral, result.text()
    return posted


def texts(message: Message) -> str:
    return message.card.markdown


def hold_clock(harness: Harness) -> list[Any]:
    """The bot's clock stands still (moved by hand): no deadline passes by itself."""
    now = [harness.bot.clock()]
    harness.bot.clock = lambda: now[0]
    return now


# --- G-1: everyone:true


async def combat_of_four(harness: Harness) -> None:
    """Roryn (Composure +2), Tam (injured -1 on Reaction Rolls, in a Breakdown of Anger:
    Disadvantage), Bea (Unconscious), Cor (Dead) in this channel's combat; Sera outside it."""
    await harness.add_character("Roryn", composure=2)
    await harness.add_character("Tam", owner=harness.player, vit=5, anger=4, breakdown="anger")
    await harness.add_character("Bea", vit=0)
    await harness.add_character("Cor", vit=-4, dead=True)
    await harness.add_character("Sera")
    await harness.start_combat(["Roryn", "Tam", "Bea", "Cor"])


async def test_G_1_everyone_rolls_its_own_reaction_roll_in_one_public_message(both):
    harness = both
    await combat_of_four(harness)
    rng = harness.script_values(5, 9, 4)  # Roryn 5; Tam 9 and 4, the lower kept
    result = await harness.run(harness.gm, "breakdown", emotion="fear", pressure=6, everyone=True)
    assert len(result.messages) == 1 and not result.ephemeral
    card = result.card
    assert card.title == "Situational breakdown · Fear, Pressure 6"
    assert card.colour == EMOTION_COLOUR
    assert lines(result) == [
        "**Pressure on 2 characters: 1 holds firm, 0 break down, 1 must address it.**",
        "**Roryn holds firm: the Reaction Roll succeeds (7 against Pressure 6), nothing happens.**",
        "Reaction Roll (Composure): `1d10` → 5, +2 Composure = 7 vs 6 ✓",
        "",
        "**Tam fails while in a Breakdown (3 against Pressure 6): it must address Fear on the "
        "spot, which ends the Breakdown; every emotion is cleared, Stress stays.**",
        "Anger 4/4 → 0/4",
        "Reaction Roll (Composure): `1d10` → 4, -1 injury = 3 vs 6 ✗",
        "Reaction Roll (Composure): `1d10` → 9, -1 injury = 8 · not kept, the lower counts",
        f"To address Fear: {ADDRESS_ACTIONS[Emotion.FEAR]}",
        "Skipped: Bea is Unconscious: only a conscious character faces a situational breakdown "
        "(G-1).",
        "Skipped: Cor is Dead: a situational breakdown is not possible. The GM can bring it back "
        "with /character revive.",
    ]
    assert "Sera" not in texts(result.reply)  # not in the combat
    assert rng.remaining == 0
    # One event each, for those who rolled; nothing for the skipped.
    for name in ("Roryn", "Tam"):
        [event] = await harness.history(name)
        assert (event.command, event.inputs) == (
            "breakdown",
            {"emotion": "fear", "pressure": 6, "everyone": True},
        )
        assert event.user_id == harness.gm.user_id
    for name in ("Bea", "Cor", "Sera"):
        assert await harness.history(name, bookkeeping=True) == []
    tam = await harness.sheet("Tam")
    assert (tam.breakdown, tam.anger) == (None, 0)


async def test_G_1_undoing_one_characters_roll_leaves_the_others(both):
    harness = both
    await harness.add_character("Roryn")
    await harness.add_character("Tam", owner=harness.player)
    await harness.start_combat(["Roryn", "Tam"])
    harness.script_values(1, 2)  # both fail: a Breakdown of Guilt begins for each
    result = await harness.run(harness.gm, "breakdown", emotion="guilt", pressure=5, everyone=True)
    assert lines(result)[0] == "**Pressure on 2 characters: 0 hold firm, 2 break down.**"
    assert (await harness.sheet("Roryn")).breakdown is Emotion.GUILT
    assert (await harness.sheet("Tam")).breakdown is Emotion.GUILT
    undone = await harness.run(harness.gm, "undo", character="Tam")
    assert not undone.ephemeral
    assert (await harness.sheet("Tam")).breakdown is None
    assert (await harness.sheet("Roryn")).breakdown is Emotion.GUILT
    [roryn] = await harness.history("Roryn")
    assert (roryn.command, roryn.reverted) == ("breakdown", False)
    [undo, tam] = await harness.history("Tam")
    assert (undo.command, tam.reverted_by) == ("undo", undo.id)


async def test_G_1_everyone_rolls_in_the_order_of_the_combat_with_its_own_ability(harness):
    """Anger tests Humility (E-8): each character's own."""
    await harness.add_character("Roryn", humility=3, composure=-5)
    await harness.add_character("Tam", owner=harness.player, humility=-1)
    await harness.start_combat(["Roryn", "Tam"])
    harness.script_values(2, 7)
    result = await harness.run(harness.gm, "breakdown", emotion="anger", pressure=5, everyone=True)
    shown = [line for line in lines(result) if line.startswith("Reaction Roll")]
    assert shown == [
        "Reaction Roll (Humility): `1d10` → 2, +3 Humility = 5 vs 5 ✓",
        "Reaction Roll (Humility): `1d10` → 7, -1 Humility = 6 vs 5 ✓",
    ]


async def test_G_1_each_event_of_a_scene_cites_G_1_in_history(harness):
    await harness.add_character("Roryn")
    await harness.start_combat(["Roryn"])
    harness.script_values(9)
    result = await harness.run(harness.gm, "breakdown", emotion="fear", pressure=4, everyone=True)
    assert "G-1" in result.card.small
    [event] = await harness.history("Roryn")
    assert "G-1" in event.rules


async def test_G_1_E_6_the_scene_recalls_the_effects_of_a_breakdown(harness):
    await harness.add_character("Roryn")
    await harness.add_character("Tam", owner=harness.player, anger=4, breakdown="anger")
    await harness.start_combat(["Roryn", "Tam"])
    harness.script_values(1, 9, 9)  # Roryn breaks down; Tam holds firm in its Breakdown
    result = await harness.run(harness.gm, "breakdown", emotion="fear", pressure=4, everyone=True)
    assert lines(result)[0] == "**Pressure on 2 characters: 1 holds firm, 1 breaks down.**"
    reminders = [line for line in lines(result) if "Disadvantage" in line]
    assert len(reminders) == 2, lines(result)


async def test_G_1_everyone_needs_a_combat_here(both):
    harness = both
    await harness.add_character("Roryn")
    await harness.refusal(
        harness.gm,
        "breakdown",
        "no combat in this channel",
        emotion="fear",
        pressure=6,
        everyone=True,
    )


async def test_G_3_a_combat_where_nobody_can_take_part_names_them_all(harness):
    await harness.add_character("Bea", vit=0)
    await harness.start_combat(["Bea"])
    before = await harness.snapshot()
    result = await harness.run(harness.gm, "breakdown", emotion="fear", pressure=6, everyone=True)
    assert lines(result) == [
        "**Nobody could take part.**",
        "Skipped: Bea is Unconscious: only a conscious character faces a situational breakdown "
        "(G-1).",
    ]
    assert await harness.snapshot() == before


async def test_P_3_everyone_is_the_gms(both):
    harness = both
    await combat_of_four(harness)
    rng = harness.script_values(5, 9, 4)
    for member in (harness.owner, harness.player):
        await harness.refusal(
            member, "breakdown", "(P-3)", emotion="fear", pressure=6, everyone=True
        )
    assert rng.remaining == 3


async def test_G_1_a_die_rolled_by_hand_is_for_one_character(harness):
    await combat_of_four(harness)
    said = "A die rolled by hand is for one character"
    await harness.refusal(
        harness.gm, "breakdown", said, emotion="fear", pressure=6, everyone=True, roll=4
    )
    await harness.refusal(harness.gm, "breakdown", said, emotion="fear", pressure=6, roll=4)


async def test_G_1_everyone_and_a_character_is_refused(harness):
    await combat_of_four(harness)
    await harness.refusal(
        harness.gm,
        "breakdown",
        "not both",
        emotion="fear",
        pressure=6,
        everyone=True,
        character="Roryn",
    )


@pytest.mark.parametrize("command", ["damage", "heal"])
async def test_G_2_a_character_and_several_is_refused(harness, command):
    await harness.add_character("Roryn", vit=5)
    await harness.refusal(
        harness.gm, command, "not both", amount=2, several=True, character="Roryn"
    )


# --- G-1: the GM's menu ------------------------------------------------------------------------


async def test_G_1_the_menu_is_private_and_offers_the_combat_first_at_most_25(harness):
    now = hold_clock(harness)
    for i in range(30):
        await harness.add_character(f"A{i:02d}", owner=harness.player)
    await harness.add_character("Zed")
    await harness.add_character("Bea", vit=0)  # down: not offered for a breakdown
    await harness.add_character("Cor", vit=-4, dead=True)
    await harness.start_combat(["Zed", "Bea"])
    asked = await ask(harness, "breakdown", emotion="fear", pressure=8)
    card = asked.card
    assert card.colour == INFO_COLOUR
    assert lines(asked) == [
        "**Who faces a situational breakdown of Fear, Pressure 8?** Pick one or more characters "
        "below: this channel's combat comes first. The menu closes in a minute. It offers 25 of "
        "31 characters (Discord's most); name one with character: to reach the others."
    ]
    select = menu_of(asked)
    labels = [label for label, _ in select.options]
    assert len(labels) == 25
    assert labels[0] == "🟢 Zed · Up, VIT 10/10"
    assert labels[1:] == [f"🟢 A{i:02d} · Up, VIT 10/10" for i in range(24)]
    assert (select.min_values, select.max_values) == (1, 25)
    assert select.placeholder == "Choose up to 25 characters"
    until = int(now[0].timestamp() + 60)  # a minute, as the delete question
    assert select.custom_id == f"lg:pick:breakdown:fear-8:{harness.gm.user_id}:{until}"


async def test_G_2_a_damage_menu_offers_the_down_not_the_dead(harness):
    await harness.add_character("Roryn")
    await harness.add_character("Bea", vit=0)
    await harness.add_character("Cor", vit=-4, dead=True)
    await harness.add_character("Sera", stress=12, retired=True)
    asked = await ask(harness, "damage", amount=3, several=True)
    assert lines(asked)[0].startswith("**Who faces 3 damage?**")
    assert [label for label, _ in menu_of(asked).options] == [
        "🟡 Bea · Unconscious, VIT 0/10",
        "🟢 Roryn · Up, VIT 10/10",
    ]
    assert menu_of(asked).placeholder == "Choose up to 2 characters"


@pytest.mark.parametrize(
    ("command", "options"),
    [
        ("breakdown", {"emotion": "fear", "pressure": 8}),
        ("damage", {"amount": 3, "several": True}),
        ("heal", {"amount": 3, "several": True}),
    ],
)
async def test_P_3_a_player_gets_no_menu(harness, command, options):
    await harness.add_character("Roryn")
    await harness.refusal(harness.owner, command, "(P-3)", **options)


async def test_G_1_a_menu_of_nobody_is_refused(harness):
    await harness.add_character("Bea", vit=0)
    await harness.refusal(
        harness.gm, "breakdown", "No character can take part", emotion="fear", pressure=8
    )


async def test_G_1_a_choice_posts_one_public_message_and_the_menu_says_where(both):
    harness = both
    await harness.add_character("Roryn", composure=1)
    await harness.add_character("Tam", owner=harness.player)
    await harness.add_character("Sera")
    asked = await ask(harness, "breakdown", emotion="sadness", pressure=4)
    harness.script_values(2, 6)
    chosen = await choose(harness, harness.gm, asked.reply, menu_of(asked), ["Tam", "Roryn"])
    callback = callbacks(chosen)
    assert callback[0].payload["type"] == 7  # the menu replaced by its answer
    menu, posted = chosen.messages
    assert menu.id == asked.reply.id and menu.ephemeral
    assert menu.card.body == "Done for 2 characters: the results are in the channel."
    assert menu.card.selects == ()
    assert posted.card.title == "Situational breakdown · Sadness, Pressure 4"
    assert posted.card.lines[0] == "**Pressure on 2 characters: 1 holds firm, 1 breaks down.**"
    # Each its own roll, its own Composure: Tam 2 (+0), Roryn 6 +1.
    body = posted.card.body
    assert "Reaction Roll (Composure): `1d10` → 2 vs 4 ✗" in body
    assert "Reaction Roll (Composure): `1d10` → 6, +1 Composure = 7 vs 4 ✓" in body
    assert "Sera" not in body
    for name in ("Roryn", "Tam"):
        [event] = await harness.history(name)
        assert (event.command, event.inputs) == ("breakdown", {"emotion": "sadness", "pressure": 4})
    assert await harness.history("Sera", bookkeeping=True) == []


async def test_G_1_the_chosen_roll_in_the_order_chosen(harness):
    await harness.add_character("Roryn", composure=1)
    await harness.add_character("Tam", owner=harness.player)
    asked = await ask(harness, "breakdown", emotion="sadness", pressure=4)
    harness.script_values(2, 6)
    chosen = await choose(harness, harness.gm, asked.reply, menu_of(asked), ["Tam", "Roryn"])
    posted = scene_message(chosen)
    assert [
        line for line in posted.card.lines if line.startswith("**") and "Pressure on" not in line
    ] == [
        "**Tam breaks down: the Reaction Roll fails (2 against Pressure 4); a Breakdown of "
        "Sadness begins.**",
        "**Roryn holds firm: the Reaction Roll succeeds (7 against Pressure 4), nothing happens.**",
    ]


async def test_G_1_a_second_choice_is_told_privately_and_changes_nothing(both):
    harness = both
    await harness.add_character("Roryn")
    await harness.add_character("Tam", owner=harness.player)
    asked = await ask(harness, "breakdown", emotion="fear", pressure=4)
    shown = copy.deepcopy(asked.reply)  # the client had not redrawn the menu yet
    select = menu_of(asked)
    harness.script_values(1, 1)
    await choose(harness, harness.gm, shown, select, ["Roryn", "Tam"])
    before = await harness.snapshot()
    rng = harness.script_values(9, 9)
    again = await choose(harness, harness.gm, shown, select, ["Roryn"])
    assert len(callbacks(again)) == 1
    assert assert_refused(again) == CHOSEN_ALREADY
    assert await harness.snapshot() == before
    assert rng.remaining == 2
    assert harness.driver.messages[asked.reply.id].card.body == (
        "Done for 2 characters: the results are in the channel."
    )


async def test_G_1_a_double_submit_in_flight_together_rolls_once(harness):
    await harness.add_character("Roryn")
    await harness.add_character("Tam", owner=harness.player)
    asked = await ask(harness, "breakdown", emotion="fear", pressure=4)
    select = menu_of(asked)
    values = [value_of(select, "Roryn"), value_of(select, "Tam")]
    harness.script_values(1, 1, 9, 9)
    results = await asyncio.gather(
        *(
            harness.driver.select(harness.gm, copy.deepcopy(asked.reply), select.custom_id, values)
            for _ in range(2)
        )
    )
    for result in results:
        harness.validated(result)
    [event] = await harness.history("Roryn")
    assert event.command == "breakdown"
    assert len(await harness.events("breakdown")) == 2  # one per character, not two each
    refused = [r for r in results if r.reply.ephemeral and r.card.colour != INFO_COLOUR]
    assert len(refused) == 1
    assert assert_refused(refused[0]) == CHOSEN_ALREADY


async def test_G_1_a_value_the_menu_did_not_offer_is_refused(harness):
    """A forged choice: a character the menu did not offer (Cor is Dead; Mallory's is another
    server's)."""
    await harness.add_character("Roryn")
    await harness.add_character("Cor", vit=-4, dead=True)
    await harness.add_character("Far", owner=harness.outsider, guild=harness.other_guild)
    asked = await ask(harness, "damage", amount=5, several=True)
    select = menu_of(asked)
    cor = str((await harness.row("Cor")).id)
    far = str((await harness.row("Far", guild=harness.other_guild)).id)
    before = await harness.snapshot()
    for values in ([cor], [value_of(select, "Roryn"), far], ["not-a-number"]):
        forged = harness.validated(
            await harness.driver.select(harness.gm, asked.reply, select.custom_id, values)
        )
        assert_refused(forged, "That choice is not one the menu offered")
    assert await harness.snapshot() == before


async def test_G_1_a_choice_by_someone_else_than_the_asker_is_refused(both):
    harness = both
    await harness.add_character("Roryn")
    asked = await ask(harness, "breakdown", emotion="fear", pressure=4)
    select = menu_of(asked)
    other_gm = harness.member("Gwen", manage_guild=True)
    before = await harness.snapshot()
    rng = harness.script_values(9)
    for member in (harness.player, harness.owner, other_gm):
        refused = await choose(harness, member, asked.reply, select, ["Roryn"])
        assert_refused(refused, "Only the GM who asked can choose")
    assert await harness.snapshot() == before
    assert rng.remaining == 1
    # The menu is still open for its asker.
    done = await choose(harness, harness.gm, asked.reply, select, ["Roryn"])
    assert scene_message(done).card.title == "Situational breakdown · Fear, Pressure 4"


async def test_G_1_a_choice_after_the_deadline_is_refused_as_expired(harness):
    now = hold_clock(harness)
    await harness.add_character("Roryn")
    asked = await ask(harness, "breakdown", emotion="fear", pressure=4)
    select = menu_of(asked)
    before = await harness.snapshot()
    rng = harness.script_values(9)
    now[0] += timedelta(minutes=2)
    late = await choose(harness, harness.gm, asked.reply, select, ["Roryn"])
    assert len(callbacks(late)) == 1
    assert_refused(late, EXPIRED)
    assert await harness.snapshot() == before
    assert rng.remaining == 1


async def test_G_1_a_choice_at_the_deadline_itself_is_taken(harness):
    now = hold_clock(harness)
    await harness.add_character("Roryn")
    asked = await ask(harness, "breakdown", emotion="fear", pressure=4)
    select = menu_of(asked)
    until = int(select.custom_id.rsplit(":", 1)[1])
    now[0] += timedelta(seconds=until - now[0].timestamp())  # at the deadline itself
    harness.script_values(9)
    done = await choose(harness, harness.gm, asked.reply, select, ["Roryn"])
    assert scene_message(done).card.lines[0].startswith("**Pressure on 1 character")


async def wait_for_edit(harness: Harness, message_id: int, body: str) -> Message:
    """The menu's timeout runs on the event loop's timer, outside any interaction."""
    for _ in range(500):
        message = harness.driver.messages[message_id]
        if message.card.body == body:
            return message
        await asyncio.sleep(0.01)
    return harness.driver.messages[message_id]


async def test_G_1_a_menu_left_unanswered_says_so_after_its_time(harness, monkeypatch):
    monkeypatch.setattr(scene_menu, "MENU_SECONDS", 0.05)
    now = hold_clock(harness)
    await harness.add_character("Roryn")
    asked = await ask(harness, "damage", amount=2, several=True)
    select = menu_of(asked)
    shown = copy.deepcopy(asked.reply)  # a client that missed the edit
    before = await harness.snapshot()
    edited = await wait_for_edit(harness, asked.reply.id, "No choice made: nothing was rolled.")
    assert edited.card.body == "No choice made: nothing was rolled."
    assert edited.card.selects == ()
    assert edited.ephemeral
    assert await harness.snapshot() == before
    now[0] += timedelta(minutes=2)
    late = await choose(harness, harness.gm, shown, select, ["Roryn"])
    assert_refused(late, EXPIRED)
    assert (await harness.sheet("Roryn")).vit == 10


async def test_G_1_the_timeout_never_rewrites_an_answered_menu(harness, monkeypatch):
    """The deadline's job, run by hand once the menu was answered: it keeps the answer."""
    jobs = []
    monkeypatch.setattr(scene_menu, "after_deadline", lambda delay, job: jobs.append((delay, job)))
    hold_clock(harness)
    await harness.add_character("Roryn")
    asked = await ask(harness, "damage", amount=2, several=True)
    [(delay, job)] = jobs
    assert delay == scene_menu.MENU_SECONDS == 60
    await choose(harness, harness.gm, asked.reply, menu_of(asked), ["Roryn"])
    await job()
    assert harness.driver.messages[asked.reply.id].card.body == (
        "Done for 1 character: the results are in the channel."
    )


# --- G-2: damage and healing for several ---------------------------------------------------------


async def test_G_2_damage_to_several_one_message_one_event_each_a_fall_with_its_button(both):
    harness = both
    await harness.add_character("Roryn", vit=2, res=2)
    await harness.add_character("Tam", owner=harness.player)
    await harness.add_character("Bea", vit=1, res=1)
    await harness.start_combat(["Roryn"])
    roryn_id = (await harness.row("Roryn")).id
    asked = await ask(harness, "damage", amount=3, several=True)
    chosen = await choose(harness, harness.gm, asked.reply, menu_of(asked), ["Roryn", "Tam", "Bea"])
    assert chosen.messages[0].card.body == "Done for 3 characters: the results are in the channel."
    posted = scene_message(chosen)
    card = posted.card
    assert card.title == "Damage · 3 each"
    assert card.colour == STATE_COLOURS[State.DYING]  # the worst state it leaves
    assert card.lines[0] == "**3 characters take the blow; 2 change state.**"
    body = card.body
    assert "VIT 2 → -1 · Up → Critical" in body
    assert "VIT 10 → 7" in body
    assert "VIT 1 → -2 · Up → Dying" in body
    # Each fall its own button, beside its lines: a section's accessory.
    labels = [b.label for b in card.buttons]
    assert labels == ["Recovery roll", "Roll the Last Gasp"]
    assert card.buttons[0].custom_id == f"lg:recover:{roryn_id}:-1:2"
    sections = [c for c in posted.components[0]["components"] if c["type"] == 9]
    assert len(sections) == 2
    assert "Roryn" in sections[0]["components"][0]["content"]
    assert "Bea" in sections[1]["components"][0]["content"]
    assert sections[0]["accessory"]["custom_id"] == card.buttons[0].custom_id
    for name, vit in (("Roryn", -1), ("Tam", 7), ("Bea", -2)):
        [event] = await harness.history(name)
        assert (event.command, event.inputs) == ("damage", {"amount": 3, "several": True})
        assert (await harness.sheet(name)).vit == vit


async def test_G_2_the_fall_button_rolls_that_characters_recovery(harness):
    await harness.add_character("Roryn", vit=2, res=2)
    await harness.add_character("Tam", owner=harness.player, vit=2, res=2)
    await harness.start_combat(["Roryn", "Tam"])
    asked = await ask(harness, "damage", amount=3, several=True)
    posted = scene_message(
        await choose(harness, harness.gm, asked.reply, menu_of(asked), ["Roryn", "Tam"])
    )
    tam_id = (await harness.row("Tam")).id
    [tam_button] = [
        b for b in posted.card.buttons if b.custom_id.startswith(f"lg:recover:{tam_id}:")
    ]
    harness.script("C")
    rolled = await harness.click(harness.player, posted, tam_button.custom_id)
    assert not rolled.ephemeral
    assert rolled.card.title.endswith("Tam · Recovery roll")
    assert "Stabilised! One Crit: Tam is Unconscious at VIT 0." in rolled.card.body
    assert (await harness.sheet("Tam")).vit == 0
    assert (await harness.sheet("Roryn")).vit == -1  # the other's roll is its own


async def test_G_3_a_character_dead_since_the_menu_is_named_and_skipped(harness):
    await harness.add_character("Roryn", vit=5)
    await harness.add_character("Cor", vit=5)
    asked = await ask(harness, "damage", amount=2, several=True)
    await harness.update("Cor", vit=-4, dead=True)  # killed while the GM was choosing
    posted = scene_message(
        await choose(harness, harness.gm, asked.reply, menu_of(asked), ["Roryn", "Cor"])
    )
    assert posted.card.lines[0] == "**1 character takes the blow.**"
    skipped = [line for line in posted.card.lines if line.startswith("Skipped: ")]
    assert len(skipped) == 1 and skipped[0].startswith("Skipped: Cor is Dead: ")
    assert "G-3" in posted.card.small
    assert await harness.history("Cor") == []
    assert (await harness.sheet("Roryn")).vit == 3


async def test_G_2_healing_several(both):
    harness = both
    await harness.add_character("Roryn", vit=-1, res=2)
    await harness.add_character("Tam", owner=harness.player, vit=5)
    asked = await ask(harness, "heal", amount=4, several=True)
    assert lines(asked)[0].startswith("**Who faces magic healing of 4?**")
    posted = scene_message(
        await choose(harness, harness.gm, asked.reply, menu_of(asked), ["Roryn", "Tam"])
    )
    card = posted.card
    assert card.title == "Magic healing · 4 each"
    assert card.lines[0] == "**2 characters are healed; 1 changes state.**"
    assert "VIT -1 → 3 · Critical → Up" in card.body
    assert "VIT 5 → 9" in card.body
    assert card.buttons == ()  # nobody fell
    assert card.colour == STATE_COLOURS[State.UP]
    for name, vit in (("Roryn", 3), ("Tam", 9)):
        [event] = await harness.history(name)
        assert (event.command, event.inputs) == ("heal", {"amount": 4, "several": True})
        assert (await harness.sheet(name)).vit == vit


async def test_G_2_two_scenes_at_once_on_the_same_characters_lose_no_damage(both):
    """Two menus answered at the same time, each choosing the same two characters in another
    order: each character locked in turn (no deadlock, no lost update), four events."""
    harness = both
    await harness.add_character("Roryn")
    await harness.add_character("Tam", owner=harness.player)
    two = await ask(harness, "damage", amount=2, several=True)
    three = await ask(harness, "damage", amount=3, several=True)
    first, second = await asyncio.gather(
        choose(harness, harness.gm, two.reply, menu_of(two), ["Tam", "Roryn"]),
        choose(harness, harness.gm, three.reply, menu_of(three), ["Roryn", "Tam"]),
    )
    assert scene_message(first).card.title == "Damage · 2 each"
    assert scene_message(second).card.title == "Damage · 3 each"
    for name in ("Roryn", "Tam"):
        assert (await harness.sheet(name)).vit == 5
        assert sorted(e.inputs["amount"] for e in await harness.history(name)) == [2, 3]


# --- Discord's limits, names -------------------------------------------------------------------


async def test_G_2_twenty_five_falls_fit_in_one_message(harness):
    """25 characters chosen, all falling: 25 sections with a button would be 76 components;
    the message is sent whole (the driver refuses what Discord refuses), the last falls lose
    their button, keeping their lines, or are counted in "… and N more"."""
    names = [f"Knight{i:02d}" for i in range(25)]
    for name in names:
        await harness.add_character(name, vit=1, res=2)
    asked = await ask(harness, "damage", amount=2, several=True)
    chosen = await choose(harness, harness.gm, asked.reply, menu_of(asked), names)
    posted = scene_message(chosen)
    assert count(posted.components) <= COMPONENTS_LIMIT
    assert text_length(posted.components) <= TEXT_LIMIT
    shown = posted.card.markdown
    more = int(shown.rsplit("… and ", 1)[1].split(" ", 1)[0]) if "… and " in shown else 0
    named = [name for name in names if f"**{name} " in shown]
    assert len(named) + more == 25
    assert named == names[: len(named)]  # the first ones kept, in order
    buttons = posted.card.buttons
    assert 1 <= len(buttons) < len(named)  # some buttons dropped, their lines kept
    assert all(b.label == "Recovery roll" for b in buttons)
    # Each button beside its own character's lines, the first characters keeping theirs.
    ids = {name: (await harness.row(name)).id for name in names}
    sections = [c for c in posted.components[0]["components"] if c["type"] == 9]
    assert len(sections) == len(buttons)
    for name, section in zip(names, sections, strict=False):
        assert section["components"][0]["content"].startswith(f"**{name} collapses")
        assert section["accessory"]["custom_id"] == f"lg:recover:{ids[name]}:-1:2"
    for name in names:
        assert (await harness.sheet(name)).vit == -1
    assert len(await harness.events("damage")) == 25


LONGEST = [f"{i:02d}" + ("*_~`|>#[]<@\\" * 3)[:30] for i in range(25)]


async def test_G_2_the_longest_hostile_names_all_falling_fit(harness):
    """25 falls of names that escape to twice their length: text cut ("… and N more") and
    buttons dropped together, the message taken whole."""
    for name in LONGEST:
        await harness.add_character(name, vit=1, res=2)
    asked = await ask(harness, "damage", amount=2, several=True)
    posted = scene_message(await choose(harness, harness.gm, asked.reply, menu_of(asked), LONGEST))
    assert count(posted.components) <= COMPONENTS_LIMIT
    assert text_length(posted.components) <= TEXT_LIMIT
    shown = posted.card.markdown
    assert not [name for name in LONGEST if name in shown]
    escaped = [name for name in LONGEST if f"**{escape(name)} collapses" in shown]
    more = int(shown.rsplit("… and ", 1)[1].split(" ", 1)[0])
    assert escaped == LONGEST[: len(escaped)] and len(escaped) + more == 25
    assert 1 <= len(posted.card.buttons) <= len(escaped)
    assert len(await harness.events("damage")) == 25


async def test_G_1_the_longest_hostile_names_fit_and_are_escaped(harness):
    names = LONGEST
    for name in names:
        await harness.add_character(name)
    asked = await ask(harness, "breakdown", emotion="guilt", pressure=9)
    harness.script_values(*([1] * 25))
    posted = scene_message(await choose(harness, harness.gm, asked.reply, menu_of(asked), names))
    assert count(posted.components) <= COMPONENTS_LIMIT
    assert text_length(posted.components) <= TEXT_LIMIT
    shown = posted.card.markdown
    assert not [name for name in names if name in shown]  # never raw
    escaped = [name for name in names if f"**{escape(name)} breaks down" in shown]
    more = int(shown.rsplit("… and ", 1)[1].split(" ", 1)[0])
    assert escaped == names[: len(escaped)] and len(escaped) + more == 25
    assert len(await harness.events("breakdown")) == 25  # every one rolled, shown or counted


async def test_G_1_a_hostile_name_is_shown_literally_in_the_scene_and_its_skips(harness):
    await harness.add_character(HOSTILE)
    await harness.add_character("Bea", vit=0)
    await harness.start_combat([HOSTILE, "Bea"])
    harness.script_values(9)
    result = await harness.run(harness.gm, "breakdown", emotion="fear", pressure=4, everyone=True)
    assert lines(result)[1] == (
        f"**{HOSTILE_SHOWN} holds firm: the Reaction Roll succeeds (9 against Pressure 4), "
        "nothing happens.**"
    )
    assert HOSTILE not in result.card.markdown
    # A down character with that name, skipped, escaped too.
    await harness.update(HOSTILE, vit=0)
    await harness.update("Bea", vit=5)
    harness.script_values(9)
    again = await harness.run(harness.gm, "breakdown", emotion="fear", pressure=4, everyone=True)
    assert (
        f"Skipped: {HOSTILE_SHOWN} is Unconscious: only a conscious character faces a "
        "situational breakdown (G-1)." in lines(again)
    )
    assert HOSTILE not in again.card.markdown


async def test_G_2_a_hostile_name_in_a_damage_menu_and_its_message(harness):
    await harness.add_character(HOSTILE, vit=1)
    asked = await ask(harness, "damage", amount=2, several=True)
    [(label, _)] = menu_of(asked).options
    assert label == f"🟢 {HOSTILE} · Up, VIT 1/10"  # a menu's label is not markdown
    posted = scene_message(
        await choose(harness, harness.gm, asked.reply, menu_of(asked), [HOSTILE])
    )
    assert posted.card.lines[1] == (
        f"**{HOSTILE_SHOWN} collapses, Critical at VIT -1: 1 recovery die at its next turn.**"
    )
    assert HOSTILE not in posted.card.markdown
