"""The keyword index's bulk load (a cold start) builds exactly what adding row by row builds."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from shitsuji.memory._keywords import KeywordIndex

TERMS = st.lists(
    st.sampled_from(["牛乳", "乳製", "milk", "buy", "tea", "紅茶", "deploy"]), min_size=1, max_size=6
)
ROWS = st.lists(
    st.tuples(
        st.sampled_from(["m1", "m2", "m3", "m4", "m5"]),  # repeats: a re-added memory replaces its slots
        st.sampled_from(["household/futari", "household/futari/user/wife", "projects/api"]),
        st.lists(TERMS, min_size=1, max_size=3),  # chunks
    ),
    max_size=30,
)


@given(before=ROWS, rows=ROWS)
def test_add_many_matches_adding_row_by_row(before: list, rows: list) -> None:
    one, bulk = KeywordIndex(), KeywordIndex()
    for memory_id, scope, chunks in before:  # something already loaded
        one.add(memory_id, scope, chunks)
        bulk.add(memory_id, scope, chunks)
    for memory_id, scope, chunks in rows:
        one.add(memory_id, scope, chunks)
    bulk.add_many([(m, s, "\n".join(" ".join(c) for c in chunks)) for m, s, chunks in rows])
    n = one.slots.size
    assert bulk.slots.size == n and bulk.slots.live == one.slots.live and len(bulk) == len(one)
    assert bulk._postings == one._postings and bulk._total_length == one._total_length
    assert np.array_equal(bulk._lengths[:n], one._lengths[:n])
    assert bulk.slots.ids == one.slots.ids and bulk.slots.chunk == one.slots.chunk
    for scopes in (
        ["household/futari"],
        ["household/futari/user/wife", "household/futari"],
        ["projects/api"],
    ):
        for query in (["牛乳"], ["milk", "tea"], ["deploy", "紅茶", "buy"]):
            assert bulk.search(query, scopes, 5) == one.search(query, scopes, 5)


@given(rows=ROWS)
def test_a_one_scope_index_exports_the_snapshot_its_rows_make(rows: list) -> None:
    from shitsuji.memory._keywords import snapshot

    stored = {m: (m, "projects/api", "\n".join(" ".join(c) for c in chunks)) for m, _, chunks in rows}
    index = KeywordIndex()
    index.add_many(list(stored.values()))
    exported = index.export("projects/api")
    if not stored:
        assert exported is None
        return
    assert exported == snapshot(list(stored.values()))
    assert index.export("projects/other") is None
    index.kill(next(iter(stored)))
    assert index.export("projects/api") is None  # a killed slot: not a snapshot of live rows


def test_a_term_of_every_row_forgotten_ones_too_does_not_sink_the_live_rows() -> None:
    # the day said is a term of every row: forgotten rows keep their slots (until a rebuild), and
    # counting them as holders against the live documents made its idf negative — "tomatoes 2" said
    # on a 2nd found nothing once the cucumbers were forgotten
    index = KeywordIndex()
    for n in range(4):
        index.add(f"kept{n}", "s", [["tomatoes", str(n), "2", "december"]])
        index.add(f"dropped{n}", "s", [["cucumbers", str(n), "2", "december"]])
    for n in range(4):
        index.kill(f"dropped{n}")
    found = [m.memory_id for m in index.search(["tomatoes", "2"], ["s"], 10)]
    assert found and set(found) == {f"kept{n}" for n in range(4)}
    assert index.search(["tomatoes", "1"], ["s"], 10)[0].memory_id == "kept1"


STEPS = st.lists(
    st.tuples(
        st.sampled_from(["add", "kill", "search"]),
        st.sampled_from(["m1", "m2", "m3", "m4", "m5", "m6"]),
        st.lists(TERMS, min_size=1, max_size=2),
    ),
    max_size=25,
)


@given(steps=STEPS, asked=TERMS)
def test_shares_kept_between_searches_are_the_ones_a_search_would_compute(
    steps: list, asked: list[str]
) -> None:
    # each term's BM25 shares are kept from one search to the next (issue 23 fl27): a row added or
    # forgotten since must not leave a search with the old ones
    index = KeywordIndex()
    scope = "household/futari"
    for action, memory_id, chunks in steps:
        if action == "add":
            index.add(memory_id, scope, chunks)
        elif action == "kill":
            index.kill(memory_id)
        kept = index.search(asked, [scope], 10)  # with the shares of an earlier state, if any were kept
        index._shares.clear()
        assert index.search(asked, [scope], 10) == kept
