"""Creating a sheet, editing its fields (P-4, P-5), setting state directly (GM), reviving
(V-5, E-7), importing a sheet (P-6) and giving a character to another member (GM)."""

from __future__ import annotations

import json
from collections.abc import Mapping

from pydantic import ValidationError

from rules.condition import breakdown_started, finish, must_retire
from rules.errors import RuleError
from rules.models import Emotion, GuildSettings, Sheet, State
from rules.names import clean_name
from rules.outcome import BOOKKEEPING_FIELDS, Outcome
from rules.text import say

# The fields that describe the character (its build), and those that hold its state.
EDITABLE = ("name", "max_vit", "res", "con_base", "humility", "composure", "insight", "threshold")
# How the command options name them, where they differ (the CON die is written `con:d8`).
OPTIONS = {"con_base": "con"}
SETTABLE = ("vit", "stamina", "stress", "anger", "fear", "sadness", "guilt", "con_wounds")
# P-5: the build fields that change what the rules decide, as a refusal names them.
RULE_FIELDS = {
    "max_vit": "max VIT",
    "res": "RES",
    "con_base": "base CON die",
    "threshold": "emotion threshold",
}
# P-6: what a GM's import brings besides the build; per-turn and per-day flags never come.
IMPORTED_STATE = (*SETTABLE, "breakdown", "dead", "retired")
NEVER_IMPORTED = ("owner_id", "advantage", "relief_used_today", "daily_bonus", *BOOKKEEPING_FIELDS)

LABELS = {
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
    "breakdown": "Breakdown",
    **{e.value: e.label for e in Emotion},
}


def _fields(fields: Mapping[str, object], allowed: tuple[str, ...]) -> dict[str, object]:
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


def _refusal(
    error: ValidationError,
    prefix: str = "",
    suffix: str = "Enter a value in range.",
    name_suffix: str = "",
) -> RuleError:
    """The first problem pydantic found, as a refusal naming the field. A name's problem says
    itself what to type instead (rules.names): no range to enter."""
    first = error.errors()[0]
    message = str(first["msg"]).removeprefix("Value error, ")
    field = str(first["loc"][0]) if first["loc"] else None  # cross-field checks have none
    if field == "name":
        suffix = name_suffix
    elif field is not None:
        message = f"{LABELS.get(field, field)}: {message}"
    template = prefix + "{problem}." + (" " + suffix if suffix else "")
    return RuleError(template, problem=message[0].upper() + message[1:])


def _validated(data: Mapping[str, object]) -> Sheet:
    """A Sheet, or a RuleError naming the first field out of range."""
    try:
        return Sheet.model_validate(data)
    except ValidationError as error:
        raise _refusal(error) from None


def _fresh(data: Mapping[str, object]) -> Sheet:
    """VIT and Stamina full: a new character's state (section 1)."""
    draft = _validated({**data, "stamina": 0, "vit": 0})
    return _validated({**data, "vit": draft.max_vit, "stamina": draft.max_stamina})


def create_sheet(name: str, owner_id: int, settings: GuildSettings, **fields: object) -> Sheet:
    """Defaults where a field is not given; VIT and Stamina start full."""
    given = _fields(fields, EDITABLE[1:])
    return _fresh(
        {"name": name, "owner_id": owner_id, "threshold": settings.emotion_threshold, **given}
    )


def _breakdown_from_stacks(sheet: Sheet, notes: list[str], rules: list[str]) -> Sheet:
    """E-1: a stack at its threshold outside Breakdown begins one (after an edit or a set);
    E-6 in full, as whenever a Breakdown begins."""
    if sheet.breakdown is not None:
        return sheet
    for emotion in Emotion:
        if sheet.stack(emotion) >= sheet.threshold:
            notes.append(
                f"{emotion.label} is at the threshold ({sheet.threshold}): a Breakdown begins."
            )
            rules += ["E-1", "E-6"]
            started = sheet.update(breakdown=emotion)
            notes.append(breakdown_started(started))
            return started
    return sheet


def _owner_may_edit_rules(sheet: Sheet, in_combat: bool) -> str | None:
    """P-5: why the owner may not change a rule field now, or None."""
    if sheet.state is not State.UP:
        return "it is " + sheet.state.value
    if sheet.breakdown is not None:
        return "it is in a Breakdown"
    if in_combat:
        return "it is in a combat"
    return None


def edit_sheet(sheet: Sheet, *, by_gm: bool, in_combat: bool, **fields: object) -> Outcome:
    """Fields that are not state (P-4); max VIT, RES, base CON and threshold within P-5.
    VIT, Stamina and stacks are clamped to new maxima."""
    given = _fields(fields, EDITABLE)
    if not given:
        named = ", ".join(OPTIONS.get(field, field) for field in EDITABLE)
        raise RuleError(f"Nothing to change: give at least one of {named}.")
    ruled = [f for f in RULE_FIELDS if f in given and given[f] != getattr(sheet, f)]
    why = None if by_gm or not ruled else _owner_may_edit_rules(sheet, in_combat)
    if why is not None:
        fields_named = " and ".join(RULE_FIELDS[f] for f in ruled)
        raise RuleError(
            "{name}'s " + fields_named + " can change only while it is Up, not in a Breakdown "
            "and in no combat, unless the GM changes it (P-5): " + why + ". Nothing was changed.",
            name=sheet.name,
        )
    empty = {emotion.value: 0 for emotion in Emotion}
    draft = _validated({**sheet.model_dump(), **given, **empty, "vit": 0, "stamina": 0})
    for emotion in Emotion:
        given[emotion.value] = min(sheet.stack(emotion), draft.threshold)
    given["vit"] = min(sheet.vit, draft.max_vit)
    given["stamina"] = min(sheet.stamina, draft.con_die)
    after = _validated({**sheet.model_dump(), **given})
    notes: list[str] = []
    rules = ["P-5"] if ruled else ["P-4"]
    after = _breakdown_from_stacks(after, notes, rules)
    if after == sheet:
        headline = say("Nothing changes: {name} already has those values.", name=sheet.name)
    elif after.name != sheet.name:
        headline = say("{name} is renamed {new}.", name=sheet.name, new=after.name)
    else:
        headline = say("{name}'s sheet is edited.", name=sheet.name)
    return finish("edit", sheet, after, rules, headline=headline, notes=notes)


def set_fields(sheet: Sheet, settings: GuildSettings, **fields: object) -> Outcome:
    """GM: state fields set directly (P-3), within section 1's ranges. A VIT set below 0
    kills under `instant` death (V-6)."""
    given = _fields(fields, SETTABLE)
    if not given:
        raise RuleError(f"Nothing to set: give at least one of {', '.join(SETTABLE)}.")
    merged = {**sheet.model_dump(), **given}
    if "stamina" not in given:
        draft = _validated({**merged, "stamina": 0})
        merged["stamina"] = min(sheet.stamina, draft.max_stamina)  # S-2
    after = _validated(merged)
    notes: list[str] = []
    rules = ["P-3"]
    after = _breakdown_from_stacks(after, notes, rules)
    named = ", ".join(LABELS[f].removeprefix("The ") for f in given)
    if after == sheet:
        headline = say("Nothing changes: {name} already has those values.", name=sheet.name)
    else:
        headline = say("The GM sets " + named + " for {name}.", name=sheet.name)
    return finish("set", sheet, after, rules, headline=headline, settings=settings, notes=notes)


def revive(sheet: Sheet, *, stress: int | None = None) -> Outcome:
    """GM: a Dead or Retired character comes back Up, at VIT 1 if it had less (V-5, E-7).
    E-7: refused while Stress ≥ VIT would retire it again at once, unless `stress` lowers it."""
    state = sheet.state
    if not state.is_out:
        raise RuleError(
            "{name} is " + state.value + ", not Dead or Retired: there is nothing to revive.",
            name=sheet.name,
        )
    vit = max(sheet.vit, 1)
    new_stress = sheet.stress if stress is None else stress
    if new_stress > 0 and new_stress >= vit:
        raise RuleError(
            "{name} would retire again at once: Stress {stress} is at least its VIT {vit} (E-7). "
            "Lower Stress first: with the revive's stress option (e.g. stress:0) or with "
            "/character set.",
            name=sheet.name,
            stress=new_stress,
            vit=vit,
        )
    after = _validated(
        {
            **sheet.model_dump(),
            "dead": False,
            "retired": False,
            "vit": vit,
            "stress": new_stress,
            "advantage": False,
            # The round's flags: the round it died or retired in is not its round any more.
            "early_this_round": False,
            "spent_this_round": False,
            "recovered_this_round": False,
        }
    )
    rules = ["V-5"] if state is State.DEAD else ["E-7"]
    headline = say(
        "{name} is back: Up at VIT {vit}/{most}.", name=sheet.name, vit=vit, most=sheet.max_vit
    )
    return finish("revive", sheet, after, rules, headline=headline, retirement=False)


def import_sheet(
    data: Mapping[str, object],
    owner_id: int,
    settings: GuildSettings,
    *,
    by_gm: bool,
    name: str | None = None,
) -> tuple[Sheet, list[str]]:
    """P-6: the new character is `owner_id`'s (the importer's, or the GM's pick). A player's
    import takes the build and starts the state fresh; the GM's takes the state too; flags
    never. `name` replaces the file's name, checked as any name (section 1). Every value must
    lie in its range and be of its type: nothing is rounded or clamped. Returns the sheet and
    what was left out, to tell the importer."""
    known = {*EDITABLE, *IMPORTED_STATE, *NEVER_IMPORTED}
    unknown = sorted(str(key) for key in data if key not in known)
    if unknown:
        raise RuleError("The file has a field this bot does not know: {field}.", field=unknown[0])
    build = {key: data[key] for key in EDITABLE if key in data}
    if name is not None:
        build["name"] = _checked_name(name)
    if "name" not in build:
        raise RuleError(
            "The sheet in that file has no name: give it one with the import's name option."
        )
    build.setdefault("threshold", settings.emotion_threshold)
    state = {key: data[key] for key in IMPORTED_STATE if key in data}
    if "stamina" not in state and "con_wounds" in state:
        # Stamina left out: full, for the die the wounds leave (S-1, S-2).
        wounded = _strict({"owner_id": owner_id, **build, "con_wounds": state["con_wounds"]})
        state["stamina"] = wounded.max_stamina
    fresh = _strict({"owner_id": owner_id, **build})
    fresh = _fresh(fresh.model_dump())
    imported = _strict({**fresh.model_dump(), **state})  # every value in range, by_gm or not
    if not by_gm:
        left_out = [
            key
            for key in IMPORTED_STATE
            if key in data and getattr(imported, key) != getattr(fresh, key)
        ]
        return fresh, left_out
    notes: list[str] = []
    imported = _breakdown_from_stacks(imported, notes, [])
    if must_retire(imported):  # E-7, as any change that brings Stress to VIT
        imported = imported.update(retired=True)
    return imported, []


def _strict(data: Mapping[str, object]) -> Sheet:
    """Strict, from JSON: an integer must be a JSON integer ("5", 5.0 and true are refused);
    a sheet with VIT and Stamina left out starts them full."""
    draft = {"vit": 0, "stamina": 0, **data}
    try:
        text = json.dumps(draft)
    except ValueError:  # a number beyond Python's 4,300-digit text limit
        raise RuleError(
            "The sheet in that file holds a number far too long to be a sheet's."
        ) from None
    try:
        return Sheet.model_validate_json(text, strict=True)
    except ValidationError as error:
        raise _refusal(
            error,
            "The sheet in that file is not valid: ",
            "Fix the file or export it again.",
            "Fix the file, or import it under another name with the import's name option.",
        ) from None


def _checked_name(name: str) -> str:
    """A name typed for a command, checked as any name (section 1)."""
    try:
        return clean_name(name)
    except ValueError as error:
        problem = str(error)
        raise RuleError("{problem}.", problem=problem[0].upper() + problem[1:]) from None


def give(sheet: Sheet, owner_id: int) -> Outcome:
    """GM: the character changes hands (P-2, P-3). A change of owner (U-2): logged, shown by
    /history, and undone by /undo, which gives it back."""
    if owner_id == sheet.owner_id:
        raise RuleError(
            "{name} already belongs to that member: pick someone else for to.", name=sheet.name
        )
    after = sheet.update(owner_id=owner_id)
    headline = say("{name} now belongs to <@{owner}>.", name=sheet.name, owner=owner_id)
    return finish("give", sheet, after, ["P-3"], headline=headline)
