"""No memory ever leaks across scopes, over thousands of random operations."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from shitsuji.memory import HashEmbedder, MemoryEngine, lineage, open_store

SCOPES = [
    "household",
    "household/futari",
    "household/futari/user/wife",
    "household/futari/user/husband",
    "household/tanaka",
    "household/tanaka/user/aki",
    "projects/acme",
    "projects/acme/api",
    "projects/acme/web",
]
WORDS = ["紅茶", "coffee", "沖縄", "dentist", "猫", "futsal", "budget", "ramen", "birthday", "wifi"]

scopes = st.sampled_from(SCOPES)
texts = st.lists(st.sampled_from(WORDS), min_size=1, max_size=4).map(" ".join)


class Household(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.tmp = tempfile.TemporaryDirectory()
        self.store = open_store(Path(self.tmp.name) / "m.db")
        self.engine = MemoryEngine(self.store, HashEmbedder(dim=64))
        self.scope_of: dict[str, str] = {}
        self.live: set[str] = set()
        self.counter = 0
        self.order: dict[str, int] = {}  # id -> when first seen: ids are random, so draw by this order

    def in_order(self, ids: set[str]) -> list[str]:
        """``ids`` in the order they were first remembered: a replay of an example must draw the same
        memory, and sorting by the (random) ids would map the same draw to another memory each run."""
        return sorted(ids, key=self.order.__getitem__)

    def teardown(self) -> None:
        self.store.close()
        self.tmp.cleanup()

    @rule(scope=scopes, text=texts)
    def remember(self, scope: str, text: str) -> None:
        self.counter += 1
        result = self.engine.remember(f"{text} #{self.counter}", scope)
        assert result.memory.scope == scope
        self.scope_of[result.memory.id] = scope
        self.order.setdefault(result.memory.id, self.counter)
        self.live.add(result.memory.id)

    @rule(data=st.data())
    def forget(self, data: st.DataObject) -> None:
        if self.live:
            memory_id = data.draw(st.sampled_from(self.in_order(self.live)))
            self.engine.forget(memory_id)
            self.live.discard(memory_id)

    @rule(data=st.data())
    def restore(self, data: st.DataObject) -> None:
        gone = self.in_order(set(self.scope_of) - self.live)
        if gone:
            memory_id = data.draw(st.sampled_from(gone))
            self.engine.restore(memory_id)
            self.live.add(memory_id)

    @rule(reader=scopes, query=texts, k=st.integers(1, 20))
    def recall(self, reader: str, query: str, k: int) -> None:
        visible = set(lineage(reader))
        for hit in self.engine.recall(query, reader, k=k):
            assert hit.memory.scope in visible, f"{hit.memory.scope} leaked into {reader}"
            assert self.scope_of[hit.memory.id] == hit.memory.scope
            assert hit.memory.id in self.live, "a forgotten memory was recalled"

    @rule(reader=scopes, text=texts)
    def dedupe(self, reader: str, text: str) -> None:
        found = self.engine.find_duplicate(text, reader)
        assert found is None or found.memory.scope == reader

    @invariant()
    def own_fresh_fact_is_found(self) -> None:
        if self.live:
            newest = max(self.live, key=lambda mid: self.engine.get(mid).created_at)
            memory = self.engine.get(newest)
            ids = [h.memory.id for h in self.engine.recall(memory.content, memory.scope, k=50)]
            assert newest in ids


TestHousehold = Household.TestCase
TestHousehold.settings = settings(
    max_examples=60, stateful_step_count=60, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
