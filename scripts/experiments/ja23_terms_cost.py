"""Issue 23 (ja23): CPU per Japanese text of ``_text.terms`` (caches cleared each pass, median of 5).

Run once with the checkout, once with main's src on PYTHONPATH, side by side.
"""

from __future__ import annotations

import statistics
import time

from shitsuji.bench.latency import synthetic_memories
from shitsuji.memory import _readings
from shitsuji.memory._text import CJK, terms


def main() -> None:
    texts = [t for t in synthetic_memories(20000, seed=7) if CJK.search(t)][:4000]
    terms(texts[0])  # load the dictionary outside the timing
    runs = []
    for _ in range(5):
        for name in ("content_words", "reading_terms"):
            cached = getattr(_readings, name, None)
            if cached is not None:
                cached.cache_clear()
        try:
            from shitsuji.memory import _romaji

            _romaji.name_spellings.cache_clear()
        except ImportError:  # main: no names rule
            pass
        start = time.process_time()
        for text in texts:
            terms(text)
        runs.append((time.process_time() - start) / len(texts) * 1e6)
    print(f"{len(texts)} Japanese texts; µs CPU per text, median of 5: {statistics.median(runs):.1f}")


if __name__ == "__main__":
    main()
