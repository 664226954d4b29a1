"""Where the console keeps what the bot attaches (exports, the Last Gasp picture, odds charts),
and where it finds the files a command names (`/character import file:Roryn.json`)."""

from __future__ import annotations

import os
import re
from pathlib import Path

from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError

EXPORTS_FOLDER = "lastgasp-exports"


class ConsoleError(Exception):
    """A line the console cannot run: said in one line, and the session goes on."""


def exports_folder(database_url: str | None) -> Path:
    """`lastgasp-exports/` beside the SQLite database file; in the working directory for any
    other database."""
    base = Path.cwd()
    if database_url:
        try:
            url = make_url(database_url)
        except ArgumentError:
            url = None
        if (
            url is not None
            and url.get_backend_name() == "sqlite"
            and url.database
            and url.database != ":memory:"
            and not url.database.startswith("file:")
        ):
            base = Path(url.database).expanduser().resolve().parent
    return base / EXPORTS_FOLDER


def shown(path: Path) -> str:
    """A path as the console prints it: relative to the working directory when inside it."""
    try:
        relative = path.resolve().relative_to(Path.cwd().resolve())
    except ValueError:
        return str(path)
    text = str(relative)
    return text if text != "." else "."


def folder_shown(path: Path) -> str:
    text = shown(path)
    if not Path(text).is_absolute():
        text = f".{os.sep}{text}"
    return text + os.sep


class Saver:
    """Writes attached files into the exports folder, never over an existing file
    (`Roryn.json`, then `Roryn-2.json`)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._saved: dict[tuple[int, str, int], Path] = {}  # (message id, name, size) -> path

    def save(self, message_id: int, name: str, data: bytes) -> Path:
        key = (message_id, name, len(data))
        if key in self._saved:  # the same message shown again (an update of it)
            return self._saved[key]
        self.folder.mkdir(parents=True, exist_ok=True)
        safe = re.sub(r"[^\w.\- ]", "_", Path(name).name).strip(" .") or "attachment"
        stem, suffix = os.path.splitext(safe)
        path = self.folder / safe
        n = 1
        while True:
            try:
                with open(path, "xb") as file:
                    file.write(data)
                break
            except FileExistsError:
                n += 1
                path = self.folder / f"{stem}-{n}{suffix}"
        self._saved[key] = path
        return path

    def find(self, value: str) -> Path:
        """The file a command option names: as given (relative to the working directory), or
        in the exports folder."""
        given = Path(value).expanduser()
        candidates = [given] if given.is_absolute() else [given, self.folder / given]
        for candidate in candidates:
            if candidate.is_file():
                return candidate
        if given.is_absolute():
            raise ConsoleError(f"no file {value}")
        raise ConsoleError(f"no file {value} here or in {folder_shown(self.folder)}")
