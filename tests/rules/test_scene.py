"""The GM's scene: G-1..G-3 (docs/rules.md, Several characters at once), the pure rule: one rule
applied to several characters, each on its own (`each`), the ones that cannot take part named
and skipped with the refusal they would get alone (G-3); who faces a situational breakdown
(`conscious`); whom the GM's menu offers (`offered`)."""

from __future__ import annotations

import pytest

from rules.dice import ScriptedRandom
from rules.emotions import situational_breakdown
from rules.errors import RuleError
from rules.models import GuildSettings, State
from rules.scene import MENU_LIMIT, Skipped, conscious, each, offered
from rules.vitality import damage
from tests.rules.conftest import make

SETTINGS = GuildSettings()


def breakdown_rule(rng):
    """G-1's rule for one character, as the service applies it."""

    def rule(sheet):
        conscious(sheet)
        return situational_breakdown(sheet, "fear", 6, SETTINGS, rng)

    return rule


# --- each: every character on its own, in order ---------------------------------------------------


def test_G_1_each_character_its_own_outcome_in_the_order_given():
    characters = [
        (7, make(name="Tam", vit=9)),
        (3, make(name="Roryn", vit=4)),
        (5, make(name="Bea")),
    ]
    scene = each(characters, lambda sheet: damage(sheet, 2, SETTINGS))
    assert [row_id for row_id, _ in scene.outcomes] == [7, 3, 5]
    assert [o.before.name for _, o in scene.outcomes] == ["Tam", "Roryn", "Bea"]
    assert [o.after.vit for _, o in scene.outcomes] == [7, 2, 8]
    assert scene.skipped == ()


def test_G_3_a_refusal_skips_that_character_only_and_says_why():
    characters = [
        (1, make(name="Roryn", vit=3)),
        (2, make(name="Cor", vit=-4, dead=True)),
        (3, make(name="Tam")),
        (4, make(name="Sera", stress=12, retired=True)),
    ]
    scene = each(characters, lambda sheet: damage(sheet, 1, SETTINGS))
    assert [(row_id, o.after.vit) for row_id, o in scene.outcomes] == [(1, 2), (3, 9)]
    assert [s.name for s in scene.skipped] == ["Cor", "Sera"]
    cor, sera = scene.skipped
    assert isinstance(cor, Skipped) and isinstance(cor.why, RuleError)
    # The very refusal the character would get alone (G-3: named, with the reason).
    with pytest.raises(RuleError) as alone:
        damage(characters[1][1], 1, SETTINGS)
    assert str(cor.why) == str(alone.value)
    assert cor.why.values["name"] == "Cor"
    assert str(sera.why).startswith("Sera is Retired: ")


def test_G_3_all_skipped_is_a_scene_with_no_outcome():
    scene = each([(1, make(name="Cor", vit=-4, dead=True))], lambda s: damage(s, 1, SETTINGS))
    assert scene.outcomes == ()
    assert [s.name for s in scene.skipped] == ["Cor"]


def test_G_1_no_character_at_all_is_refused():
    with pytest.raises(RuleError, match="No character to act on"):
        each([], lambda s: damage(s, 1, SETTINGS))


def test_G_3_only_a_refusal_skips_a_bug_is_not_hidden():
    def broken(sheet):
        raise ZeroDivisionError("a bug")

    with pytest.raises(ZeroDivisionError):
        each([(1, make())], broken)


def test_G_1_each_character_rolls_its_own_reaction_roll_with_its_own_ability_and_disadvantage():
    """E-8 per character: its own Composure, its own injury, Disadvantage for the one in a
    Breakdown (two dice: the lower kept); the dice are taken in the order of the characters."""
    characters = [
        (1, make(name="Roryn", composure=2)),
        (2, make(name="Tam", vit=5, anger=4, breakdown="anger")),  # -1 injury, Disadvantage
        (3, make(name="Bea", vit=0)),  # down: skipped, rolls nothing
    ]
    rng = ScriptedRandom([3, 9, 6])
    scene = each(characters, breakdown_rule(rng))
    (_, roryn), (_, tam) = scene.outcomes
    [roll] = roryn.rolls
    assert (roll.value, roll.bonuses, roll.total) == (3, (("Composure", 2),), 5)
    assert roryn.after.breakdown is not None  # 5 < 6: a Breakdown of Fear begins
    kept, dropped = tam.rolls
    assert (kept.value, kept.bonuses, kept.total) == (6, (("injury", -1),), 5)
    assert (dropped.value, dropped.dropped) == (9, True)
    assert tam.after.breakdown is None  # failed in a Breakdown: addressed on the spot (E-9)
    assert [s.name for s in scene.skipped] == ["Bea"]
    assert rng.remaining == 0


# --- conscious: who faces a situational breakdown ------------------------------------------------


@pytest.mark.parametrize(
    ("fields", "state"),
    [
        ({"vit": 0, "res": 2}, State.UNCONSCIOUS),
        ({"vit": -1, "res": 2}, State.CRITICAL),
        ({"vit": -2, "res": 2}, State.DYING),
    ],
)
def test_G_1_a_character_that_is_down_does_not_face_a_situational_breakdown(fields, state):
    sheet = make(**fields)
    assert sheet.state is state
    with pytest.raises(RuleError) as refused:
        conscious(sheet)
    assert str(refused.value) == (
        f"Hero is {state.value}: only a conscious character faces a situational breakdown (G-1)."
    )
    assert refused.value.values == {"name": "Hero"}


def test_G_1_a_conscious_character_faces_it():
    assert conscious(make(vit=1)) is None


def test_G_3_the_dead_and_the_retired_are_refused_by_the_breakdown_itself():
    """`conscious` leaves them to E-8's own refusal (V-5, E-7), which names them too."""
    for sheet in (make(vit=-4, dead=True), make(stress=12, retired=True)):
        assert conscious(sheet) is None
        scene = each([(1, sheet)], breakdown_rule(ScriptedRandom([5])))
        [skipped] = scene.skipped
        assert str(skipped.why) == (
            f"Hero is {sheet.state.value}: a situational breakdown is not possible. The GM can "
            "bring it back with /character revive."
        )


# --- offered: the GM's menu


def sheets(*specs):
    return [(row_id, make(name=name, **fields)) for row_id, name, fields in specs]


def test_G_1_the_menu_offers_the_combat_first_then_by_name():
    characters = sheets(
        (1, "roryn", {}),
        (2, "Bea", {}),
        (3, "Zed", {}),
        (4, "anna", {}),
        (5, "Cal", {}),
    )
    chosen = offered(characters, {3, 5}, conscious_only=False)
    assert [s.name for _, s in chosen] == ["Cal", "Zed", "anna", "Bea", "roryn"]
    assert [row_id for row_id, _ in chosen] == [5, 3, 4, 2, 1]


def test_G_3_the_menu_never_offers_the_dead_or_the_retired():
    characters = sheets(
        (1, "Roryn", {}),
        (2, "Cor", {"vit": -4, "dead": True}),
        (3, "Sera", {"stress": 12, "retired": True}),
        (4, "Bea", {"vit": 0}),
    )
    assert [s.name for _, s in offered(characters, {2}, conscious_only=False)] == ["Bea", "Roryn"]


def test_G_1_a_breakdowns_menu_offers_only_the_conscious():
    characters = sheets(
        (1, "Roryn", {}),
        (2, "Bea", {"vit": 0}),
        (3, "Cal", {"vit": -1}),
        (4, "Dag", {"vit": -2}),
        (5, "Cor", {"vit": -4, "dead": True}),
    )
    assert [s.name for _, s in offered(characters, {2, 3}, conscious_only=True)] == ["Roryn"]
    assert [s.name for _, s in offered(characters, set(), conscious_only=False)] == [
        "Bea",
        "Cal",
        "Dag",
        "Roryn",
    ]


def test_G_1_the_menu_offers_at_most_25_the_combat_kept():
    characters = sheets(*((i, f"A{i:02d}", {}) for i in range(1, 41)))
    fighting = {38, 39, 40}
    chosen = offered(characters, fighting, conscious_only=False)
    assert MENU_LIMIT == 25
    assert len(chosen) == 25
    assert [row_id for row_id, _ in chosen[:3]] == [38, 39, 40]  # combat first, even last by name
    assert [row_id for row_id, _ in chosen[3:]] == list(range(1, 23))


def test_G_1_the_menu_of_nobody_is_empty():
    assert offered([], set(), conscious_only=True) == []
    dead = sheets((1, "Cor", {"vit": -4, "dead": True}))
    assert offered(dead, {1}, conscious_only=False) == []
