"""``Slots.mask`` keeps its last answer: it must follow every add and kill, and survive callers narrowing it."""

from __future__ import annotations

import numpy as np

from shitsuji.memory._slots import Slots, top_slots


def test_the_kept_mask_follows_adds_and_kills_and_is_not_shared() -> None:
    slots = Slots(capacity=4)
    for i in range(6):
        slots.add(f"m{i}", "a" if i % 2 == 0 else "b")
    first = slots.mask(["a"])
    assert first is not None and first.tolist() == [True, False, True, False, True, False]
    first[:] = False  # a caller narrows its copy in place (the keyword search does)
    again = slots.mask(["a"])
    assert again is not None and again.tolist() == [True, False, True, False, True, False]
    slots.kill("m2")
    killed = slots.mask(["a"])
    assert killed is not None and killed.tolist() == [True, False, False, False, True, False]
    slots.add("m7", "a")  # grows the arrays (capacity 4 → 8)
    grown = slots.mask(["a"])
    assert grown is not None and grown.tolist() == [True, False, False, False, True, False, True]
    slots.add("m0", "a")  # a new copy of m0: the old slot dies, a new one is live
    both = slots.mask(["a", "b"])
    assert both is not None and both.tolist() == [False, True, False, True, True, True, True, True]


def test_top_slots_is_the_same_with_every_slot_masked_in() -> None:
    scores = np.asarray([0.1, 0.9, 0.5, 0.9, 0.3], dtype=np.float32)
    assert top_slots(scores, np.ones(5, dtype=np.bool_), 3) == [1, 3, 2]
    assert top_slots(scores, np.asarray([True, False, True, True, True]), 3) == [3, 2, 4]
