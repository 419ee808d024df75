"""Was the stored index made the way recall searches it? A warning when it was not.

Two ways it may not be, both mended by ``shitsuji reindex`` and told by one warning
(``MemoryEngine.index_warning``: printed by the command line, logged by recall on every channel,
checked by ``doctor``):

**Vectors of another model.** Vectors are stored per model, and recall by meaning searches only
those of the model it embeds the query with. After ``shitsuji --embedder hash reindex`` every vector is a hash
vector, so recall with the default model found nothing by meaning and said nothing. The
check costs one index seek (a live row with a vector from another model?) in the common case,
and is made once per engine (``MemoryEngine.recall``); rows merely waiting for the background
indexer (no model at all) do not count.

**Terms without readings.** Rows written before Japanese readings were indexed (``_readings``)
are found by their written forms only: なっとう does not find 納豆 in them. Their migration marked
them (``0015_ja23b_terms_readings``); counting them is a seek of a partial index.
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


def readings_missing(store: MemoryStore) -> str | None:
    """A sentence saying how many memories lack the readings of their Japanese words and how to add
    them; None when none does."""
    count = store.count_without_readings()
    if not count:
        return None
    return (
        f"{count} {'memory was' if count == 1 else 'memories were'} indexed before Japanese readings were: "
        "they are found by their written forms only (なっとう does not find 納豆). "
        "Run `shitsuji reindex` to index their readings."
    )
