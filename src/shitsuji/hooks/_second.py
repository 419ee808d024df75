"""A second model's opinion on the hook's candidates, where a model can stay loaded.

The default model (``use``) gives short Japanese questions about English notes cosines of
0.13-0.19 with their answer, inside the range of unrelated prompts, so no threshold on it
alone separates them. multilingual-e5-small ranks many of those right, but its cosines
are packed together (unrelated texts at 0.8) and it takes ~190 ms to load, too much for a
fresh hook process. The hook server keeps it loaded and re-scores only the candidates the
first model found (at most ``CANDIDATES``): the fused score is
``cosine + weight * (second cosine - center)`` with the weight and center of the fused
gate (``_context.GATES``), calibrated by ``bench hook-relevance``.

A candidate's passage is embedded by the second model once and kept by memory id and
text; the database's vectors stay those of the first model.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Sequence

import numpy as np

from ..memory import Embedder, Hit, load_embedder
from ..memory._embedders import Vector

log = logging.getLogger(__name__)

SECOND_MODEL = "e5"  # the embedder name, when its extra (shitsuji[e5]) is installed
MAX_CACHED = 50_000  # passage vectors kept (a 384-d vector is 1.5 kB)


class SecondOpinion:
    """A second embedder and the passage vectors it has computed (see the module doc)."""

    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder
        self._passages: dict[str, Vector] = {}

    @property
    def model_id(self) -> str:
        return self.embedder.model_id

    def cosines(self, prompt: str, hits: Sequence[Hit]) -> dict[str, float]:
        """The second model's cosine between the prompt and each hit's passage, by memory id."""
        if not hits:
            return {}
        keys = [_key(hit) for hit in hits]
        missing = [
            (key, hit.excerpt) for key, hit in zip(keys, hits, strict=True) if key not in self._passages
        ]
        if missing:
            if len(self._passages) + len(missing) > MAX_CACHED:
                self._passages.clear()
            vectors = self.embedder.embed_documents([text for _, text in missing])
            self._passages.update(zip((key for key, _ in missing), vectors, strict=True))
        query = self.embedder.embed_query(prompt)
        matrix = np.vstack([self._passages[key] for key in keys])
        return {hit.memory.id: float(c) for hit, c in zip(hits, matrix @ query, strict=True)}


def _key(hit: Hit) -> str:
    return hit.memory.id + hashlib.blake2b(hit.excerpt.encode(), digest_size=8).hexdigest()


def load_second_opinion(name: str = SECOND_MODEL) -> SecondOpinion | None:
    """The second model, or None when it is not installed or cannot run (the first model decides alone)."""
    try:
        embedder = load_embedder(name)
        embedder.embed_query("warm up")  # maps its weights now, not on the first prompt
    except Exception as exc:  # an optional extra: the hook works without it
        log.info("no second model for the hook (%s): %s", name, exc)
        return None
    return SecondOpinion(embedder)
