"""Discord's OpenAPI description, for the tests that validate the bodies the bot sends.

The tests validate against one pinned file: `specs/openapi.json` of the public repository
discord/discord-api-spec at commit 74fda0f (2026-07-18, Discord build 242668), MIT-licensed by
Discord, checked by its SHA-256 below wherever it is read from. `find()` looks, in order:

1. in the cache, `$DISCORD_SPEC_CACHE/<PIN>/openapi.json` (default folder:
   `${XDG_CACHE_HOME:-~/.cache}/last-gasp/discord-api-spec`);
2. for the copy laid beside the repository, `<repo>/../shared/discord-api-spec/openapi.json`;
   once checked it is copied into the cache, so a clone elsewhere on this machine finds it too.

Neither found, or a file whose checksum is not the pin's: `find()` says why, and the conftests
validate nothing and skip the tests about validation itself, giving that reason.

No package registry ships this file. The npm package `discord-api-spec` is a third party's
build (RiskyMH/discord-api-spec-ts) of TypeScript types and Zod schemas generated from it, with
no openapi.json inside, so it cannot be a source.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

PIN = "74fda0f"  # the discord/discord-api-spec commit the tests validate against
PINNED_SHA256 = "8c1d0707ccdf8e380a86dfba04058820a66435c1b69d5ed82e04dd8c0520dd73"
FILE_NAME = "openapi.json"

SHARED_COPY = Path(__file__).resolve().parents[1].parent / "shared" / "discord-api-spec" / FILE_NAME


@dataclass(frozen=True)
class Found:
    """The description and where it came from, or `spec` None and why not."""

    spec: dict | None
    detail: str


class ChecksumMismatch(Exception):
    """A file that is not the pinned description (a partial copy, or another version)."""


def cache_dir() -> Path:
    """The folder that holds `<PIN>/openapi.json`."""
    if override := os.environ.get("DISCORD_SPEC_CACHE"):
        return Path(override).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(xdg) / "last-gasp" / "discord-api-spec"


def cached_path() -> Path:
    return cache_dir() / PIN / FILE_NAME


def verified(path: Path) -> bytes:
    """The file's bytes, only if they are the pinned description."""
    data = path.read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    if digest != PINNED_SHA256:
        raise ChecksumMismatch(
            f"{path} has SHA-256 {digest}, not the pinned {PINNED_SHA256} (commit {PIN}): "
            "refused (a partial copy, or another version: to move the pin, change "
            "PIN and PINNED_SHA256 in tests/discord_spec.py)"
        )
    return data


def store(data: bytes, target: Path) -> None:
    """Write through a temporary file and an atomic rename: a process reading at the same time,
    or another one storing the same bytes, never sees half a file."""
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".part")
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
            os.fchmod(out.fileno(), 0o644)  # mkstemp's 0600 would hide it from other users
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _from_cache() -> tuple[bytes | None, str]:
    path = cached_path()
    if not path.exists():
        return None, f"not in the cache ({path})"
    try:
        return verified(path), str(path)
    except ChecksumMismatch as refused:
        return None, str(refused)


def _from_shared_copy() -> tuple[bytes | None, str]:
    if not SHARED_COPY.exists():
        return None, f"no copy beside the repository ({SHARED_COPY})"
    try:
        data = verified(SHARED_COPY)
    except ChecksumMismatch as refused:
        return None, str(refused)
    with contextlib.suppress(OSError):  # an unwritable cache only costs other clones the copy
        store(data, cached_path())
    return data, str(SHARED_COPY)


def find() -> Found:
    """The pinned description from the first source that has it, or the reasons none did."""
    reasons = []
    for source in (_from_cache, _from_shared_copy):
        data, detail = source()
        if data is not None:
            return Found(json.loads(data), detail)
        reasons.append(detail)
    return Found(None, "Discord's OpenAPI description is absent: " + "; ".join(reasons))
