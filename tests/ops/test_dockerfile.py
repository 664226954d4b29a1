"""The Dockerfile, read as Docker reads it (no Docker daemon here to build it): signals reach
the bot, the health check is cheap, and a change of source does not reinstall the
dependencies."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def instructions(text: str) -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) in order: comments dropped, continuation lines joined."""
    found: list[tuple[str, str]] = []
    pending = ""
    for raw in text.splitlines():
        line = raw.strip()
        if not pending and (not line or line.startswith("#")):
            continue
        if line.endswith("\\"):
            pending += line[:-1].rstrip() + " "
            continue
        line = pending + line
        pending = ""
        keyword, _, arguments = line.partition(" ")
        found.append((keyword.upper(), arguments.strip()))
    assert not pending, "the Dockerfile ends in a continuation"
    return found


@pytest.fixture(scope="module")
def dockerfile() -> list[tuple[str, str]]:
    return instructions((ROOT / "Dockerfile").read_text())


def only(dockerfile: list[tuple[str, str]], keyword: str) -> str:
    matching = [arguments for name, arguments in dockerfile if name == keyword]
    assert len(matching) == 1, f"{keyword}: {matching}"
    return matching[0]


def exec_form(arguments: str) -> list[str] | None:
    """The JSON array of an exec-form instruction, None for the shell form."""
    try:
        value = json.loads(arguments)
    except ValueError:
        return None
    return value if isinstance(value, list) and all(isinstance(v, str) for v in value) else None


def index(dockerfile: list[tuple[str, str]], keyword: str, pattern: str) -> int:
    for i, (name, arguments) in enumerate(dockerfile):
        if name == keyword and re.search(pattern, arguments):
            return i
    raise AssertionError(f"no {keyword} matching {pattern!r}")


def test_the_bot_runs_under_tini_in_exec_form_and_stops_on_sigterm(dockerfile):
    assert exec_form(only(dockerfile, "CMD")) == ["python", "-m", "bot", "run"]
    # tini as PID 1 passes SIGTERM on to the bot; a shell form would leave it with /bin/sh.
    assert exec_form(only(dockerfile, "ENTRYPOINT")) == ["tini", "--"]
    installs = index(dockerfile, "RUN", r"apt-get install .*\btini\b")
    assert installs < index(dockerfile, "USER", ".")
    assert only(dockerfile, "STOPSIGNAL") == "SIGTERM"


def test_the_health_check_asks_the_running_bot_without_starting_python(dockerfile):
    healthcheck = only(dockerfile, "HEALTHCHECK")
    options, _, command = healthcheck.partition("CMD")
    assert "--interval=" in options and "--timeout=" in options
    words = exec_form(command.strip()) or shlex.split(command)
    assert not any("python" in word for word in words)
    assert words[0] == "curl" and "-f" in "".join(w for w in words if w.startswith("-"))
    assert any(word.endswith(":${HEALTH_PORT}/health") for word in words)
    assert index(dockerfile, "RUN", r"apt-get install .*\bcurl\b") >= 0
    assert re.search(r"\bHEALTH_PORT=\d+", only(dockerfile, "ENV"))


def test_the_dependencies_are_installed_before_the_source_is_copied(dockerfile):
    copies = [(i, arguments) for i, (name, arguments) in enumerate(dockerfile) if name == "COPY"]
    sources = [i for i, arguments in copies if re.match(r"(bot|rules|migrations)\b", arguments)]
    assert len(sources) == 3
    manifest = index(dockerfile, "COPY", r"^pyproject\.toml\b")
    install = index(dockerfile, "RUN", r"\bpip\b.*\binstall\b")
    assert manifest < install < min(sources)
    # That layer sees nothing but the dependency list: no copy of the source before it.
    assert not [i for i, arguments in copies if i < install and i != manifest]


def test_the_image_runs_as_a_user_with_its_data_on_a_volume(dockerfile):
    user = only(dockerfile, "USER")
    assert user not in ("root", "0") and not user.startswith("0:")
    assert index(dockerfile, "USER", ".") < index(dockerfile, "CMD", ".")
    assert exec_form(only(dockerfile, "VOLUME")) == ["/data"]
    assert "DATABASE_URL=sqlite+aiosqlite:////data/" in only(dockerfile, "ENV")


def test_the_parser_reads_both_forms():
    parsed = instructions('# c\nFROM x\nRUN a \\\n    && b\nCMD ["a", "b"]\nCMD a b\n')
    assert parsed == [("FROM", "x"), ("RUN", "a && b"), ("CMD", '["a", "b"]'), ("CMD", "a b")]
    assert exec_form('["a", "b"]') == ["a", "b"] and exec_form("a b") is None
