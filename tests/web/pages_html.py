"""Reading the page's HTML as a browser would: its text, its elements and attributes (the
standard library's parser, which unescapes as a browser does)."""

from __future__ import annotations

from dataclasses import dataclass, field
from html.parser import HTMLParser


@dataclass
class Element:
    tag: str
    attrs: dict[str, str | None]
    text: str = ""


@dataclass
class Parsed:
    elements: list[Element] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)  # every text node, unescaped
    scripts: list[Element] = field(default_factory=list)

    @property
    def text(self) -> str:
        return " ".join(" ".join(self.texts).split())

    def all(self, tag: str) -> list[Element]:
        return [e for e in self.elements if e.tag == tag]


class _Parser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found = Parsed()
        self._open: list[Element] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        element = Element(tag, dict(attrs))
        self.found.elements.append(element)
        if tag == "script":
            self.found.scripts.append(element)
        if tag not in ("img", "link", "meta", "br", "input"):
            self._open.append(element)

    def handle_endtag(self, tag: str) -> None:
        while self._open:
            if self._open.pop().tag == tag:
                break

    def handle_data(self, data: str) -> None:
        if self._open and self._open[-1].tag == "script":
            self._open[-1].text += data
            return
        if self._open and self._open[-1].tag in ("style", "title"):
            return
        self.found.texts.append(data)


def parse(html: str) -> Parsed:
    parser = _Parser()
    parser.feed(html)
    parser.close()
    return parser.found
