"""Changes and typed text as the page writes them: the bot's own words (bot/render/changes.py),
each name and typed text as it is (the page's templates escape every value for HTML), and the
owner named in the page's words (it knows no member's name)."""

from __future__ import annotations

from collections.abc import Sequence

from bot.render import changes
from rules.outcome import Change


def _as_typed(text: str) -> str:
    return text


def change_texts(
    shown: Sequence[Change], action: str | None = None, *, vit: int, viewer: int
) -> list[str]:
    """As /history writes them (V-7, C-3); `viewer` is "you" where the owner is."""

    def owner(mention: str) -> str:
        return "you" if mention == f"<@{viewer}>" else "another member"

    return changes.change_texts(shown, action, vit=vit, shown=_as_typed, owner=owner)


def told(inputs: dict[str, object], user_id: int) -> str | None:
    """What the command was told beyond numbers (E-10's cause, a reason, a push's aim)."""
    return changes.told(inputs, user_id, shown=_as_typed)
