"""`/web`'s answers: the member's link to the campaign page, and the end of their links. Both
private: the link opens what its member may see, to whoever has it."""

from __future__ import annotations

from bot.render.reply import Reply


def _hours(hours: float) -> str:
    return f"{hours:g} hour" + ("" if hours == 1 else "s")


def web_link_reply(url: str, hours: float) -> Reply:
    """The link in angle brackets: Discord shows no preview of it (its crawler never opens it)."""
    return Reply.private(
        f"Your link to this server's campaign page, made for you: <{url}>\n"
        f"It shows what you may see here, works for {_hours(hours)}, and opens for anyone who "
        "has it: keep it to yourself. `/web revoke:true` ends every link made for you so far."
    )


def web_revoked_reply() -> Reply:
    return Reply.private(
        "Every link to this server's campaign page made for you so far is ended: they open "
        "nothing now. `/web` makes a new one."
    )
