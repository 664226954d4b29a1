"""Hostile input through the command tree (issue "Never leave the table waiting", items 1–7):
files, names and payloads that Discord's client would never send, or that a player types to
break the table. Each one is answered exactly once (one interaction callback), privately and
clearly, and changes nothing in the database; autocomplete always answers with valid choices.

The rules: docs/rules.md section 1 (names: no control, format or invisible characters; one key
per name; every imported number within the sheet's ranges), docs/commands.md ("mistakes and
refusals are private … with names and typed text escaped"; "never pings").
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from bot.offline import EPHEMERAL, Attachment, Raw, Result, interaction_payload
from bot.render.common import CHOICE_NAME_LIMIT, CHOICES_LIMIT, escape
from rules.names import name_key
from tests.discord.conftest import Harness, assert_refused

WRONG = "Something went wrong"


# --- helpers -------------------------------------------------------------------------------------


def callbacks(result: Result) -> list[Any]:
    return [r for r in result.requests if r.path.endswith("/callback")]


def refused_once(result: Result, *fragments: str) -> str:
    """Exactly one answer (one callback, nothing else sent), private, a refusal, not a bug."""
    [callback] = callbacks(result)
    assert result.requests == [callback], [(r.method, r.path) for r in result.requests]
    assert callback.payload["type"] == 4
    assert callback.payload["data"]["flags"] & EPHEMERAL
    text = assert_refused(result, *fragments)
    assert WRONG not in text, text
    return text


def choices_once(result: Result) -> list[dict]:
    """Exactly one autocomplete answer (callback type 8) with valid choices."""
    [callback] = callbacks(result)
    assert result.requests == [callback]
    assert callback.payload["type"] == 8
    choices = callback.payload["data"]["choices"]
    assert isinstance(choices, list) and len(choices) <= CHOICES_LIMIT
    for choice in choices:
        assert set(choice) >= {"name", "value"}
        assert 1 <= len(choice["name"]) <= CHOICE_NAME_LIMIT
    assert result.choices == choices
    return choices


async def exported(harness: Harness) -> dict:
    """A sheet exported by /character export (Roryn's, made if missing): the file an import
    starts from, renamed Neo."""
    listed = await harness.run(harness.gm, "character list")
    if "Roryn" not in listed.card.markdown:
        await harness.add_character("Roryn", vit=5)
    export = await harness.run(harness.owner, "character export", character="Roryn")
    [(_, data)] = export.reply.files
    document = json.loads(data)
    document["sheet"]["name"] = "Neo"
    return document


async def import_file(harness: Harness, member: Any, data: bytes | str) -> Result:
    raw = data.encode() if isinstance(data, str) else data
    return await harness.run(member, "character import", file=Attachment("sheet.json", raw))


def with_number(document: dict, field: str, digits: str) -> str:
    """The document as JSON text with `field` set to a number written with `digits`."""
    document = json.loads(json.dumps(document))
    document["sheet"][field] = 0
    text = json.dumps(document)
    return text.replace(f'"{field}": 0', f'"{field}": {digits}', 1)


# --- 1, 2: numbers in an imported file -----------------------------------------------------------

DIGITS_4300 = "9" * 4300  # Python reads it (its limit is 4,300 digits), and it is absurd


@pytest.mark.parametrize(
    ("field", "label"),
    [
        ("vit", "VIT"),
        ("max_vit", "Max VIT"),
        ("res", "RES"),
        ("stamina", "Stamina"),
        ("stress", "Stress"),
        ("anger", "Anger"),
        ("con_wounds", None),
        ("threshold", None),
    ],
)
async def test_an_import_with_a_4300_digit_number_is_refused(any_harness, field, label):
    harness = any_harness
    document = await exported(harness)
    before = await harness.snapshot()
    for importer in (harness.owner, harness.gm):  # a player's import, and the GM's (P-6)
        for sign in ("", "-"):
            text = with_number(document, field, sign + DIGITS_4300)
            refused = await import_file(harness, importer, text)
            said = refused_once(refused, "not valid", "export it again")
            if label:
                assert label in said
            assert len(said) < 400  # what is wrong, without the number's 4,300 digits
    assert await harness.snapshot() == before
    # The table goes on: every command that loads the guild's characters still works.
    listed = await harness.run(harness.gm, "character list")
    assert "Roryn" in listed.card.body and "Neo" not in listed.card.body
    assert not (await harness.run(harness.gm, "day")).ephemeral
    assert not (await harness.run(harness.gm, "rest", kind="respite", everyone=True)).ephemeral


@pytest.mark.parametrize("digits", ["9" * 4301, "1" + "0" * 20_000, "-" + "7" * 5000])
async def test_a_json_integer_too_long_for_python_is_a_clear_refusal(any_harness, digits):
    harness = any_harness
    document = await exported(harness)
    before = await harness.snapshot()
    refused = await import_file(harness, harness.gm, with_number(document, "vit", digits))
    text = refused_once(refused, "export")
    assert "number far too long" in text
    assert await harness.snapshot() == before


@pytest.mark.parametrize(
    "value",
    [1e308, "5", True, None, [5], {"v": 5}],
    ids=["float", "str", "bool", "null", "list", "obj"],
)
async def test_an_imported_number_of_another_type_is_refused(harness, value):
    document = await exported(harness)
    document["sheet"]["vit"] = value
    before = await harness.snapshot()
    refused = await import_file(harness, harness.gm, json.dumps(document))
    refused_once(refused, "VIT", "not valid")
    assert await harness.snapshot() == before


# --- 3, 4, 5: names ------------------------------------------------------------------------------

INVISIBLE_NAMES = [
    pytest.param("Ro\x00ryn", id="NUL"),
    pytest.param("Ro\x07ryn", id="BEL"),
    pytest.param("Bo\u200bb", id="zero-width-space"),
    pytest.param("Bo\u200cb", id="ZWNJ"),
    pytest.param("Bo\u200db", id="ZWJ"),
    pytest.param("Bo\u2060b", id="word-joiner"),
    pytest.param("Bo\ufeffb", id="BOM"),
    pytest.param("Bo\u202eb", id="bidi-override"),
    pytest.param("\u200b\u200c\u200d", id="only-zero-width"),
    pytest.param("\u3164", id="only-hangul-filler"),
    pytest.param("\u2800\u2800", id="only-braille-blank"),
]


async def refused_name(harness: Harness, result: Result) -> str:
    """Section 1: the refusal names the character (`U+200B, a zero-width space`) and what to
    type instead; never the range text of a number."""
    text = refused_once(result)
    assert "U+" in text or "(NUL)" in text, text
    assert "without it" in text or "(NUL)" in text, text
    assert "in range" not in text, text
    return text


@pytest.mark.parametrize("name", INVISIBLE_NAMES)
async def test_a_name_with_invisible_characters_is_refused_at_every_door(any_harness, name):
    harness = any_harness
    document = await exported(harness)
    before = await harness.snapshot()
    document["sheet"]["name"] = name
    await refused_name(harness, await import_file(harness, harness.gm, json.dumps(document)))
    await refused_name(harness, await harness.run(harness.gm, "character create", name=name))
    edit = await harness.run(harness.gm, "character edit", character="Roryn", name=name)
    await refused_name(harness, edit)
    assert await harness.snapshot() == before


# Issue 21 item 10: names people type, with emoji sequences (section 1).
EMOJI_NAMES = [
    pytest.param("Gus 🧙\u200d♂\ufe0f the Grey", id="zwj-sequence"),
    pytest.param("🏳\ufe0f\u200d🌈 Pip", id="rainbow-flag"),
    pytest.param("Ada 👍🏽", id="skin-tone"),
    pytest.param("🏴\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f Sco", id="tags"),
    pytest.param("🇫🇷 Jeanne", id="flag"),
]
FAMILY = "👨\u200d👩\u200d👧\u200d👦"  # one character the user sees; 11 UTF-16 units


@pytest.mark.parametrize("name", EMOJI_NAMES)
async def test_a_name_with_emoji_sequences_goes_through_every_door(any_harness, name):
    """Created, renamed, imported: shown and found as typed (show, autocomplete, any
    `character:` option); the key stays unique per guild (on both databases)."""
    harness = any_harness
    created = await harness.run(harness.owner, "character create", name=name)
    assert not created.ephemeral
    assert escape(name) in created.card.title
    shown = await harness.run(harness.owner, "character show", character=name)
    assert shown.card.title.endswith(escape(name))
    first = name[:3]
    [offered] = await harness.complete(
        harness.owner, "character show", "character", character=first
    )
    assert offered["value"] == name
    hit = await harness.run(harness.owner, "damage", character=name, amount=1)
    assert not hit.ephemeral and "VIT 10 → 9" in hit.card.body
    # one key: the same name in capitals, or without its variation selectors, is taken
    before = await harness.snapshot()
    for twin in (name.upper(), name.replace("\ufe0f", "")):
        refused_once(
            await harness.run(harness.gm, "character create", name=twin), "already has a character"
        )
    assert await harness.snapshot() == before
    # a rename to it and back, and an import under it
    renamed = await harness.run(harness.owner, "character edit", character=name, name="Plain")
    assert not renamed.ephemeral
    renamed = await harness.run(harness.owner, "character edit", character="Plain", name=name)
    assert not renamed.ephemeral and (await harness.sheet(name)).name == name
    document = await exported(harness)
    imported = await harness.run(
        harness.gm,
        "character import",
        file=Attachment("sheet.json", json.dumps(document).encode()),
        name=f"{name} II",
    )
    assert not imported.ephemeral and (await harness.sheet(f"{name} II")).name == f"{name} II"
    document["sheet"]["name"] = f"Copy {name}"
    imported = await import_file(harness, harness.gm, json.dumps(document))
    assert not imported.ephemeral and (await harness.sheet(f"Copy {name}")).name == f"Copy {name}"


async def test_32_emoji_sequences_make_a_name_the_option_checks_let_through(harness):
    """Length counts what the user sees: 32 families are 32 characters (352 UTF-16 units,
    more than Discord's max_length would allow if it were declared as 32)."""
    created = await harness.run(harness.owner, "character create", name=FAMILY * 32)
    assert not created.ephemeral
    assert (await harness.sheet(FAMILY * 32)).name == FAMILY * 32
    text = refused_once(await harness.run(harness.owner, "character create", name=FAMILY * 33))
    assert "at most 32 characters, and that one has 33" in text
    assert "in range" not in text


async def test_autocomplete_leaves_out_a_name_too_long_to_be_a_choice(harness):
    """A choice's value holds at most 100 characters: a name of 32 families (352 UTF-16
    units) would make Discord refuse every choice. It is left out (typed, it is found)."""
    await harness.add_character(FAMILY * 32)
    await harness.add_character(FAMILY + " Pip")
    choices = await harness.complete(harness.owner, "character show", "character", character="")
    assert [c["value"] for c in choices] == [FAMILY + " Pip"]
    shown = await harness.run(harness.owner, "character show", character=FAMILY * 32)
    assert shown.card.title.endswith(escape(FAMILY * 32))  # the sheet, not a refusal


async def test_an_emoji_name_is_offered_with_its_label_cut_between_emoji(harness):
    """A choice's label holds at most 100 characters: 25 thumbs with a skin tone take 100
    UTF-16 units, so the label is cut, between two emoji, never inside one."""
    name = "👍🏽" * 25
    await harness.add_character(name)
    [offered] = await harness.complete(harness.owner, "character show", "character", character="")
    assert offered["value"] == name
    label = offered["name"]
    assert label.endswith("👍🏽…") and len(label.encode("utf-16-le")) // 2 <= 100


@pytest.mark.parametrize(
    ("name", "called"),
    [
        ("Bo\u200db", "U+200D, a zero-width joiner"),  # a joiner between letters
        ("Bo👍\u200d", "U+200D, a zero-width joiner"),  # a joiner that joins nothing
        ("Bob\ufe0f", "U+FE0F, a variation selector"),
        ("Bob\U000e0041", "U+E0041, a tag character"),
        ("Bo\u200bb 👍🏽", "U+200B, a zero-width space"),  # an emoji does not excuse the rest
    ],
)
async def test_emoji_parts_outside_an_emoji_sequence_are_refused_at_every_door(
    harness, name, called
):
    document = await exported(harness)
    before = await harness.snapshot()
    document["sheet"]["name"] = name
    for result in (
        await import_file(harness, harness.gm, json.dumps(document)),
        await harness.run(harness.gm, "character create", name=name),
        await harness.run(harness.gm, "character edit", character="Roryn", name=name),
        await harness.run(
            harness.gm,
            "character import",
            file=Attachment("sheet.json", json.dumps(document).encode()),
            name=name,
        ),
    ):
        text = await refused_name(harness, result)
        assert called in text
    assert await harness.snapshot() == before


@pytest.mark.parametrize(
    "twin",
    ["Roryn\u200b", "\u200bRoryn", "Ro\u2060ryn", "ＲＯＲＹＮ", "roryn", " Roryn ", "RORYN\ufe0f"],
    ids=["trailing-ZWSP", "leading-ZWSP", "word-joiner", "fullwidth", "lower", "spaces", "VS16"],
)
async def test_a_name_that_looks_the_same_cannot_be_created_beside_it(any_harness, twin):
    harness = any_harness
    await harness.add_character("Roryn", vit=5)
    await harness.add_character("Bea", vit=5)
    assert name_key(twin) == name_key("Roryn")  # section 1: one key
    before = await harness.snapshot()
    created = await harness.run(harness.gm, "character create", name=twin)
    refused_once(created)
    renamed = await harness.run(harness.gm, "character edit", character="Bea", name=twin)
    refused_once(renamed)
    document = await exported(harness)
    document["sheet"]["name"] = twin
    imported = await import_file(harness, harness.gm, json.dumps(document))
    refused_once(imported)
    assert await harness.snapshot() == before
    listed = await harness.run(harness.gm, "character list")
    assert listed.card.body.count("Roryn") == 1


async def test_a_name_too_long_once_spelled_out_is_refused_alike_on_both_databases(any_harness):
    harness = any_harness
    name = "\ufdfa" * 8  # 8 characters; NFKC spells each out to 18: a 144-character key
    assert len(name) <= 32 < 128 < len(name_key(name))
    document = await exported(harness)
    before = await harness.snapshot()
    expected = "That name spells out to 144 characters (at most 128)"
    refused_once(await harness.run(harness.gm, "character create", name=name), expected)
    edit = await harness.run(harness.gm, "character edit", character="Roryn", name=name)
    refused_once(edit, expected)
    document["sheet"]["name"] = name
    refused_once(await import_file(harness, harness.gm, json.dumps(document)), expected)
    assert await harness.snapshot() == before


async def test_a_name_with_a_nul_cannot_leave_a_character_no_one_can_name(any_harness):
    """The issue's case: an imported NUL made a character the GM could not even delete."""
    harness = any_harness
    document = await exported(harness)
    document["sheet"]["name"] = "Ghost\x00"
    refused_once(await import_file(harness, harness.gm, json.dumps(document)))
    listed = await harness.run(harness.gm, "character list")
    assert "Ghost" not in listed.card.body


# --- 6: refusals escape names and typed text -----------------------------------------------------

TYPED = ["[x](https://e.co/a)", "# name", "**b**", "@everyone", "<@123>", "`code`", "||spoiler||"]


def shows_escaped(text: str, typed: str) -> None:
    """`typed` appears only escaped: no link, heading, bold, mention or code survives."""
    shown = escape(typed)
    assert shown in text, f"{shown!r} not in {text!r}"
    if shown != typed:
        assert typed not in text.replace(shown, ""), text


@pytest.mark.parametrize("typed", TYPED)
async def test_a_refusal_escapes_a_name_that_does_not_exist(harness, typed):
    before = await harness.snapshot()
    refused = await harness.run(harness.owner, "damage", character=typed, amount=1)
    text = refused_once(refused, "No character named")
    shows_escaped(text, typed)
    assert await harness.snapshot() == before


@pytest.mark.parametrize("typed", TYPED)
async def test_a_refusal_escapes_a_name_taken_already(harness, typed):
    await harness.add_character(typed, vit=5)
    await harness.add_character("Bea", vit=5)
    before = await harness.snapshot()
    for refused in (
        await harness.run(harness.gm, "character create", name=typed),
        await harness.run(harness.gm, "character edit", character="Bea", name=typed),
    ):
        shows_escaped(refused_once(refused, "already has a character named"), typed)
    assert await harness.snapshot() == before


@pytest.mark.parametrize("typed", TYPED)
async def test_a_refusal_escapes_the_name_of_a_character_it_cannot_act_on(harness, typed):
    await harness.add_character(typed, vit=5)
    before = await harness.snapshot()
    refused = await harness.run(harness.gm, "recover", character=typed)
    shows_escaped(refused_once(refused, "is Up (VIT 5/10)"), typed)
    assert await harness.snapshot() == before


# --- 7: payloads Discord's client never sends ----------------------------------------------------


async def feed(harness: Harness, payload: dict) -> Result:
    return harness.validated(await harness.driver.feed(payload))


async def test_an_attachment_missing_from_resolved_is_refused_once(harness):
    payload = harness.driver.payload(
        harness.owner, "character import", file=Attachment("sheet.json", b"{}")
    )
    payload["data"]["resolved"].pop("attachments")
    before = await harness.snapshot()
    refused_once(await feed(harness, payload), "`file`")
    assert await harness.snapshot() == before


async def test_a_role_missing_from_resolved_is_refused_once(harness):
    payload = harness.driver.payload(harness.gm, "settings set", gm_role="GM")
    del payload["data"]["resolved"]
    before = await harness.snapshot()
    refused_once(await feed(harness, payload), "`gm_role`")
    assert await harness.snapshot() == before
    assert (await harness.settings()).gm_role_id is None


@pytest.mark.parametrize("option", ["character", "amount"])
async def test_an_option_without_a_type_is_refused_once(harness, option):
    await harness.add_character("Roryn", vit=5)
    payload = harness.driver.payload(harness.owner, "damage", character="Roryn", amount=2)
    for given in payload["data"]["options"]:
        if given["name"] == option:
            del given["type"]
    before = await harness.snapshot()
    refused_once(await feed(harness, payload), f"`{option}`")
    assert await harness.snapshot() == before


@pytest.mark.parametrize(
    "value", [Raw("2"), Raw("two"), Raw(2.5), Raw(True), Raw(None), Raw([2]), Raw(2**60)]
)
async def test_a_value_of_the_wrong_kind_for_an_integer_is_refused_once(harness, value):
    await harness.add_character("Roryn", vit=5)
    payload = harness.driver.payload(harness.owner, "damage", character="Roryn", amount=value)
    before = await harness.snapshot()
    refused_once(await feed(harness, payload), "`amount`")
    assert await harness.snapshot() == before


@pytest.mark.parametrize("value", [Raw(5), Raw(None), Raw({"a": 1}), Raw("x" * 7000)])
async def test_a_wrong_or_huge_text_option_is_refused_once(harness, value):
    payload = harness.driver.payload(harness.owner, "character create", name=value)
    before = await harness.snapshot()
    refused_once(await feed(harness, payload), "`name`")
    assert await harness.snapshot() == before


@pytest.mark.parametrize(
    ("command", "options", "missing"),
    [
        ("damage", {"character": "Roryn"}, "amount"),
        ("heal", {"character": "Roryn"}, "amount"),
        ("character create", {}, "name"),
        ("character import", {}, "file"),
        ("character delete", {}, "character"),
    ],
)
async def test_a_missing_required_option_is_named(harness, command, options, missing):
    await harness.add_character("Roryn", vit=5)
    payload = harness.driver.payload(harness.gm, command, **options)
    before = await harness.snapshot()
    text = refused_once(await feed(harness, payload), f"`{missing}`", "missing")
    assert "out of date" not in text
    assert await harness.snapshot() == before


@pytest.mark.parametrize(
    "mangle",
    [
        lambda data: data["options"].append({"name": "nonsense", "type": 4, "value": 1}),
        lambda data: data.__setitem__("options", "garbled"),
        lambda data: data.__setitem__("options", [5]),
        lambda data: data["options"][0].__setitem__("name", 7),
    ],
    ids=["unknown-option", "options-not-a-list", "option-not-an-object", "name-not-text"],
)
async def test_a_garbled_payload_is_answered_once(harness, mangle):
    await harness.add_character("Roryn", vit=5)
    payload = harness.driver.payload(harness.owner, "damage", character="Roryn", amount=1)
    mangle(payload["data"])
    before = await harness.snapshot()
    refused_once(await feed(harness, payload))
    assert await harness.snapshot() == before


async def test_a_hand_made_payload_for_a_subcommand_without_options_is_answered_once(harness):
    data = {"id": "1", "name": "character", "type": 1, "options": [{"name": "create", "type": 1}]}
    payload = interaction_payload(harness.owner, 2, data, harness.driver.application_id)
    before = await harness.snapshot()
    refused_once(await feed(harness, payload), "`name`")
    assert await harness.snapshot() == before


# autocomplete


def focused_option(payload: dict) -> dict:
    """The focused option of an autocomplete payload (inside its subcommand, if any)."""
    options = payload["data"]["options"]
    while options and options[0].get("type") == 1:
        options = options[0]["options"]
    [option] = [o for o in options if o.get("focused")]
    return option


def focused_payload(harness: Harness, value: Any, command: str = "damage") -> dict:
    payload = harness.driver.payload(harness.owner, command, focused="character", character="R")
    focused_option(payload)["value"] = value
    return payload


HOSTILE_TYPED = {
    "int": 5,
    "null": None,
    "bool": True,
    "float": 2.5,
    "list": ["Ro"],
    "object": {"v": "Ro"},
    "60k": "R" * 60_000,
    "60k-percent": "%" * 60_000,
    "60k-like": "_%" * 30_000,
}


def autocomplete_cases() -> list[Any]:
    cases = []
    for command in ("damage", "history", "character delete"):
        for name, value in HOSTILE_TYPED.items():
            cases.append(pytest.param(command, value, id=f"{command}-{name}"))
    return cases


@pytest.mark.parametrize(("command", "value"), autocomplete_cases())
async def test_autocomplete_with_hostile_text_answers_valid_choices(any_harness, command, value):
    harness = any_harness
    await harness.add_character("Roryn", vit=5)
    before = await harness.snapshot()
    choices = choices_once(await feed(harness, focused_payload(harness, value, command)))
    assert choices == []
    assert await harness.snapshot() == before


async def test_autocomplete_still_completes_what_is_typed(harness):
    await harness.add_character("Roryn", vit=5)
    choices = choices_once(await feed(harness, focused_payload(harness, "Ro")))
    assert [c["value"] for c in choices] == ["Roryn"]


async def test_autocomplete_with_a_missing_focused_value_answers_valid_choices(harness):
    await harness.add_character("Roryn", vit=5)
    payload = focused_payload(harness, "Ro")
    del focused_option(payload)["value"]
    choices_once(await feed(harness, payload))
