"""Headlines and notes keep a character's name and typed text apart from the bot's words
(issue 21 item 15; rules.text): every rule that puts one into a sentence does it with
`say(template, name=…)`, so that the renderer escapes each value alone. A sentence built by an
f-string holds the name in its template, where no renderer can tell it from the bot's words.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from rules import emotions, history, sheet_ops, stamina, table, vitality
from rules.condition import finish
from rules.dice import ScriptedRandom
from rules.models import GuildSettings, RestKind, Sheet
from rules.outcome import Outcome
from rules.text import Text, say
from tests.rules.conftest import COMBAT, INSTANT, dice, make

# The issue's reason: two masked links; and a name that is markdown, a mention and a link.
REASON = "[a](https://e.co/a) or [b](https://e.co/b)"
NAME = "[x](https://e.co/a) *R* @here"


def kept_apart(text: Text, *typed: str) -> None:
    """Each typed value shown in `text` stands in its values, never in its template."""
    assert isinstance(text, Text), f"{text!r} is a plain str"
    for value in typed:
        if value in text:
            assert value not in text.template, f"{value!r} put into the template {text.template!r}"
            assert value in text.values.values(), text.values


def every_text(outcome: Outcome) -> list[Text]:
    return [outcome.headline, *outcome.notes, *(roll.label for roll in outcome.rolls)]


def check(outcome: Outcome, *typed: str) -> None:
    texts = every_text(outcome)
    assert any(NAME in t for t in texts) or NAME not in typed, texts
    for text in texts:
        kept_apart(text, NAME, *typed)


def hero(**fields: object) -> Sheet:
    return make(name=NAME, **fields)


S = GuildSettings()

# One case for each sentence shape: (what, the action on a hostile name).
CASES: list[tuple[str, Callable[[], Outcome]]] = [
    ("damage up", lambda: vitality.damage(hero(), 1, S)),
    ("damage unconscious", lambda: vitality.damage(hero(vit=1), 1, S)),
    ("damage critical", lambda: vitality.damage(hero(vit=1), 3, S)),
    ("damage dying", lambda: vitality.damage(hero(vit=1, res=1), 5, S)),
    ("damage while dying", lambda: vitality.damage(hero(vit=-2, res=1), 1, S)),
    ("instant death", lambda: vitality.damage(hero(vit=1), 3, INSTANT)),
    ("heal", lambda: vitality.heal(hero(vit=5), 2, S)),
    ("heal wakes", lambda: vitality.heal(hero(vit=0), 2, S)),
    ("heal full", lambda: vitality.heal(hero(), 2, S)),
    ("heal stabilises", lambda: vitality.heal(hero(vit=-1), 1, S)),
    ("recover wakes", lambda: vitality.recover(hero(vit=0), S, dice("CH"), **COMBAT)),
    ("recover stays", lambda: vitality.recover(hero(vit=0), S, dice("MM"), **COMBAT)),
    ("last gasp fails", lambda: vitality.recover(hero(vit=-4), S, dice("M"), **COMBAT)),
    ("last gasp crit", lambda: vitality.recover(hero(vit=-4), S, dice("C"), **COMBAT)),
    ("first aid", lambda: vitality.first_aid(hero(vit=0), S, dice(""), success=True)),
    ("first aid fails", lambda: vitality.first_aid(hero(vit=0), S, dice(""), success=False)),
    ("react", lambda: stamina.react(hero(), REASON)),
    ("react bare", lambda: stamina.react(hero())),
    ("push", lambda: stamina.push(hero(), 1, dice(""))),
    ("spend", lambda: stamina.spend(hero(), 1, REASON)),
    ("rest", lambda: stamina.rest(hero(stamina=1), RestKind.SHORT)),
    ("rest full", lambda: stamina.rest(hero(), RestKind.SHORT)),
    ("wound", lambda: stamina.wound(hero())),
    ("recover wound", lambda: stamina.recover_wound(hero(con_wounds=1, stamina=6))),
    ("emotion", lambda: emotions.raise_emotion(hero(), "fear", 1, "other")),
    ("breakdown by emotion", lambda: emotions.raise_emotion(hero(fear=3), "fear", 1, "other")),
    (
        "emotion in breakdown",
        lambda: emotions.raise_emotion(hero(fear=4, breakdown="fear"), "anger", 1, "other"),
    ),
    ("relief", lambda: emotions.relief(hero(fear=1), "drive")),
    ("relief bonus", lambda: emotions.relief(hero(), "reward")),
    ("relief address", lambda: emotions.relief(hero(fear=1), "address")),
    ("relief ends breakdown", lambda: emotions.relief(hero(fear=4, breakdown="fear"), "address")),
    ("quest", lambda: emotions.complete_quest(hero(fear=1))),
    (
        "holds firm",
        lambda: emotions.situational_breakdown(hero(), "fear", 6, S, ScriptedRandom([9])),
    ),
    (
        "breaks down",
        lambda: emotions.situational_breakdown(hero(), "fear", 6, S, ScriptedRandom([1])),
    ),
    ("edit", lambda: sheet_ops.edit_sheet(hero(), by_gm=True, in_combat=False, humility=1)),
    ("set", lambda: sheet_ops.set_fields(hero(), S, stress=1)),
    ("revive", lambda: sheet_ops.revive(hero(vit=-1, dead=True))),
    ("turn", lambda: table.start_turn(hero(), S, in_combat=True)),
    ("turn down", lambda: table.start_turn(hero(vit=0), S, in_combat=True)),
    ("round", lambda: table.new_round([hero()], S)[0]),
    ("combat", lambda: table.join_or_leave_combat(hero(), joins=True)),
    ("day", lambda: table.new_day([hero(relief_used_today=True)])[0]),
    ("undo", lambda: history.revert(hero(vit=5), hero(), hero(vit=5), "damage")),
    ("retires", lambda: vitality.damage(hero(vit=3, stress=2), 1, S)),
]


@pytest.mark.parametrize(("what", "action"), CASES, ids=[c[0] for c in CASES])
def test_every_headline_and_note_keeps_the_name_a_value(what, action):
    check(action())


def test_spend_keeps_the_issues_reason_a_value_S_7():
    """The issue's case: the reason is a value, escaped alone where it is shown."""
    outcome = stamina.spend(hero(), 1, REASON)
    assert outcome.headline == f"{NAME} spends 1 Stamina on {REASON}."
    assert outcome.headline.values == {"name": NAME, "amount": 1, "reason": REASON}
    kept_apart(outcome.headline, REASON)


def test_react_and_push_keep_what_a_value_S_5_S_6():
    reacted = stamina.react(hero(), REASON)
    kept_apart(reacted.headline, REASON)
    assert REASON in reacted.headline
    pushed = stamina.push(hero(), 1, ScriptedRandom([4]), roll="1d6", what=REASON)
    [check_roll] = pushed.rolls
    assert check_roll.label == f"Check ({REASON})"
    kept_apart(check_roll.label, REASON)


def test_rename_keeps_both_names_values_P_4():
    renamed = sheet_ops.edit_sheet(hero(), by_gm=True, in_combat=False, name="[n](https://e.co)")
    kept_apart(renamed.headline, NAME, "[n](https://e.co)")
    assert "[n](https://e.co)" in renamed.headline


def test_a_retirement_keeps_what_brought_it_as_a_note_with_its_values_E_7():
    outcome = vitality.damage(hero(vit=3, stress=2), 1, S)
    assert outcome.after.retired
    first = outcome.notes[0]
    assert isinstance(first, Text) and first.values.get("name") == NAME


def test_text_renders_each_value_alone():
    """rules.text: the renderer's escape sees each value, never the bot's words."""
    text = say("{name} spends {amount} Stamina on {reason}.", name="*a*", amount=2, reason="[b]")
    assert text.render(lambda v: f"<{v}>") == "<*a*> spends 2 Stamina on <[b]>."
    assert say("A new round.").render(lambda v: f"<{v}>") == "<A new round.>"


def test_finish_takes_a_text_headline():
    sheet = hero()
    outcome = finish("spend", sheet, sheet, ["S-7"], headline=say("{name}.", name=NAME))
    kept_apart(outcome.headline, NAME)
