"""bench/compare.py: two versions' bots, each in a process of its own, given the same commands
in alternating slices; one figure a concurrency, B over A, and nothing left behind."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _compare(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "bench/compare.py", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )


def _worktrees() -> str:
    listed = subprocess.run(
        ["git", "worktree", "list"], cwd=ROOT, capture_output=True, text=True, check=True
    )
    return listed.stdout


def test_a_commit_against_the_working_tree_gives_a_figure_a_concurrency() -> None:
    before = _worktrees()
    small = ("--pairs", "2", "--commands", "20", "--characters", "40")
    result = _compare("HEAD", ".", *small, "--concurrency", "1", "4")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("A = ") and lines[0].endswith("(HEAD), B = the working tree")
    figures = lines[2:]
    assert [line.split()[0] for line in figures] == ["C=1", "C=4"]
    for line in figures:
        assert "2 pairs of 20: a command A " in line and "B/A median " in line
        assert "(2 pairs)" in line
    assert _worktrees() == before  # the commit's checkout is gone


def test_an_unknown_revision_is_told_in_one_line() -> None:
    result = _compare("no-such-revision-of-ours")
    assert result.returncode != 0
    assert result.stderr.startswith("compare: ") and result.stderr.count("\n") == 1
    assert result.stdout == ""
