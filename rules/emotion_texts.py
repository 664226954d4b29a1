"""The emotions' texts: what addressing each one takes (E-3, E-5, E-9) and what a Breakdown
imposes (E-6). A leaf module: the rules that show them import it."""

from __future__ import annotations

from rules.models import Emotion

# The rule text on addressing an emotion, word for word.
ADDRESS_ACTIONS: dict[Emotion, str] = {
    Emotion.ANGER: (
        "They must hurt someone or break something beneficial, either physically or "
        "emotionally, and whether willingly or by accident."
    ),
    Emotion.FEAR: (
        "They must desert the group at a critical moment, or take a foolish action that puts "
        "them in a difficult position."
    ),
    Emotion.SADNESS: (
        "They must take a temporary leave from the group, for a full day at least, while the "
        "plot progresses without them."
    ),
    Emotion.GUILT: (
        "They must make a sacrifice to redeem themselves, like giving up something of value or "
        "yielding to someone else’s will."
    ),
}

# The actions a Breakdown rolls with Disadvantage, word for word.
RELATED_ACTIONS: dict[Emotion, str] = {
    Emotion.ANGER: "If they’re trying to help, comfort or support someone.",
    Emotion.FEAR: "If they’re trying to directly engage an obstacle or threat.",
    Emotion.SADNESS: "If they’re trying to focus on calm or intellectual tasks.",
    Emotion.GUILT: "If they’re trying to hurt, harm or provoke someone.",
}

# E-6: what a Breakdown imposes, for the sheet and every roll of the character.
BREAKDOWN_EFFECTS: dict[Emotion, str] = {
    emotion: (
        f"Disadvantage on actions related to {emotion.label} "
        f"({related[0].lower()}{related[1:].rstrip('.')}). Disadvantage on all Reaction Rolls. "
        "No Ability XP. Nearby allies -3 on Action Rolls."
    )
    for emotion, related in RELATED_ACTIONS.items()
}


def breakdown_line(emotion: Emotion) -> str:
    """E-6 in one line, for every reply after the one that announced the Breakdown."""
    return (
        f"In a Breakdown of {emotion.label}: Disadvantage on related actions and on "
        "all Reaction Rolls."
    )
