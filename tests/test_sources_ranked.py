"""A conversation ranked by its two best recalled turns (``memory.sources_ranked``)."""

from __future__ import annotations

from datetime import UTC, datetime

from shitsuji.memory import Hit, Memory, sources_ranked

SAID = datetime(2026, 12, 1, tzinfo=UTC)


def hit(n: int, source: str | None, score: float) -> Hit:
    provenance = {"session": source} if source is not None else {}
    memory = Memory(f"m{n}", "s", f"turn {n}", "event", 0.5, "imported", provenance, SAID, SAID, f"h{n}")
    return Hit(memory, score)


def session(h: Hit) -> str | None:
    value = h.memory.provenance.get("session")
    return value if isinstance(value, str) else None


def test_two_matching_turns_outrank_one_stray_turn() -> None:
    """The stray turn of "a" leads the list, yet "b" has two turns that match: "b" first. The field's
    first-appearance mapping would rank "a" first; a third turn of "c" does not count."""
    hits = [hit(1, "a", 0.9), hit(2, "b", 0.6), hit(3, "b", 0.5), hit(4, "c", 0.45), hit(5, "c", 0.4)]
    hits += [hit(6, "c", 0.39), hit(7, None, 0.3), hit(8, "a", 0.05)]
    assert sources_ranked(hits, session) == ["b", "a", "c"]  # 1.1, 0.95, 0.85 (not 1.24)


def test_ties_keep_the_order_of_first_appearance() -> None:
    assert sources_ranked([hit(1, "x", 0.5), hit(2, "y", 0.5), hit(3, None, 0.9)], session) == ["x", "y"]
    assert sources_ranked([], session) == []
