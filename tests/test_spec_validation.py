"""The check of the bodies the bot sends (tests/spec_validation.py): which description
load_validator picks, and the Zod validator itself on bodies known good and known bad (skipped,
saying so, only where npm and node are absent)."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests import discord_spec
from tests.spec_validation import (
    SCRIPT,
    NoSpec,
    SpecValidator,
    Validator,
    ZodValidator,
    load_validator,
)

CALLBACK = "/interactions/{webhook_id}/{webhook_token}/callback"  # as discord.py names them
FOLLOWUP = "/webhooks/{webhook_id}/{webhook_token}"
ORIGINAL = "/webhooks/{webhook_id}/{webhook_token}/messages/@original"
EDIT = "/webhooks/{webhook_id}/{webhook_token}/messages/{message_id}"
CHANNEL = "/channels/{channel_id}/messages"
CHANNEL_EDIT = "/channels/{channel_id}/messages/{message_id}"
COMMANDS = "/applications/{application_id}/commands"
GUILD_COMMANDS = "/applications/{application_id}/guilds/{guild_id}/commands"
EMOJIS = "/applications/{application_id}/emojis"

EMBED = {
    "title": "Roryn",
    "description": "VIT 1 → -2",
    "color": 0xAA0000,
    "fields": [{"name": "VIT", "value": "-2", "inline": True}],
    "footer": {"text": "Last Gasp"},
}
BUTTONS = [{"type": 1, "components": [{"type": 2, "style": 1, "label": "Yes", "custom_id": "y"}]}]
MESSAGE = {
    "content": "Roryn takes 3.",
    "embeds": [EMBED],
    "components": BUTTONS,
    "allowed_mentions": {"parse": []},
}
COMMAND = {
    "name": "damage",
    "description": "Subtract VIT from a character",
    "type": 1,
    "options": [
        {"type": 4, "name": "amount", "description": "1 to 10000", "required": True,
         "min_value": 1, "max_value": 10000},
        {"type": 3, "name": "character", "description": "A character", "required": False,
         "autocomplete": True, "min_length": 1, "max_length": 32},
    ],
    "contexts": [0],
    "integration_types": [0],
    "default_member_permissions": None,
    "nsfw": False,
}  # fmt: skip
MODAL = {
    "custom_id": "notes",
    "title": "Notes",
    "components": [
        {"type": 1, "components": [{"type": 4, "custom_id": "t", "style": 1, "label": "Text"}]}
    ],
}

GOOD = [
    pytest.param("POST", CALLBACK, {"type": 4, "data": {**MESSAGE, "flags": 64}}, id="reply"),
    pytest.param("POST", CALLBACK, {"type": 5, "data": {"flags": 64}}, id="deferred"),
    pytest.param("POST", CALLBACK, {"type": 6}, id="deferred-update"),
    pytest.param("POST", CALLBACK, {"type": 7, "data": {"components": []}}, id="update"),
    pytest.param(
        "POST", CALLBACK, {"type": 8, "data": {"choices": [{"name": "Roryn", "value": "Roryn"}]}},
        id="autocomplete",
    ),
    pytest.param("POST", CALLBACK, {"type": 9, "data": MODAL}, id="modal"),
    pytest.param(
        "POST", FOLLOWUP, {**MESSAGE, "attachments": [{"id": 0, "filename": "odds.png"}]},
        id="followup-with-a-file",  # discord.py's integer attachment id, read as a string
    ),
    pytest.param("PATCH", ORIGINAL, MESSAGE, id="edit-original"),
    pytest.param("PATCH", EDIT, {"content": "edited", "embeds": []}, id="edit-followup"),
    pytest.param("DELETE", ORIGINAL, None, id="delete-original"),
    pytest.param("DELETE", EDIT, None, id="delete-followup"),
    pytest.param("POST", CHANNEL, MESSAGE, id="channel-message"),
    pytest.param("PATCH", CHANNEL_EDIT, {"embeds": [EMBED], "components": []}, id="channel-edit"),
    pytest.param("PUT", COMMANDS, [COMMAND], id="sync"),
    pytest.param("PUT", GUILD_COMMANDS, [COMMAND], id="sync-to-a-guild"),
    pytest.param("GET", EMOJIS, None, id="list-emoji"),
    pytest.param(
        "POST", EMOJIS, {"name": "face_c", "image": "data:image/png;base64,iVBORw0KGgo="},
        id="upload-emoji",
    ),
]  # fmt: skip

BAD = [
    pytest.param(
        "POST", CALLBACK, {"type": 4, "data": {**MESSAGE, "embeds": "not a list"}},
        "data.embeds: Invalid input: expected array", id="embeds-not-a-list",
    ),
    pytest.param(
        "POST", CALLBACK, {"type": 4, "data": {**MESSAGE, "embeds": [EMBED] * 11}},
        "data.embeds: Too big", id="eleven-embeds",
    ),
    pytest.param(
        "POST", FOLLOWUP, {**MESSAGE, "content": "x" * 2001}, "content: Too big",
        id="2001-characters",
    ),
    pytest.param(
        "PATCH", ORIGINAL, {"embeds": [{**EMBED, "title": "x" * 257}]}, "embeds.0.title: Too big",
        id="long-embed-title",
    ),
    pytest.param(
        "PUT", "/guilds/{guild_id}/bans/{user_id}", {}, "is not a route",
        id="unknown-route",  # a route of Discord's, not one the bot uses
    ),
    pytest.param(
        "GET", CHANNEL_EDIT, None, "is not a route", id="unknown-route-without-a-body",
    ),
    pytest.param("DELETE", ORIGINAL, {"content": "x"}, "takes no body", id="body-on-delete"),
    pytest.param("POST", CALLBACK, None, "(body): Invalid input", id="no-body"),
    pytest.param(
        "POST", CALLBACK, {"type": 99}, "type: expected one of", id="unknown-callback-type",
    ),
    pytest.param(
        "POST", CALLBACK,
        {"type": 4, "data": {"components": [{"type": 1, "components": [{"type": 2, "style": 9}]}]}},
        "data.components.0.components.0.style", id="unknown-button-style",
    ),
    pytest.param(
        "POST", FOLLOWUP, {"attachments": [{"id": "first"}]}, "attachments.0.id",
        id="attachment-id-not-a-snowflake",
    ),
    pytest.param("PUT", COMMANDS, [COMMAND] * 131, "Too big", id="131-commands"),
    pytest.param("PUT", COMMANDS, COMMAND, "expected array", id="commands-not-a-list"),
    pytest.param("POST", EMOJIS, {"name": "c", "image": ""}, "name: Too small", id="emoji-name"),
]  # fmt: skip


class Sent:
    """A captured request, as bot.offline.Request has it (without importing the bot)."""

    def __init__(self, method: str, path: str, payload: Any) -> None:
        self.method, self.path, self.payload = method, path, payload


# --- which description --------------------------------------------------------------------------


@pytest.fixture
def no_openapi(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DISCORD_SPEC_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(discord_spec, "SHARED_COPY", tmp_path / "shared" / "openapi.json")


def test_the_npm_package_comes_first(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    found = discord_spec.NpmFound(tmp_path, "cached")
    monkeypatch.setattr(discord_spec, "npm_package", lambda: found)
    validator = load_validator()
    assert isinstance(validator, ZodValidator) and validator.root == tmp_path
    assert not validator.running  # node starts at the first check, not before


def test_without_npm_the_openapi_file_with_the_reason(
    monkeypatch: pytest.MonkeyPatch, no_openapi: None
) -> None:
    monkeypatch.setattr(discord_spec, "node_tools", lambda: None)
    stand_in = {"openapi": "3.1.0", "paths": {}, "components": {}}
    monkeypatch.setattr(discord_spec, "find", lambda: discord_spec.Found(stand_in, "here"))
    validator = load_validator()
    assert isinstance(validator, SpecValidator)
    assert "here" in validator.source and "not both on PATH" in validator.source


def test_neither_validates_nothing_and_says_why(
    monkeypatch: pytest.MonkeyPatch, no_openapi: None
) -> None:
    monkeypatch.setattr(discord_spec, "node_tools", lambda: None)
    validator = load_validator()
    assert isinstance(validator, NoSpec)
    assert "not both on PATH" in validator.reason and "openapi.json" in validator.reason
    validator.check(Sent("POST", CALLBACK, {"type": 99}))  # passes: nothing to check against


# --- the Zod validator ----------------------------------------------------------------------------


@pytest.fixture(scope="session")
def zod(spec_validator: Validator) -> ZodValidator:
    """The session's validator, which is the Zod one wherever npm and node are."""
    if discord_spec.node_tools() is None:
        pytest.skip(f"npm and node are not on PATH; bodies validated by {spec_validator.source}")
    if not isinstance(spec_validator, ZodValidator):
        pytest.fail(f"npm and node are here, the Zod schemas are not: {spec_validator.source}")
    return spec_validator


@pytest.mark.parametrize(("method", "path", "body"), GOOD)
def test_a_body_discord_takes_passes(zod: ZodValidator, method: str, path: str, body: Any) -> None:
    zod.check(Sent(method, path, body))


@pytest.mark.parametrize(("method", "path", "body", "said"), BAD)
def test_a_body_discord_refuses_fails(
    zod: ZodValidator, method: str, path: str, body: Any, said: str
) -> None:
    with pytest.raises(AssertionError, match="body breaks the spec") as refused:
        zod.check(Sent(method, path, body))
    assert said in str(refused.value)


def test_the_checked_body_is_not_changed(zod: ZodValidator) -> None:
    body = {"content": "x", "attachments": [{"id": 0, "filename": "a.png"}]}
    zod.check(Sent("POST", FOLLOWUP, body))
    assert body["attachments"][0]["id"] == 0


def test_the_route_table_names_the_packages_own_request_bodies(zod: ZodValidator) -> None:
    """The request body of each route, as the package types it (`Paths` in its .ts build), is
    the schema the table uses: a moved pin that renames or changes one fails here."""
    listed = subprocess.run(
        ["node", str(SCRIPT), str(zod.root), "--routes"],
        capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    typed = request_bodies(zod.root / "node_modules/discord-api-spec/build/discord-api-spec.ts")
    table = json.loads(listed.stdout)
    assert len(table) == 13
    for route, names in table.items():
        method, path = route.split(" ")
        assert typed[path][method.lower()] == names, route


def request_bodies(typescript: Path) -> dict[str, dict[str, str]]:
    """`requestBody` of every route and method of the package's `interface Paths`, as text."""
    text = typescript.read_text()
    paths = text[text.index("export interface Paths {") :]
    found: dict[str, dict[str, str]] = {}
    for block in re.split(r'\n  (?="/)', paths)[1:]:
        path = block[1 : block.index('"', 1)]
        for method, body in re.findall(
            r"\n    (\w+): \{.*?requestBody\?:\s*(.*?);\s*responses:", block, re.S
        ):
            found.setdefault(path, {})[method] = " ".join(body.split()).lstrip("| ")
    return found


def test_one_process_started_at_the_first_check_and_ended_by_close(zod: ZodValidator) -> None:
    validator = ZodValidator(zod.root)
    assert not validator.running
    try:
        validator.check(Sent("DELETE", ORIGINAL, None))
        assert validator.running
        assert validator.versions == {
            "discord-api-spec": discord_spec.NPM_VERSION,
            "zod": discord_spec.NPM_TARBALLS[1].version,
        }
    finally:
        validator.close()
    assert not validator.running


def test_a_node_that_cannot_start_fails_the_check_with_its_reason(tmp_path: Path) -> None:
    if discord_spec.node_tools() is None:
        pytest.skip("npm and node are not on PATH")
    validator = ZodValidator(tmp_path)  # no node_modules there
    try:
        with pytest.raises(
            AssertionError, match=r"(?s)spec_validator\.mjs \(node\) ended: .*ENOENT"
        ):
            validator.check(Sent("DELETE", ORIGINAL, None))
    finally:
        validator.close()
