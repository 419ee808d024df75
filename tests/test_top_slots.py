"""``top_slots`` finds the first slots of a large score array from a bound, not a selection over all of it
(``_slots._largest``; issue 23, fl29): the same slots in the same order, and where scores tie among them
or at the cut, the full selection decides as before."""

from __future__ import annotations

import numpy as np
import pytest

from shitsuji.memory._slots import BLOCK, _largest, top_slots


def by_sorting(scores: np.ndarray, mask: np.ndarray, limit: int) -> list[int]:
    """The reference: every masked slot sorted, best first (unique when no two scores are equal)."""
    slots = np.flatnonzero(mask)
    return slots[np.argsort(-scores[slots], kind="stable")][:limit].tolist()


@pytest.mark.parametrize("seed", range(20))
def test_without_ties_the_first_slots_are_the_sorted_ones(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.choice([BLOCK * 120, 100_000])) if seed % 3 else 100_000  # half masked out: a larger array
    scores = rng.standard_normal(n).astype(np.float32 if seed % 2 else np.float64)
    # a bound from block heads must still reach the best of a block that holds several of them
    scores[: BLOCK * 3] = np.sort(scores[: BLOCK * 3]) + 10.0
    mask = np.ones(n, dtype=bool) if seed % 3 else rng.random(n) < 0.5
    for limit in (1, 10, 60):
        picked = scores[np.flatnonzero(mask)]
        found = _largest(picked, limit)
        assert found is not None and len(found) == limit  # the bound is used, not the full selection
        assert top_slots(scores, mask, limit) == by_sorting(scores, mask, limit)


def test_a_tie_among_the_first_or_at_the_cut_leaves_it_to_the_full_selection() -> None:
    rng = np.random.default_rng(7)
    scores = rng.standard_normal(100_000).astype(np.float32)
    best = np.argsort(-scores)
    at_cut = scores.copy()
    at_cut[best[10]] = at_cut[best[9]]  # the 10th and 11th equal
    inside = scores.copy()
    inside[best[3]] = inside[best[2]]
    for tied in (at_cut, inside):
        assert _largest(tied, 10) is None
        top = top_slots(tied, np.ones(len(tied), dtype=bool), 10)
        assert sorted(tied[top].tolist(), reverse=True) == sorted(tied.tolist(), reverse=True)[:10]
    assert _largest(scores, 10) is not None


def test_small_arrays_and_nan_keep_the_full_selection() -> None:
    rng = np.random.default_rng(3)
    assert _largest(rng.standard_normal(BLOCK * 10), 60) is None  # fewer than two blocks per slot wanted
    with_nan = rng.standard_normal(100_000)
    with_nan[::2] = np.nan
    assert _largest(with_nan, 60) is None
    top = top_slots(with_nan, np.ones(len(with_nan), dtype=bool), 60)
    assert not np.isnan(with_nan[top]).any()
