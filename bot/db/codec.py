"""The one way every value is written: JSON text for the JSON columns (the engine's
serializer, and so the driver-level path's too), the dice of an event, and the clock."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel

from rules.rolls import NarateerRoll, NumericRoll, Roll

Clock = Callable[[], datetime]


def utc_now() -> datetime:
    return datetime.now(UTC)


# Made once: json.dumps builds a new encoder on every call that passes options.
_ENCODER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)


def dumps(value: Any) -> str:
    """The JSON text of a JSON column: compact, non-ASCII kept as it is. A sheet (a pydantic
    model) is written by pydantic, the same text in fewer microseconds."""
    if isinstance(value, BaseModel):
        return value.model_dump_json()
    return _ENCODER.encode(value)


_ROLL_KINDS: dict[str, type[NarateerRoll] | type[NumericRoll]] = {
    "narateer": NarateerRoll,
    "numeric": NumericRoll,
}


def dump_rolls(rolls: Iterable[Roll]) -> list[dict[str, Any]]:
    return [
        {
            "kind": "narateer" if isinstance(r, NarateerRoll) else "numeric",
            **r.model_dump(mode="json"),
        }
        for r in rolls
    ]


def load_roll(data: dict[str, Any]) -> Roll:
    fields = dict(data)
    kind = fields.pop("kind")
    if kind == "numeric" and "value" not in fields:  # logged before bonuses were itemised
        modifier = fields.pop("modifier", 0)
        fields["value"] = fields["total"] - modifier
        fields["bonuses"] = [("modifier", modifier)] if modifier else []
    return _ROLL_KINDS[kind].model_validate(fields)
