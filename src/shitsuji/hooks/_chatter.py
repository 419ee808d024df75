"""Conversation chatter: prompts about the conversation itself, which no stored fact answers.

「もう少し短く説明して」 ("explain it a bit shorter") has a cosine of 0.35 with a note that
mentions 説明 (explanation), as high as many real questions have with their answer, so a
cosine threshold alone cannot tell them apart. What sets chatter apart is that it sits
close to other chatter: the prompt is compared with these reference sentences (written
for this purpose, distinct from the labelled set the gate is scored on), and a prompt at
or above ``Gate.chatter`` to any of them gets no memories. Their vectors are computed
once per model and kept in the cache folder beside the mapped model.
"""

from __future__ import annotations

import hashlib
import logging
from pathlib import Path
from typing import Final

import numpy as np
import numpy.typing as npt

from ..memory import Embedder
from ..memory._mapped import read_arrays, write_arrays
from ..memory._use_mapped import cache_dir

log = logging.getLogger(__name__)

CHATTER: Final = (
    "thank you",
    "thanks a lot, that helps",
    "great, keep going",
    "please continue",
    "go ahead",
    "yes, do that",
    "no, that's wrong, try again",
    "can you explain that more simply?",
    "make the answer shorter",
    "give me more detail",
    "summarize what you just said",
    "I don't understand",
    "what do you mean?",
    "sounds good",
    "perfect",
    "hello",
    "good evening",
    "how are you?",
    "never mind",
    "let's move on to the next step",
    "stop",
    "write a poem about the sea",
    "tell me something interesting",
    "what is the meaning of life?",
    "ありがとうございます",
    "助かりました",
    "続けてください",
    "それでお願いします",
    "もう一回やって",
    "わかりやすく説明してください",
    "もっと簡潔にまとめて",
    "詳しく教えて",
    "意味がわからない",
    "いい感じです",
    "こんにちは",
    "おはようございます",
    "次に進もう",
    "やめて",
    "面白い話をして",
    "要約して",
)


_LOADED: dict[Path, npt.NDArray[np.float32]] = {}  # read once per process (the hook server asks per prompt)


def chatter_vectors(embedder: Embedder) -> npt.NDArray[np.float32] | None:
    """The reference sentences' vectors under ``embedder`` (from the cache when there), or None."""
    digest = hashlib.sha256("\n".join([embedder.model_id, *CHATTER]).encode()).hexdigest()[:16]
    path = cache_dir() / f"chatter-{digest}.arrays"
    if (loaded := _LOADED.get(path)) is not None:
        return loaded
    try:
        cached: npt.NDArray[np.float32] = read_arrays(path)[1]["vectors"]
        _LOADED[path] = cached
        return cached
    except (OSError, ValueError, KeyError):
        pass
    try:
        # in small batches, which the mapped model answers without loading the full one
        vectors = np.vstack(
            [embedder.embed_documents(list(CHATTER[i : i + 8])) for i in range(0, len(CHATTER), 8)]
        )
    except Exception as exc:  # the gate then works without it
        log.info("chatter vectors unavailable: %s", exc)
        return None
    try:
        write_arrays(path, {"model": embedder.model_id}, {"vectors": vectors})
    except OSError as exc:
        log.info("chatter vectors not cached: %s", exc)
    _LOADED[path] = vectors
    return vectors


def chatter_similarity(embedder: Embedder, vector: npt.NDArray[np.float32]) -> float:
    """The prompt vector's highest cosine with the chatter sentences (0 when they are unavailable)."""
    bank = chatter_vectors(embedder)
    if bank is None or bank.shape[1] != len(vector):
        return 0.0
    return float((bank @ vector).max())
