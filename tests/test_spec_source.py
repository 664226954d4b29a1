"""Where the tests find Discord's API description (tests/discord_spec.py): the openapi.json on a
small stand-in file pinned for each test, the npm package on stand-in tarballs, so these run with
or without the real ones; and, when npm is here, how npm failing is reported."""

from __future__ import annotations

import hashlib
import io
import json
import os
import socket
import tarfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests import discord_spec

STAND_IN = json.dumps({"openapi": "3.1.0", "paths": {}, "components": {}}).encode()


@pytest.fixture
def places(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """A pinned stand-in, an empty cache and no shared copy yet: (shared copy, cache folder)."""
    shared = tmp_path / "shared" / "openapi.json"
    cache = tmp_path / "cache"
    monkeypatch.setattr(discord_spec, "PINNED_SHA256", hashlib.sha256(STAND_IN).hexdigest())
    monkeypatch.setattr(discord_spec, "SHARED_COPY", shared)
    monkeypatch.setenv("DISCORD_SPEC_CACHE", str(cache))
    return shared, cache


def test_the_cache_folder_follows_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DISCORD_SPEC_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", "/somewhere")
    assert discord_spec.cached_path() == Path(
        "/somewhere/last-gasp/discord-api-spec", discord_spec.PIN, "openapi.json"
    )
    monkeypatch.setenv("DISCORD_SPEC_CACHE", "/elsewhere")
    assert discord_spec.cached_path() == Path("/elsewhere", discord_spec.PIN, "openapi.json")


def test_absent_everywhere_says_where_it_looked(places: tuple[Path, Path]) -> None:
    shared, cache = places
    found = discord_spec.find()
    assert found.spec is None
    assert str(cache) in found.detail and str(shared) in found.detail


def test_the_shared_copy_is_used_and_cached(places: tuple[Path, Path]) -> None:
    shared, _ = places
    shared.parent.mkdir()
    shared.write_bytes(STAND_IN)
    found = discord_spec.find()
    assert found.spec == json.loads(STAND_IN) and found.detail == str(shared)
    assert discord_spec.cached_path().read_bytes() == STAND_IN

    shared.unlink()  # a clone with no copy beside it still finds the cached one
    found = discord_spec.find()
    assert found.spec == json.loads(STAND_IN)
    assert found.detail == str(discord_spec.cached_path())


def test_a_partial_file_is_refused(places: tuple[Path, Path]) -> None:
    shared, _ = places
    shared.parent.mkdir()
    shared.write_bytes(STAND_IN[:-5])
    found = discord_spec.find()
    assert found.spec is None
    assert "not the pinned" in found.detail and "refused" in found.detail
    assert not discord_spec.cached_path().exists()


def test_a_corrupt_cache_is_replaced_by_a_good_copy(places: tuple[Path, Path]) -> None:
    shared, _ = places
    discord_spec.store(b'{"trunc', discord_spec.cached_path())
    shared.parent.mkdir()
    shared.write_bytes(STAND_IN)
    assert discord_spec.find().detail == str(shared)
    assert discord_spec.cached_path().read_bytes() == STAND_IN


def test_store_leaves_no_temporary_file(tmp_path: Path) -> None:
    target = tmp_path / "a" / "openapi.json"
    discord_spec.store(b"one", target)
    discord_spec.store(b"two", target)  # a second writer replaces it whole
    assert target.read_bytes() == b"two"
    assert [p.name for p in target.parent.iterdir()] == ["openapi.json"]


# --- the npm package -----------------------------------------------------------------------------


def npm_tarball(files: dict[str, str]) -> bytes:
    """A tarball laid out as npm packs one: every file under `package/`."""
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as archive:
        for name, text in files.items():
            data = text.encode()
            member = tarfile.TarInfo(f"package/{name}")
            member.size = len(data)
            archive.addfile(member, io.BytesIO(data))
    return out.getvalue()


STAND_IN_TARBALLS = {
    "discord-api-spec": npm_tarball(
        {"package.json": "{}", "build/discord-api-spec.zod.js": "export {};"}
    ),
    "zod": npm_tarball({"package.json": "{}"}),
}


@pytest.fixture
def stand_in_npm(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """npm "present", packing the stand-in tarballs pinned for the test: the specs it packed."""
    packed: list[str] = []

    def pack(tarball: discord_spec.Tarball, npm: str, into: Path) -> bytes:
        packed.append(tarball.spec)
        return STAND_IN_TARBALLS[tarball.name]

    pins = tuple(
        discord_spec.Tarball(name, "1.0.0", hashlib.sha256(data).hexdigest())
        for name, data in STAND_IN_TARBALLS.items()
    )
    monkeypatch.setenv("DISCORD_SPEC_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(discord_spec, "node_tools", lambda: ("npm", "node"))
    monkeypatch.setattr(discord_spec, "npm_pack", pack)
    monkeypatch.setattr(discord_spec, "NPM_TARBALLS", pins)
    return packed


def test_the_npm_package_is_cached_beside_the_openapi_pins(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DISCORD_SPEC_CACHE", "/elsewhere")
    assert discord_spec.npm_dir() == Path("/elsewhere/npm", discord_spec.NPM_VERSION)


def test_the_pins_are_exact() -> None:
    for tarball in discord_spec.NPM_TARBALLS:
        assert all(part.isdigit() for part in tarball.version.split(".")), tarball
        assert len(tarball.sha256) == 64 and int(tarball.sha256, 16) >= 0, tarball
    assert [t.name for t in discord_spec.NPM_TARBALLS] == ["discord-api-spec", "zod"]


def test_without_npm_or_node_it_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(discord_spec, "node_tools", lambda: None)
    found = discord_spec.npm_package()
    assert found.root is None and "not both on PATH" in found.detail


def test_fetched_once_then_read_from_the_cache(stand_in_npm: list[str]) -> None:
    found = discord_spec.npm_package()
    assert found.root == discord_spec.npm_dir() and "fetched now" in found.detail
    assert stand_in_npm == ["discord-api-spec@1.0.0", "zod@1.0.0"]
    assert (found.root / discord_spec.ZOD_SCHEMAS).read_text() == "export {};"
    pins = json.loads((found.root / "pins.json").read_text())
    assert pins["zod"]["sha256"] == hashlib.sha256(STAND_IN_TARBALLS["zod"]).hexdigest()

    again = discord_spec.npm_package()
    assert again == discord_spec.NpmFound(found.root, str(found.root))
    assert len(stand_in_npm) == 2  # npm not run again
    assert sorted(p.name for p in found.root.parent.iterdir()) == [discord_spec.NPM_VERSION]


def test_a_tarball_with_other_bytes_is_refused(
    stand_in_npm: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = discord_spec.NPM_TARBALLS[0]
    monkeypatch.setattr(
        discord_spec, "NPM_TARBALLS", (spec, discord_spec.Tarball("zod", "1.0.0", "0" * 64))
    )
    found = discord_spec.npm_package()
    assert found.root is None
    assert "zod@1.0.0 with SHA-256" in found.detail and "refused" in found.detail
    assert list(discord_spec.npm_dir().parent.iterdir()) == []  # nothing half-made left


def test_sessions_fetching_at_once_share_one_copy(
    stand_in_npm: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    both_packing = threading.Barrier(2)
    pack = discord_spec.npm_pack

    def slow_pack(tarball: discord_spec.Tarball, npm: str, into: Path) -> bytes:
        if tarball.name == "zod":
            both_packing.wait(timeout=10)  # both builds under way before either is renamed
        return pack(tarball, npm, into)

    monkeypatch.setattr(discord_spec, "npm_pack", slow_pack)
    found: list[discord_spec.NpmFound] = []
    threads = [
        threading.Thread(target=lambda: found.append(discord_spec.npm_package())) for _ in range(2)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert [f.root for f in found] == [discord_spec.npm_dir()] * 2
    assert discord_spec.is_complete(discord_spec.npm_dir())
    assert [p.name for p in discord_spec.npm_dir().parent.iterdir()] == [discord_spec.NPM_VERSION]


# --- real npm, pointed at a registry that is not there (skipped without npm) --------------------


@pytest.fixture
def npm(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    tools = discord_spec.node_tools()
    if tools is None:
        pytest.skip("npm and node are not on PATH")
    monkeypatch.setenv("npm_config_cache", str(tmp_path / "npm-cache"))  # nothing cached
    return tools[0]


@pytest.fixture
def silent_port() -> Iterator[int]:
    """A port that accepts connections and never answers."""
    with socket.create_server(("127.0.0.1", 0)) as server:
        yield server.getsockname()[1]


def closed_port() -> int:
    with socket.create_server(("127.0.0.1", 0)) as server:
        return server.getsockname()[1]


def test_an_unreachable_registry_is_a_clear_failure(
    npm: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("npm_config_registry", f"http://127.0.0.1:{closed_port()}/")
    with pytest.raises(discord_spec.NpmError, match=r"npm pack discord-api-spec@.* failed"):
        discord_spec.npm_pack(discord_spec.NPM_TARBALLS[0], npm, tmp_path)


def test_a_silent_registry_times_out_instead_of_hanging(
    npm: str, tmp_path: Path, silent_port: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("npm_config_registry", f"http://127.0.0.1:{silent_port}/")
    monkeypatch.setattr(discord_spec, "NPM_TIMEOUT", 3.0)
    started = time.monotonic()
    with pytest.raises(discord_spec.NpmError, match="gave no answer in 3 s"):
        discord_spec.npm_pack(discord_spec.NPM_TARBALLS[0], npm, tmp_path)
    assert time.monotonic() - started < 15


def test_no_registry_falls_back_with_the_reason(
    npm: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DISCORD_SPEC_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("npm_config_registry", f"http://127.0.0.1:{closed_port()}/")
    found = discord_spec.npm_package()
    assert found.root is None and "could not be cached" in found.detail
    assert not os.path.exists(discord_spec.npm_dir())
