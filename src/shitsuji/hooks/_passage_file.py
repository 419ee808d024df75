"""The second model's passage vectors on disk: one whole file, and a journal of what came since.

Why a journal: the hook server used to save every passage it held after each batch it
embedded, so one new memory asked about by a prompt rewrote the whole file — at 10,000
memories 16 MB, 43 ms of CPU and ~0.3 s of disk for one vector (docs/benchmarks.md, hk23c).
Now a save appends the passages embedded since the last one to ``<file>.journal``, and the
whole file is rewritten (the journal folded in, then emptied) only when the journal would
grow larger than it. Each vector is then written a bounded number of times on average
(the whole file at least doubles between two rewrites), whatever the project's size.

The whole file is ``_mapped.write_arrays``'s (``{"model", "keys", "japanese"}`` and a
``vectors`` matrix), as before: a server of an older version reads it and embeds the rest.
A journal record: a 4-byte little-endian length, that many bytes of JSON ``{"model",
"keys", "japanese": [flags]}``, then ``len(keys)`` float32 vectors. A record cut short (a
crash while appending) ends the journal: it is cut off at load, so later records follow
whole ones. Records of another model are skipped. A crash between a rewrite and emptying
the journal leaves records the file already holds: loading them again changes nothing.
"""

from __future__ import annotations

import contextlib
import json
import os
import struct
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from ..memory._embedders import Matrix
from ..memory._mapped import read_arrays, write_arrays
from ..store._files import private_folder

__all__ = ["PassageFile", "Passages", "copy_whole"]

_LENGTH = struct.Struct("<I")

#: keys, their vectors (one row each), and the keys of Japanese passages
Passages = tuple[list[str], Matrix, set[str]]


class PassageFile:
    """The whole file at ``path`` and its journal, for the vectors of ``model`` (see the module doc)."""

    def __init__(self, path: Path, model: str) -> None:
        self.path = path
        self.journal = path.with_name(path.name + ".journal")
        self.model = model
        self.written = 0  # bytes this object has written, whole files and records (tests, status)

    def load(self) -> Passages | None:
        """Everything the file and its journal hold for ``model`` (later records win); None when
        neither holds anything readable."""
        keys: list[str] = []
        rows: list[Matrix] = []
        japanese: set[str] = set()
        try:
            meta, arrays = read_arrays(self.path)
        except (OSError, ValueError):
            meta, arrays = {}, {}
        found, vectors, flagged = meta.get("keys"), arrays.get("vectors"), meta.get("japanese")
        if (
            meta.get("model") == self.model
            and isinstance(found, list)
            and isinstance(flagged, list)
            and vectors is not None
            and len(found) == len(vectors)
        ):
            keys, rows, japanese = list(found), [np.array(vectors, np.float32)], set(flagged)
        for record_keys, record_vectors, record_japanese in self._records():
            keys += record_keys
            rows.append(record_vectors)
            japanese.update(k for k, ja in zip(record_keys, record_japanese, strict=True) if ja)
        if not keys:
            return None
        return keys, np.vstack(rows), japanese

    def save(
        self, keys: Sequence[str], vectors: Matrix, japanese: Sequence[bool], whole: Callable[[], Passages]
    ) -> None:
        """Append ``keys`` (new since the last save) to the journal, or rewrite the whole file from
        ``whole()`` (everything held) when the journal would outgrow it. Raises ``OSError``."""
        if not keys:
            return
        record = _record(self.model, keys, vectors, japanese)
        if _size(self.journal) + len(record) > _size(self.path):
            all_keys, all_vectors, all_japanese = whole()
            meta = {"model": self.model, "keys": all_keys, "japanese": sorted(all_japanese)}
            write_arrays(self.path, meta, {"vectors": all_vectors})
            self.written += _size(self.path)
            self.journal.unlink(missing_ok=True)
            return
        private_folder(self.journal.parent)
        with open(os.open(self.journal, os.O_CREAT | os.O_WRONLY | os.O_APPEND, 0o600), "ab") as out:
            out.write(record)
        self.written += len(record)

    def _records(self) -> list[tuple[list[str], Matrix, list[bool]]]:
        """The journal's whole records of ``model``; a record cut short is cut off the file."""
        try:
            data = self.journal.read_bytes()
        except OSError:
            return []
        out: list[tuple[list[str], Matrix, list[bool]]] = []
        at = 0
        while at < len(data):
            parsed = _parse(data, at)
            if parsed is None:  # cut short or damaged: what follows cannot be trusted
                _truncate(self.journal, at)
                break
            at, (model, keys, vectors, japanese) = parsed
            if model == self.model:
                out.append((keys, vectors, japanese))
        return out


def _record(model: str, keys: Sequence[str], vectors: Matrix, japanese: Sequence[bool]) -> bytes:
    header = json.dumps(
        {
            "model": model,
            "keys": list(keys),
            "japanese": [bool(j) for j in japanese],
            "dim": vectors.shape[1],
        },
        ensure_ascii=False,
    ).encode()
    return _LENGTH.pack(len(header)) + header + np.ascontiguousarray(vectors, np.float32).tobytes()


def _parse(data: bytes, at: int) -> tuple[int, tuple[str, list[str], Matrix, list[bool]]] | None:
    """The record at ``at``: (where the next one starts, its fields); None when cut short or damaged."""
    if at + _LENGTH.size > len(data):
        return None
    (length,) = _LENGTH.unpack_from(data, at)
    start = at + _LENGTH.size + length
    try:
        head = json.loads(data[at + _LENGTH.size : start])
        keys, japanese, dim, model = head["keys"], head["japanese"], int(head["dim"]), str(head["model"])
    except (ValueError, KeyError, TypeError):
        return None
    end = start + len(keys) * dim * 4
    if end > len(data) or len(japanese) != len(keys):
        return None
    vectors = np.frombuffer(data, np.float32, len(keys) * dim, start).reshape(len(keys), dim).copy()
    return end, (model, [str(k) for k in keys], vectors, [bool(j) for j in japanese])


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _truncate(path: Path, size: int) -> None:
    with contextlib.suppress(OSError):  # unwritable: the next rewrite replaces the journal anyway
        os.truncate(path, size)


def copy_whole(source: Path, target: Path) -> bool:
    """Write at ``target`` one whole file (no journal) of what ``source`` and its journal hold — the
    form a server of an older version reads (``bench hook --baseline``); False when there is nothing."""
    try:
        model = read_arrays(source)[0].get("model")
    except (OSError, ValueError):
        return False
    found = PassageFile(source, str(model)).load()
    if found is None:
        return False
    keys, vectors, japanese = found
    latest = {key: row for row, key in enumerate(keys)}  # a key in the journal twice: its last row
    meta = {"model": model, "keys": list(latest), "japanese": sorted(japanese)}
    write_arrays(target, meta, {"vectors": vectors[list(latest.values())]})
    return True
