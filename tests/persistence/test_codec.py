"""The JSON columns' encoder (bot/db/codec.py): a frozen model written just before is not
encoded again, and nothing else is ever answered from that memory."""

from __future__ import annotations

import json

from pydantic import BaseModel, ConfigDict

from bot.db import codec
from rules.models import GuildSettings, Sheet


def test_a_sheet_written_twice_is_the_same_text_encoded_once(monkeypatch) -> None:
    sheet = Sheet(name="Ada", owner_id=7, vit=6)
    calls = []
    original = Sheet.model_dump_json

    def counted(self: Sheet, **kwargs: object) -> str:
        calls.append(self)
        return original(self, **kwargs)

    monkeypatch.setattr(Sheet, "model_dump_json", counted)
    before = Sheet(name="Ada", owner_id=7)
    # As a command writes them: the row's sheet, then the event's before and after.
    first, _, second = codec.dumps(sheet), codec.dumps(before), codec.dumps(sheet)
    assert first == second == original(sheet)
    assert calls == [sheet, before]


def test_an_equal_but_other_sheet_and_other_values_are_encoded_for_themselves() -> None:
    ada = Sheet(name="Ada", owner_id=7)
    codec.dumps(ada)
    bea = ada.model_copy(update={"name": "Bea"})
    assert json.loads(codec.dumps(bea))["name"] == "Bea"
    assert codec.dumps({"a": 1}) == '{"a":1}'
    assert json.loads(codec.dumps(GuildSettings(emotion_threshold=6)))["emotion_threshold"] == 6
    assert json.loads(codec.dumps(ada))["name"] == "Ada"


class _Mutable(BaseModel):
    model_config = ConfigDict(frozen=False)
    n: int


def test_a_mutable_model_is_encoded_every_time() -> None:
    value = _Mutable(n=1)
    assert codec.dumps(value) == '{"n":1}'
    value.n = 2
    assert codec.dumps(value) == '{"n":2}'
