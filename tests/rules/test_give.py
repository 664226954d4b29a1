"""Giving a character to another member (the GM's, docs/commands.md `/character give`): a
change of owner (U-2), reverted by undo (U-3)."""

from __future__ import annotations

import pytest

from rules.errors import RuleError
from rules.history import revert
from rules.sheet_ops import give
from rules.text import Text
from tests.rules.conftest import MARKDOWN_NAME, make


def test_U_2_giving_changes_the_owner_and_nothing_else():
    sheet = make(name="Roryn", owner_id=1, vit=-1, stress=2, advantage=True)
    outcome = give(sheet, 2)
    assert outcome.after == sheet.update(owner_id=2)
    assert outcome.is_change
    assert [str(c) for c in outcome.changes] == ["Owner <@1> → <@2>"]
    assert outcome.headline == "Roryn now belongs to <@2>."


def test_the_name_is_a_value_of_the_headline_never_its_words():
    outcome = give(make(name=MARKDOWN_NAME, owner_id=1), 2)
    assert isinstance(outcome.headline, Text)
    assert outcome.headline.values == {"name": MARKDOWN_NAME, "owner": 2}
    assert MARKDOWN_NAME not in outcome.headline.template


def test_giving_a_character_to_its_owner_is_refused():
    with pytest.raises(RuleError, match="already belongs to that member") as caught:
        give(make(name="Roryn", owner_id=1), 1)
    assert caught.value.values == {"name": "Roryn"}


def test_U_3_undoing_a_give_gives_the_character_back():
    event = give(make(name="Roryn", owner_id=1), 2)
    outcome = revert(event.after, event.before, event.after, "character give")
    assert outcome.after.owner_id == 1
    assert [str(c) for c in outcome.changes] == ["Owner <@2> → <@1>"]
