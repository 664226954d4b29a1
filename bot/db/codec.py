"""The one way every value is written: JSON text for the JSON columns (the engine's
serializer, and so the driver-level path's too), the dice of an event, and the clock."""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel

from rules.models import Sheet
from rules.rolls import NarateerRoll, NumericRoll, Roll

Clock = Callable[[], datetime]


def utc_now() -> datetime:
    return datetime.now(UTC)


# Made once: json.dumps builds a new encoder on every call that passes options.
_ENCODER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)


# The last two frozen models written and their texts: a command writes its sheet after twice,
# in the character's row and in its event (with the sheet before between the two). Held by
# reference (`is`, never an id that a freed object's successor could reuse), and replaced
# whole, so that a thread reads one state of it, never half of one.
_last: tuple[tuple[BaseModel, str], ...] = ()


def dumps(value: Any) -> str:
    """The JSON text of a JSON column: compact, non-ASCII kept as it is. A sheet (a pydantic
    model) is written by pydantic, the same text in fewer microseconds; a frozen one written
    just before is not encoded again."""
    global _last
    if isinstance(value, BaseModel):
        last = _last
        for model, text in last:
            if model is value:
                return text
        text = value.model_dump_json()
        if value.model_config.get("frozen"):  # immutable: its text cannot change
            _last = ((value, text), *last[:1])
            if isinstance(value, Sheet):
                _keep(text, value)
        return text
    return _ENCODER.encode(value)


# Sheets by their stored text (the hot path's load, SQLite's and PostgreSQL's: a JSON column
# gives back the text written): the text this process wrote or read lately is not parsed and
# validated again, 50–100 µs of a command's Python with the caches as the other commands leave
# them. A frozen sheet is the same object to whoever holds it; a text is parsed to one sheet
# only. Bounded: about 5 MB at most.
_SHEETS_KEPT = 2048
_sheets: OrderedDict[str, Sheet] = OrderedDict()
_sheets_lock = threading.Lock()  # the writer thread and the event loop both load and write


def load_sheet(text: str) -> Sheet:
    """The sheet of a stored JSON text, parsed and validated once."""
    found = _sheets.get(text)
    if found is None:
        found = Sheet.model_validate_json(text)
        _keep(text, found)
    return found


def _keep(text: str, sheet: Sheet) -> None:
    with _sheets_lock:
        _sheets[text] = sheet
        if len(_sheets) > _SHEETS_KEPT:
            _sheets.popitem(last=False)  # the oldest kept


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
