"""Discord's API description, for the tests that validate the bodies the bot sends.

Two sources, tried in this order by tests/spec_validation.py's `load_validator()`:

**The npm package `discord-api-spec`** (RiskyMH/discord-api-spec-ts, MIT: TypeScript types and
Zod schemas generated daily from Discord's OpenAPI description), when `npm` and `node` are on
PATH. `npm_package()` runs `npm pack` for the pinned version of it and of `zod` (its one
dependency, a peer `zod@^4`), checks each tarball's SHA-256 against the pins below, and unpacks
both once per machine into `<cache>/npm/<NPM_VERSION>/node_modules/` (cache folder: see
`cache_dir()`), built beside it and renamed into place, so a reader never sees half of it. The
registry unreachable: a clear reason within NPM_TIMEOUT seconds, never a hang, and the next
source is tried. tests/spec_validator.mjs validates against it.

**Discord's `openapi.json`**: one pinned file, `specs/openapi.json` of the public repository
discord/discord-api-spec at commit 74fda0f (2026-07-18, Discord build 242668), MIT-licensed by
Discord, checked by its SHA-256 below wherever it is read from. `find()` looks, in order:

1. in the cache, `$DISCORD_SPEC_CACHE/<PIN>/openapi.json` (default folder:
   `${XDG_CACHE_HOME:-~/.cache}/last-gasp/discord-api-spec`);
2. for the copy laid beside the repository, `<repo>/../shared/discord-api-spec/openapi.json`;
   once checked it is copied into the cache, so a clone elsewhere on this machine finds it too.

No registry ships openapi.json itself (the npm package has none inside). Neither source found,
or a file whose checksum is not the pin's: the reasons are given, and the conftests validate
nothing and skip the tests about validation itself, giving them.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import shutil
import subprocess
import tarfile
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


# --- the npm package: Zod schemas generated from the same description ---------------------------


@dataclass(frozen=True)
class Tarball:
    """One pinned npm package: what `npm pack` must give, byte for byte."""

    name: str
    version: str
    sha256: str

    @property
    def spec(self) -> str:
        return f"{self.name}@{self.version}"


NPM_VERSION = "10.0.266135"  # Discord build 266135 (to move: both pins, and run the tests)
NPM_TARBALLS = (
    Tarball(
        "discord-api-spec",
        NPM_VERSION,
        "baf53a3b581ec1156cdf4f34baf5387ca2a0bec3e7d35bab860db9bee4a1b19c",
    ),
    # its peer dependency (`zod@^4`, no dependencies of its own, no install scripts)
    Tarball("zod", "4.6.7", "84efd155bed93270286e793fc951be270b536cbd5b0eeb111f0fa3967201d698"),
)
ZOD_SCHEMAS = "node_modules/discord-api-spec/build/discord-api-spec.zod.js"
NPM_TIMEOUT = 60.0  # seconds for one `npm pack`: an unreachable registry fails, never hangs
# npm's own limits inside NPM_TIMEOUT: one retry, a stalled connection given up after 20 s
NPM_OPTIONS = (
    "--ignore-scripts",
    "--fetch-timeout=20000",
    "--fetch-retries=1",
    "--fetch-retry-mintimeout=1000",
    "--fetch-retry-maxtimeout=5000",
    "--loglevel=error",
    "--no-audit",
    "--no-fund",
)


@dataclass(frozen=True)
class NpmFound:
    """The folder holding `node_modules/{discord-api-spec,zod}`, or `root` None and why not."""

    root: Path | None
    detail: str


class NpmError(Exception):
    """npm could not give a pinned package (absent, registry unreachable, other bytes)."""


def npm_dir() -> Path:
    """`<cache>/npm/<NPM_VERSION>`: beside the openapi.json pins, moved by the same variable."""
    return cache_dir() / "npm" / NPM_VERSION


def node_tools() -> tuple[str, str] | None:
    """The paths of `npm` and `node`, or None when either is missing."""
    npm, node = shutil.which("npm"), shutil.which("node")
    return (npm, node) if npm and node else None


def is_complete(root: Path) -> bool:
    """Built elsewhere and renamed into place, a folder that exists is whole: this only tells it
    from a stray folder of another kind."""
    return (root / ZOD_SCHEMAS).is_file() and (root / "node_modules/zod/package.json").is_file()


def npm_pack(tarball: Tarball, npm: str, into: Path) -> bytes:
    """`npm pack NAME@VERSION` into `into`: the tarball's bytes, or NpmError saying why not."""
    command = [npm, "pack", tarball.spec, "--json", "--pack-destination", str(into), *NPM_OPTIONS]
    env = {**os.environ, "NPM_CONFIG_UPDATE_NOTIFIER": "false"}
    try:
        done = subprocess.run(
            command, cwd=into, env=env, capture_output=True, text=True, timeout=NPM_TIMEOUT
        )
    except subprocess.TimeoutExpired:
        raise NpmError(
            f"`npm pack {tarball.spec}` gave no answer in {NPM_TIMEOUT:g} s "
            "(is the npm registry reachable?)"
        ) from None
    if done.returncode != 0:
        raise NpmError(f"`npm pack {tarball.spec}` failed: {_npm_said(done)}")
    try:
        filename = json.loads(done.stdout)[0]["filename"]
    except (ValueError, LookupError, TypeError):
        raise NpmError(
            f"`npm pack {tarball.spec}` printed no tarball: {done.stdout[-300:]}"
        ) from None
    return (into / filename).read_bytes()


def _npm_said(done: subprocess.CompletedProcess[str]) -> str:
    """npm's reason in one line: the `--json` error's summary, else its first error lines."""
    with contextlib.suppress(ValueError, LookupError, TypeError):
        error = json.loads(done.stdout)["error"]
        return f"{error['code']}: {error['summary']}"
    lines = [line for line in done.stderr.splitlines() if not line.startswith("npm error    ")]
    return " ".join(" ".join(lines).split())[:400] or f"exit status {done.returncode}"


def verified_tarball(tarball: Tarball, data: bytes) -> bytes:
    digest = hashlib.sha256(data).hexdigest()
    if digest != tarball.sha256:
        raise ChecksumMismatch(
            f"npm gave {tarball.spec} with SHA-256 {digest}, not the pinned {tarball.sha256}: "
            "refused (to move the pin, change NPM_TARBALLS in tests/discord_spec.py)"
        )
    return data


def unpack(data: bytes, target: Path) -> None:
    """An npm tarball (everything under `package/`) as the folder `target`."""
    with tempfile.TemporaryDirectory(dir=target.parent) as scratch:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as archive:
            archive.extractall(scratch, filter="data")  # no links out, no absolute paths
        os.rename(Path(scratch) / "package", target)


def install(root: Path, npm: str, tarballs: tuple[Tarball, ...]) -> None:
    """Every pinned tarball, checked, unpacked into a hidden folder beside `root` and renamed to
    it: other sessions see all of it or nothing, and one that loses the race keeps the winner's."""
    root.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=root.parent, prefix=f".{root.name}.") as work:
        staging = Path(work) / "tree"
        (staging / "node_modules").mkdir(parents=True)
        for tarball in tarballs:
            data = verified_tarball(tarball, npm_pack(tarball, npm, Path(work)))
            unpack(data, staging / "node_modules" / tarball.name)
        pins = {t.name: {"version": t.version, "sha256": t.sha256} for t in tarballs}
        (staging / "pins.json").write_text(json.dumps(pins, indent=2) + "\n")
        try:
            os.rename(staging, root)
        except OSError:
            if not is_complete(root):  # not another session's finished copy: a real failure
                raise


def npm_package() -> NpmFound:
    """The pinned package with zod, from the cache or fetched into it now, or why not."""
    tools = node_tools()
    if tools is None:
        return NpmFound(
            None,
            "npm and node are not both on PATH, so the Zod schemas of the npm "
            f"package {NPM_TARBALLS[0].spec} cannot be fetched",
        )
    root = npm_dir()
    if is_complete(root):
        return NpmFound(root, str(root))
    try:
        install(root, tools[0], NPM_TARBALLS)
    except (NpmError, ChecksumMismatch, OSError, tarfile.TarError) as failed:
        return NpmFound(None, f"the npm package could not be cached in {root}: {failed}")
    return NpmFound(root, f"{root} (fetched now)")
