"""The one way every value is written: JSON text for the JSON columns (the engine's
serializer, and so the driver-level path's too), the dice of an event, and the clock."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel
from pydantic_core import to_json

from rules.models import Sheet
from rules.rolls import NarateerRoll, NumericRoll, Roll

Clock = Callable[[], datetime]


def utc_now() -> datetime:
    return datetime.now(UTC)


def dumps(value: Any) -> str:
    """The JSON text of a JSON column: compact, non-ASCII kept as it is. Written by pydantic-core
    (a sheet or the settings by its model): the text the standard library's `json` writes with
    those options (tested; a float may be spelt otherwise, the same number, and no command
    writes one), in a fifth of its time. A sheet read or written lately is its kept text, not
    encoded again (a command writes its sheet after twice, in the character's row and in its
    event, and its sheet before, as it was loaded)."""
    if isinstance(value, Sheet):
        kept = _texts.get(id(value))
        if kept is not None and kept[0] is value:
            return kept[1]
        text = value.model_dump_json()
        _keep(text, value)  # frozen: its text cannot change
        return text
    if isinstance(value, BaseModel):
        return value.model_dump_json()
    return to_json(value).decode()


# Sheets by their stored text (the hot path's load, SQLite's and PostgreSQL's: a JSON column
# gives back the text written): the text this process wrote or read lately is not parsed and
# validated again, 50–100 µs of a command's Python with the caches as the other commands leave
# them. A frozen sheet is the same object to whoever holds it; a text is parsed to one sheet
# only. Bounded: about 5 MB at most.
_SHEETS_KEPT = 2048
_sheets: OrderedDict[str, Sheet] = OrderedDict()
# ...and the same the other way, each kept sheet's text by the sheet's id, with the sheet: an
# id is only ever read for the object it was taken from (`is`), never for a freed object's
# successor. Entries leave with theirs in `_sheets`.
_texts: dict[int, tuple[Sheet, str]] = {}
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
        replaced = _sheets.get(text)
        _sheets[text] = sheet
        if replaced is not None and replaced is not sheet:
            _forget(replaced, text)
        _texts[id(sheet)] = (sheet, text)
        if len(_sheets) > _SHEETS_KEPT:
            oldest, dropped = _sheets.popitem(last=False)
            _forget(dropped, oldest)


def _forget(sheet: Sheet, text: str) -> None:
    kept = _texts.get(id(sheet))
    if kept is not None and kept[0] is sheet and kept[1] == text:
        del _texts[id(sheet)]


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
