"""axe-core (Deque's accessibility engine, MPL-2.0) for the browser tests: the pinned npm package,
packed by `npm pack`, checked by its SHA-256 and cached once per machine, exactly as
tests/discord_spec.py packs Discord's API description (its functions do the packing):
`<cache>/axe-core/<version>/node_modules/axe-core/axe.min.js`, the cache folder being
tests/discord_spec.py's (DISCORD_SPEC_CACHE moves it)."""

from __future__ import annotations

import tarfile
from dataclasses import dataclass
from pathlib import Path

from tests import discord_spec as spec

AXE = spec.Tarball(
    "axe-core", "4.14.1", "e6b0ce02b84d892e2e33e403485e7f3d6c29e2be6df65daf44d89ba564139745"
)
SCRIPT = "node_modules/axe-core/axe.min.js"


@dataclass(frozen=True)
class AxeFound:
    """The engine's source, or `source` None and why not."""

    source: str | None
    detail: str


def axe_dir() -> Path:
    return spec.cache_dir().parent / "axe-core" / AXE.version


def axe_source() -> AxeFound:
    tools = spec.node_tools()
    root = axe_dir()
    script = root / SCRIPT
    if script.is_file():
        return AxeFound(script.read_text(encoding="utf-8"), str(script))
    if tools is None:
        return AxeFound(None, f"npm and node are not both on PATH, so {AXE.spec} cannot be packed")
    try:
        spec.install(root, tools[0], (AXE,))
    except (spec.NpmError, spec.ChecksumMismatch, OSError, tarfile.TarError) as failed:
        if script.is_file():  # another session's finished copy
            return AxeFound(script.read_text(encoding="utf-8"), str(script))
        return AxeFound(None, f"{AXE.spec} could not be cached in {root}: {failed}")
    return AxeFound(script.read_text(encoding="utf-8"), f"{script} (fetched now)")
