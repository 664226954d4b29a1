"""Where the tests find Discord's OpenAPI description (tests/discord_spec.py), on a small
stand-in file pinned for each test, so these run with or without the real one."""

from __future__ import annotations

import hashlib
import json
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
