"""bench/layout_cost.py measures what it says: the same four messages, each as its layout and as
the embed it was (timings are the benchmark's to judge, not a test's)."""

from __future__ import annotations

from bench.layout_cost import embed_of, layout_of, measure, messages


async def test_each_message_is_built_both_ways_and_measured() -> None:
    for name, card in messages().items():
        components, flagged, finished = layout_of(card)()  # type: ignore[misc]
        assert flagged and finished and components[0]["type"] == 17, name
        embed = embed_of(card)()
        assert isinstance(embed, list) and embed[0]["color"] == card.colour, name
    lines = await measure(3)
    assert len(lines) == 1 + len(messages())
    assert all("µs" in line for line in lines[1:])
