"""The check of every request body the bot sends against Discord's API description.

`load_validator()` picks, in order (the sources are tests/discord_spec.py's):

1. `ZodValidator`: the Zod schemas of the npm package `discord-api-spec`, when `npm` and `node`
   are on PATH and the pinned package is cached or can be fetched; one Node process
   (tests/spec_validator.mjs) per test session answers every check;
2. `SpecValidator`: the pinned openapi.json, from the cache or the copy beside the repository;
3. `NoSpec`: neither; bodies go unvalidated and the tests about validation skip, saying why.

Each has `check(request)`, raising AssertionError ("... body breaks the spec: ...") for a body
Discord would refuse, and `source`, where its description came from. Nothing here imports the
bot: a request is anything with `method`, `path` (discord.py's route template) and `payload`.
"""

from __future__ import annotations

import copy
import json
import os
import re
import select
import subprocess
import tempfile
import threading
import time
import weakref
from pathlib import Path
from typing import IO, Any, Protocol

from tests import discord_spec

SCRIPT = Path(__file__).with_name("spec_validator.mjs")
START_TIMEOUT = 30.0  # seconds for node to load the schemas
CHECK_TIMEOUT = 30.0  # seconds for one answer: a wedged process fails the test, never hangs it


class CapturedRequest(Protocol):
    """What bot.offline.Request has that a check needs."""

    method: str
    path: str
    payload: Any


def _string_attachment_ids(payload: Any) -> Any:
    """discord.py numbers the files it uploads `"id": 0, 1, …`, integers that Discord accepts
    but its description types as snowflake strings (both the OpenAPI file and the Zod schemas):
    validated as strings."""
    data = payload.get("data", payload) if isinstance(payload, dict) else None
    if not isinstance(data, dict) or not data.get("attachments"):
        return payload
    payload = copy.deepcopy(payload)
    for attachment in payload.get("data", payload)["attachments"]:
        if "id" in attachment:
            attachment["id"] = str(attachment["id"])
    return payload


_UTC_OFFSET = "+00:00"


def _utc_as_z(payload: Any) -> Any:
    """discord.py writes an embed's timestamp with `isoformat()` (`…+00:00`), an RFC 3339 time
    that Discord accepts and the OpenAPI description's `date-time` allows, but that the
    generated Zod schemas (`z.iso.datetime()`, Z only) refuse: validated as the same instant
    written with Z."""
    data = payload.get("data", payload) if isinstance(payload, dict) else None
    embeds = data.get("embeds") if isinstance(data, dict) else None
    if not isinstance(embeds, list) or not any(
        isinstance(e, dict) and str(e.get("timestamp", "")).endswith(_UTC_OFFSET) for e in embeds
    ):
        return payload
    payload = copy.deepcopy(payload)
    for embed in payload.get("data", payload)["embeds"]:
        stamp = embed.get("timestamp")
        if isinstance(stamp, str) and stamp.endswith(_UTC_OFFSET):
            embed["timestamp"] = stamp.removesuffix(_UTC_OFFSET) + "Z"
    return payload


def _refusal(request: CapturedRequest, errors: list[str]) -> AssertionError:
    detail = "; ".join(error[:300] for error in errors[:5])
    return AssertionError(f"{request.method} {request.path} body breaks the spec: {detail}")


# --- 1. the npm package's Zod schemas, through one Node process ----------------------------------


class ZodValidator:
    """Validates request bodies with tests/spec_validator.mjs, started at the first check and
    kept for the session: one JSON line out, one back, per request."""

    def __init__(self, root: Path, source: str | None = None) -> None:
        self.root = root
        self.source = f"Zod schemas of the npm package, {source or root}"
        self._lock = threading.Lock()  # one question at a time on the one pipe
        self._process: subprocess.Popen[bytes] | None = None
        self._stderr: IO[bytes] | None = None
        self._buffer = b""
        self.versions: dict[str, str] = {}

    def check(self, request: CapturedRequest) -> None:
        """Every request, with or without a body: a route the table lacks is an error too."""
        question = {
            "method": request.method,
            "path": request.path,
            "body": _utc_as_z(_string_attachment_ids(request.payload)),
        }
        answer = self.ask(question)
        if not answer.get("ok"):
            raise _refusal(request, answer.get("errors") or [repr(answer)])

    def ask(self, question: dict) -> dict:
        line = json.dumps(question, separators=(",", ":")).encode() + b"\n"
        with self._lock:
            process = self._running()
            try:
                assert process.stdin is not None
                process.stdin.write(line)
                process.stdin.flush()
            except OSError as lost:
                raise self._failure(f"could not be asked ({lost})") from None
            return json.loads(self._read_line(CHECK_TIMEOUT))

    def close(self) -> None:
        """End the Node process (it also ends by itself when its stdin closes)."""
        with self._lock:
            process, self._process = self._process, None
            if process is not None:
                _stop(process)
            if self._stderr is not None:
                self._stderr.close()
                self._stderr = None
            self._buffer = b""

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def _running(self) -> subprocess.Popen[bytes]:
        if self._process is not None and self._process.poll() is None:
            return self._process
        if self._process is not None:
            raise self._failure("stopped")
        node = discord_spec.node_tools()
        if node is None:
            raise AssertionError("node is no longer on PATH: the Zod validator cannot start")
        # a file, not a pipe, so it never fills up; closed by close()
        self._stderr = tempfile.TemporaryFile()  # noqa: SIM115
        self._process = subprocess.Popen(
            [node[1], str(SCRIPT), str(self.root)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            bufsize=0,
        )
        weakref.finalize(self, _stop, self._process)  # a validator dropped unclosed
        ready = json.loads(self._read_line(START_TIMEOUT))
        if not ready.get("ready"):
            raise self._failure(f"did not start: {ready!r}")
        self.versions = {k: v for k, v in ready.items() if k != "ready"}
        return self._process

    def _read_line(self, timeout: float) -> bytes:
        """One line from node, within `timeout`: select on the pipe, no reader thread."""
        assert self._process is not None and self._process.stdout is not None
        out = self._process.stdout.fileno()
        deadline = time.monotonic() + timeout
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([out], [], [], left)[0]:
                raise self._failure(f"gave no answer in {timeout:g} s")
            chunk = os.read(out, 1 << 16)
            if not chunk:
                raise self._failure("ended")
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line

    def _failure(self, what: str) -> AssertionError:
        said = ""
        if self._stderr is not None:
            self._stderr.seek(0)
            said = self._stderr.read().decode(errors="replace").strip()[-1500:]
        return AssertionError(f"{SCRIPT.name} (node) {what}" + (f": {said}" if said else ""))


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is not None:
        return
    try:
        if process.stdin is not None:
            process.stdin.close()  # node's loop ends at end of input
        process.wait(timeout=5)
    except (OSError, subprocess.TimeoutExpired):
        process.kill()
        process.wait()


# --- 2. Discord's openapi.json, with jsonschema --------------------------------------------------


class SpecValidator:
    """Validates captured request bodies against Discord's OpenAPI description."""

    def __init__(self, spec: dict, source: str = "openapi.json") -> None:
        import jsonschema

        self.source = f"Discord's OpenAPI description, {source}"
        self._spec = spec
        self._jsonschema = jsonschema
        self._paths = {_shape(p): p for p in spec["paths"]}
        self._validators: dict[tuple[str, str], Any] = {}

    def validator(self, path: str, method: str) -> Any:
        spec_path = self._paths.get(_shape(path))
        if spec_path is None:
            raise AssertionError(f"{method} {path} is not in Discord's API description")
        key = (spec_path, method.lower())
        if key not in self._validators:
            operation = self._spec["paths"][spec_path][method.lower()]
            schema = operation["requestBody"]["content"]["application/json"]["schema"]
            self._validators[key] = self._jsonschema.Draft202012Validator(
                {"components": self._spec["components"], **schema}
            )
        return self._validators[key]

    def check(self, request: CapturedRequest) -> None:
        if request.payload is None:
            return
        validator = self.validator(request.path, request.method)
        payload = _string_attachment_ids(request.payload)
        errors = sorted(validator.iter_errors(payload), key=lambda e: list(e.path))
        if errors:
            raise _refusal(request, [f"{list(e.path)}: {e.message}" for e in errors])

    def close(self) -> None:
        pass


def _shape(path: str) -> str:
    """`/interactions/{webhook_id}/{webhook_token}/callback` and the spec's own parameter names
    compare equal."""
    return re.sub(r"\{[^}]+\}", "{}", path)


# --- 3. none --------------------------------------------------------------------------------------


class NoSpec:
    """Stands in when no description is found: the bot tests still run, unvalidated, and the
    tests about validation itself skip with `reason`."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        self.source = f"nothing: bodies are not validated ({reason})"

    def check(self, request: CapturedRequest) -> None:
        pass

    def close(self) -> None:
        pass


Validator = ZodValidator | SpecValidator | NoSpec


def load_validator() -> Validator:
    """The first description found: the npm package's Zod schemas, the openapi.json, none."""
    npm = discord_spec.npm_package()
    if npm.root is not None:
        return ZodValidator(npm.root, npm.detail)
    found = discord_spec.find()
    if found.spec is not None:
        return SpecValidator(found.spec, f"{found.detail} (no Zod schemas: {npm.detail})")
    return NoSpec(f"{npm.detail}; and {found.detail}")
