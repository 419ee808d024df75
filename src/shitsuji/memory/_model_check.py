"""Do the stored vectors come from the embedder recalling? A warning when they do not.

Vectors are stored per model, and recall by meaning searches only those of the model it
embeds the query with. After ``shitsuji --embedder hash reindex`` every vector is a hash
vector, so recall with the default model found nothing by meaning and said nothing. The
check costs one index seek (a live row with a vector from another model?) in the common case,
and is made once per engine (``MemoryEngine.recall``); rows merely waiting for the background
indexer (no model at all) do not count.
"""

from __future__ import annotations

from typing import Protocol

from ._store import MemoryStore


class _HasModel(Protocol):
    @property
    def model_id(self) -> str: ...


def embedder_mismatch(store: MemoryStore, embedder: _HasModel) -> str | None:
    """A sentence naming the other models the memories were embedded with and how to reindex; None
    when every embedded memory has a vector from ``embedder``."""
    model = embedder.model_id
    if not store.embedded_otherwise(model):
        return None
    others = {m: n for m, n in store.stats().embedding_models.items() if m and m != model}
    if not others:
        return None
    made = ", ".join(f"{n} with {m}" for m, n in sorted(others.items(), key=lambda kv: -kv[1]))
    return (
        f"recall embeds with {model}, but memories were embedded with another model ({made}): "
        f"recall by meaning does not see them. Run `shitsuji reindex` to embed them with {model}, "
        "or recall with the embedder that made them (--embedder, env SHITSUJI_EMBEDDER)."
    )
