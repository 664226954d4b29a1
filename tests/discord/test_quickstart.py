"""docs/quickstart.md cannot rot (issue 21 item 14): every command it shows parses against the
real command tree (through the console's parser: names, options, choices, required options),
its ten steps run in order in the offline console, each answered as the page says (the first
quoted answer of a step, with the dice of `--seed 13`), and every link between the user docs
leads to a file and a heading that exist.
"""

from __future__ import annotations

import io
import random
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from bot.app import create_bot
from bot.console import Console
from bot.offline import OfflineDriver

ROOT = Path(__file__).resolve().parents[2]
QUICKSTART = ROOT / "docs" / "quickstart.md"
USER_DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
SEED = 13  # the dice the page shows: the breakdown fails (5 against 6), the roll has a Crit


@dataclass
class Step:
    title: str
    speaker: str  # a console persona: "gm" or "player NAME"
    lines: list[str] = field(default_factory=list)  # console lines: commands and clicks
    said: list[str] = field(default_factory=list)  # the answers the page quotes


def _speaker(text: str) -> str:
    """The first bold name of a step says who types: **The GM**, or a player's name."""
    found = re.search(r"\*\*([^*]+)\*\*", text)
    assert found, f"a step names who types it in bold: {text[:80]!r}"
    who = found[1].strip()
    return "gm" if who.lower() in ("the gm", "gm") else f"player {who}"


def steps() -> list[Step]:
    text = QUICKSTART.read_text(encoding="utf-8")
    parts = re.split(r"^## (\d+\. .+)$", text, flags=re.M)
    found = []
    for title, body in zip(parts[1::2], parts[2::2], strict=True):
        step = Step(title, _speaker(body))
        for block in re.findall(r"```text\n(.*?)```", body, flags=re.S):
            step.lines += [line for line in block.splitlines() if line.startswith("/")]
        step.lines += [f":click {label}" for label in re.findall(r"presses \*\*(.+?)\*\*", body)]
        step.said = [" ".join(quote.split()) for quote in re.findall(r"“(.+?)”", body, flags=re.S)]
        found.append(step)
    return found


def every_command() -> list[str]:
    """Every slash command the page shows: in its code blocks and in its inline code."""
    text = QUICKSTART.read_text(encoding="utf-8")
    blocks = re.findall(r"```text\n(.*?)```", text, flags=re.S)
    lines = [line for block in blocks for line in block.splitlines() if line.startswith("/")]
    inline = re.findall(r"(?<!`)`(/[a-z][^`]*)`(?!`)", re.sub(r"```.*?```", "", text, flags=re.S))
    commands = [*lines, *inline]
    return [c for c in commands if re.match(r"/[a-z]+( [a-z]+)?( |$)", c)]


@pytest.fixture
async def console(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[tuple[Console, io.StringIO]]:
    monkeypatch.chdir(tmp_path)
    bot_ = create_bot(f"sqlite+aiosqlite:///{tmp_path / 'first.db'}", rng=random.Random(SEED))
    driver = OfflineDriver(bot_)
    await driver.start()
    out = io.StringIO()
    try:
        yield Console(driver, out), out
    finally:
        await driver.close()


def test_the_quick_start_is_ten_steps_of_one_command_each() -> None:
    found = steps()
    assert [s.title.split(".")[0] for s in found] == [str(n) for n in range(1, 11)]
    for step in found:
        assert len(step.lines) == 1, f"step {step.title!r}: one command or one press"


async def test_every_command_of_the_quick_start_parses_against_the_command_tree(
    console: tuple[Console, io.StringIO],
) -> None:
    """A command with options is parsed whole, as the console sends it (an unknown option, a
    value outside its choices or of the wrong kind, a missing required option is refused); a
    command named without options (`/early`) has to exist."""
    session, _ = console
    commands = every_command()
    assert len(commands) > 10  # the ten steps, and the ones the page mentions besides
    for line in commands:
        path = [word for word in line.split(" ") if ":" not in word]
        if ":" in line:
            command, _ = session._parse(line, complete=False)
        else:
            command = session._resolve(path)
        assert "/" + command.qualified_name == " ".join(path), line


async def test_the_ten_steps_run_and_answer_as_the_quick_start_says(
    console: tuple[Console, io.StringIO],
) -> None:
    """C-1, S-5, E-1, E-10, E-8, E-9, H-1, V-2, R-1, R-2, R-8, U-2, U-3 in one first session."""
    session, out = console
    for step in steps():
        assert await session.handle(f":as {step.speaker}")
        start = len(out.getvalue())
        for line in step.lines:
            assert await session.handle(line)
        printed = out.getvalue()[start:]
        assert "error:" not in printed, f"step {step.title!r}: {printed}"
        assert "[public reply]" in printed or "[ephemeral reply]" in printed, printed
        if step.said:  # the first quote is this seed's answer; others are the other outcomes
            assert step.said[0] in " ".join(printed.split()), f"step {step.title!r}: {printed}"


_LINK = re.compile(r"\]\(([^)\s]+)\)")


def _anchor(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    text = re.sub(r"```.*?```", "", path.read_text(encoding="utf-8"), flags=re.S)
    return {_anchor(h) for h in re.findall(r"^#+ (.+)$", text, flags=re.M)}


@pytest.mark.parametrize("doc", USER_DOCS, ids=lambda p: p.name)
def test_the_links_of_the_user_docs_lead_somewhere(doc: Path) -> None:
    """README.md and docs/*.md link to files and headings that exist (the quick start, the
    glossary, the settings …), and stand alone: no link leaves the repository's tree."""
    text = re.sub(r"```.*?```", "", doc.read_text(encoding="utf-8"), flags=re.S)
    for target in _LINK.findall(text):
        if target.startswith(("http://", "https://")):
            continue
        file, _, anchor = target.partition("#")
        linked = (doc.parent / file).resolve() if file else doc
        assert linked.is_relative_to(ROOT), f"{doc.name}: {target} leaves the repository"
        assert linked.exists(), f"{doc.name}: {target} names no file"
        if anchor and linked.suffix == ".md":
            assert anchor in _anchors(linked), f"{doc.name}: {target} names no heading"


@pytest.mark.parametrize("doc", USER_DOCS, ids=lambda p: p.name)
def test_the_user_docs_stand_alone(doc: Path) -> None:
    """A clone has the docs and nothing beside them: they cite rule IDs and each other, never
    the specification the project was built from."""
    text = doc.read_text(encoding="utf-8")
    # Spelled in pieces, so that this test does not itself name what it looks for.
    specification = [part + ".md" for part in ("RULES", "COMMANDS")]
    for outside in (*specification, "../" + "shared", "seeds" + "/"):
        assert outside not in text, f"{doc.name} names {outside}"
