"""The JSON columns' encoder (bot/db/codec.py): a sheet written or read lately is its kept text,
not encoded again, and nothing else is ever answered from that memory; a stored sheet's text is
parsed once, and a sheet written is read back without parsing, as its text would parse."""

from __future__ import annotations

import json
from collections import OrderedDict

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ConfigDict, ValidationError

from bot.db import codec
from rules.models import GuildSettings, Sheet
from tests.rules.test_properties import sheets


def _counted_encodings(monkeypatch) -> list[Sheet]:
    calls: list[Sheet] = []
    original = Sheet.model_dump_json

    def counted(self: Sheet, **kwargs: object) -> str:
        calls.append(self)
        return original(self, **kwargs)

    monkeypatch.setattr(Sheet, "model_dump_json", counted)
    return calls


def test_a_sheet_written_twice_is_the_same_text_encoded_once(monkeypatch) -> None:
    sheet = Sheet(name="Ada", owner_id=7, vit=6)
    expected = sheet.model_dump_json()
    calls = _counted_encodings(monkeypatch)
    before = Sheet(name="Ada", owner_id=7)
    # As a command writes them: the row's sheet, then the event's before and after.
    first, _, second = codec.dumps(sheet), codec.dumps(before), codec.dumps(sheet)
    assert first == second == expected
    assert calls == [sheet, before]


def test_an_equal_but_other_sheet_and_other_values_are_encoded_for_themselves() -> None:
    ada = Sheet(name="Ada", owner_id=7)
    codec.dumps(ada)
    bea = ada.model_copy(update={"name": "Bea"})
    assert json.loads(codec.dumps(bea))["name"] == "Bea"
    assert codec.dumps({"a": 1}) == '{"a":1}'
    assert json.loads(codec.dumps(GuildSettings(emotion_threshold=6)))["emotion_threshold"] == 6
    assert json.loads(codec.dumps(ada))["name"] == "Ada"


def _json_values(leaves: st.SearchStrategy[object]) -> st.SearchStrategy[object]:
    return st.recursive(
        leaves,
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
        max_leaves=12,
    )


# What a command's inputs, dice and rules hold (no number of theirs is a float).
_PLAIN = st.none() | st.booleans() | st.integers() | st.text()


@given(_json_values(_PLAIN))
@settings(max_examples=300)
def test_a_plain_value_is_the_text_the_standard_json_writes(value: object) -> None:
    # pydantic-core writes it, as json.dumps would with the column's options: compact, non-ASCII
    # kept (stored texts stay as earlier versions wrote them).
    expected = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    assert codec.dumps(value) == expected


@given(_json_values(_PLAIN | st.floats(allow_nan=False, allow_infinity=False)))
@settings(max_examples=100)
def test_a_float_reads_back_as_itself(value: object) -> None:
    # The one difference: a float may be spelt otherwise (0.00001, not 1e-05), the same number.
    assert json.loads(codec.dumps(value)) == value


def test_non_ascii_and_control_characters_are_written_as_json_writes_them() -> None:
    value = {"cause": 'brûlure \u2028 \x01 " \\ / 🔥', 7: [2**70, True, None, [], {}]}
    assert codec.dumps(value) == json.dumps(value, separators=(",", ":"), ensure_ascii=False)


class _Mutable(BaseModel):
    model_config = ConfigDict(frozen=False)
    n: int


def test_a_mutable_model_is_encoded_every_time() -> None:
    value = _Mutable(n=1)
    assert codec.dumps(value) == '{"n":1}'
    value.n = 2
    assert codec.dumps(value) == '{"n":2}'


# --- sheets by their stored text (the hot path's load) ------------------------------------------


@pytest.fixture(autouse=True)
def _no_sheets_kept(monkeypatch) -> None:
    """Each test starts with no sheet kept from another."""
    monkeypatch.setattr(codec, "_sheets", OrderedDict())
    monkeypatch.setattr(codec, "_texts", {})


def _counted_parses(monkeypatch) -> list[str]:
    calls: list[str] = []
    original = Sheet.model_validate_json

    def counted(text: str, **kwargs: object) -> Sheet:
        calls.append(text)
        return original(text, **kwargs)

    monkeypatch.setattr(Sheet, "model_validate_json", counted)
    return calls


def test_a_stored_text_is_parsed_once_and_a_written_sheet_not_at_all(monkeypatch) -> None:
    parses = _counted_parses(monkeypatch)
    text = '{"name":"Cy","owner_id":3,"vit":4}'
    first = codec.load_sheet(text)
    assert codec.load_sheet(text) is first
    assert parses == [text]
    written = Sheet(name="Dee", owner_id=4, vit=2)
    assert codec.load_sheet(codec.dumps(written)) is written  # the next command reads it back
    assert parses == [text]


def test_another_text_is_parsed_for_itself_and_a_bad_one_is_not_kept(monkeypatch) -> None:
    codec.load_sheet('{"name":"Eve","owner_id":5,"vit":3}')
    assert codec.load_sheet('{"name":"Eve","owner_id":5,"vit":1}').vit == 1
    parses = _counted_parses(monkeypatch)
    bad = '{"name":"Eve","owner_id":5,"vit":99}'  # above max VIT: refused, every time
    for _ in range(2):
        with pytest.raises(ValidationError):
            codec.load_sheet(bad)
    assert parses == [bad, bad]


def test_the_sheets_kept_are_bounded_oldest_first(monkeypatch) -> None:
    monkeypatch.setattr(codec, "_SHEETS_KEPT", 3)
    texts = [f'{{"name":"N{i}","owner_id":1}}' for i in range(5)]
    sheets = [codec.load_sheet(text) for text in texts]
    assert list(codec._sheets) == texts[2:]
    assert sorted(text for _, text in codec._texts.values()) == texts[2:]
    encoded = _counted_encodings(monkeypatch)
    assert codec.dumps(sheets[4]) == texts[4]  # kept: its text as loaded
    assert json.loads(codec.dumps(sheets[0]))["name"] == "N0"  # forgotten: encoded anew
    assert encoded == [sheets[0]]


def test_a_loaded_sheet_written_again_is_its_stored_text(monkeypatch) -> None:
    """An event's sheet before is the sheet as the command loaded it: its text as stored (here
    written by another hand, spaced), not encoded again."""
    stored = '{"name": "Fay", "owner_id": 6, "vit": 2}'
    sheet = codec.load_sheet(stored)
    monkeypatch.setattr(Sheet, "model_dump_json", _never)
    assert codec.dumps(sheet) == stored
    assert Sheet.model_validate_json(codec.dumps(sheet)) == sheet


def _never(*_: object, **__: object) -> str:
    raise AssertionError("encoded again")


def test_a_kept_text_answers_only_for_the_object_it_was_kept_for() -> None:
    """An id names one living object at a time: an entry whose sheet is another object (as a
    freed sheet's successor would find it) is never read for this one."""
    ada, bea = Sheet(name="Ada", owner_id=7), Sheet(name="Bea", owner_id=7)
    codec._texts[id(ada)] = (bea, codec.dumps(bea))
    assert json.loads(codec.dumps(ada))["name"] == "Ada"


@settings(max_examples=200, deadline=None)
@given(sheet=sheets())
def test_what_is_kept_for_a_written_sheet_is_what_its_text_parses_to(sheet: Sheet) -> None:
    text = codec.dumps(sheet)
    assert codec.load_sheet(text) == Sheet.model_validate_json(text) == sheet
