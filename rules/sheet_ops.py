"""Creating a sheet, editing its fields, setting state directly (GM), reviving (V-5, E-7)."""

from __future__ import annotations

from pydantic import ValidationError

from rules.condition import finish
from rules.models import CON_SIZES, Emotion, GuildSettings, Sheet, State
from rules.outcome import Outcome, RuleError

# Section 1: the fields that describe the character, and those that hold its state.
EDITABLE = ("name", "max_vit", "res", "con_base", "humility", "composure", "insight", "threshold")
SETTABLE = ("vit", "stamina", "stress", "anger", "fear", "sadness", "guilt", "con_wounds")

_LABELS = {
    "name": "The name",
    "max_vit": "Max VIT",
    "vit": "VIT",
    "res": "RES",
    "con_base": "The CON die",
    "con_wounds": "CON wounds",
    "stamina": "Stamina",
    "humility": "Humility",
    "composure": "Composure",
    "insight": "Insight",
    "threshold": "The emotion threshold",
    "stress": "Stress",
    **{e.value: e.label for e in Emotion},
}


def _fields(fields: dict[str, object], allowed: tuple[str, ...]) -> dict[str, object]:
    """The given fields (None means "not given"), refusing any that this action cannot touch."""
    given = {key: value for key, value in fields.items() if value is not None}
    con = given.get("con_base")
    if isinstance(con, str) and con.lower().startswith("d") and con[1:].isdigit():
        given["con_base"] = int(con[1:])  # the /character option is written "d8"
    unknown = sorted(set(given) - set(allowed))
    if unknown:
        raise RuleError(
            f"{', '.join(unknown)} cannot be changed here: the fields are {', '.join(allowed)}."
        )
    return given


def _validated(data: dict[str, object]) -> Sheet:
    """A Sheet, or a RuleError naming the first field out of range."""
    try:
        return Sheet.model_validate(data)
    except ValidationError as error:
        first = error.errors()[0]
        message = first["msg"].removeprefix("Value error, ")
        if first["loc"]:  # a field's own range; cross-field checks have no location
            field = str(first["loc"][0])
            message = f"{_LABELS.get(field, field)}: {message}"
        raise RuleError(f"{message[0].upper()}{message[1:]}. Enter a value in range.") from None


def create_sheet(name: str, owner_id: int, settings: GuildSettings, **fields: object) -> Sheet:
    """Section 1: defaults where a field is not given; VIT and Stamina start full."""
    given = _fields(fields, EDITABLE[1:])
    data: dict[str, object] = {
        "name": name,
        "owner_id": owner_id,
        "threshold": settings.emotion_threshold,
        **given,
    }
    draft = _validated({**data, "stamina": 0, "vit": 0})
    return _validated({**data, "vit": draft.max_vit, "stamina": draft.max_stamina})


def _breakdown_from_stacks(sheet: Sheet, notes: list[str], rules: list[str]) -> Sheet:
    """E-1: a stack at its threshold outside Breakdown begins one (after an edit or a set)."""
    if sheet.breakdown is not None:
        return sheet
    for emotion in Emotion:
        if sheet.stack(emotion) >= sheet.threshold:
            notes.append(
                f"{emotion.label} is at the threshold ({sheet.threshold}): "
                "a Breakdown begins (E-1)."
            )
            rules.append("E-1")
            return sheet.update(breakdown=emotion)
    return sheet


def edit_sheet(sheet: Sheet, **fields: object) -> Outcome:
    """Fields that are not state (P-4). VIT, Stamina and stacks are clamped to new maxima."""
    given = _fields(fields, EDITABLE)
    if not given:
        raise RuleError(f"Nothing to change: give at least one of {', '.join(EDITABLE)}.")
    empty = {emotion.value: 0 for emotion in Emotion}
    draft = _validated({**sheet.model_dump(), **given, **empty, "vit": 0, "stamina": 0})
    for emotion in Emotion:
        given[emotion.value] = min(sheet.stack(emotion), draft.threshold)
    given["vit"] = min(sheet.vit, draft.max_vit)
    # S-2: d6 is the floor, so a smaller base die holds fewer wounds
    given["con_wounds"] = min(sheet.con_wounds, CON_SIZES.index(draft.con_base))
    given["stamina"] = min(sheet.stamina, draft.con_die)
    after = _validated({**sheet.model_dump(), **given})
    notes: list[str] = []
    rules: list[str] = []
    after = _breakdown_from_stacks(after, notes, rules)
    return finish("edit", sheet, after, rules, notes=notes)


def set_fields(sheet: Sheet, **fields: object) -> Outcome:
    """GM: state fields set directly (P-3), within the ranges of section 1."""
    given = _fields(fields, SETTABLE)
    if not given:
        raise RuleError(f"Nothing to set: give at least one of {', '.join(SETTABLE)}.")
    wounds = given.get("con_wounds")
    if isinstance(wounds, int) and wounds > CON_SIZES.index(sheet.con_base):
        raise RuleError(
            f"{sheet.name}'s CON die is d{sheet.con_base}: at most "
            f"{CON_SIZES.index(sheet.con_base)} wounds can step it down to d6 (S-2)."
        )
    merged = {**sheet.model_dump(), **given}
    if "stamina" not in given:
        draft = _validated({**merged, "stamina": 0})
        merged["stamina"] = min(sheet.stamina, draft.max_stamina)  # S-2
    after = _validated(merged)
    notes: list[str] = []
    rules: list[str] = []
    after = _breakdown_from_stacks(after, notes, rules)
    return finish("set", sheet, after, rules, notes=notes)


def revive(sheet: Sheet) -> Outcome:
    """GM: a Dead or Retired character comes back Up, at VIT 1 if it had less (V-5, E-7)."""
    state = sheet.state
    if not state.is_out:
        raise RuleError(
            f"{sheet.name} is {state.value}, not Dead or Retired: there is nothing to revive."
        )
    after = sheet.update(
        dead=False,
        retired=False,
        vit=max(sheet.vit, 1),
        advantage=False,
        recovered_this_round=False,
    )
    rules = ["V-5"] if state is State.DEAD else ["E-7"]
    return finish("revive", sheet, after, rules, retirement=False)
