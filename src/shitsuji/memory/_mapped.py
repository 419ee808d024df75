"""Arrays in one file that a fresh process maps instead of reading: a JSON header, then raw arrays.

A one-shot process (the prompt hook) cannot afford to decompress model weights or to
read every stored vector out of SQLite (~45 ms for 10,000 vectors); mapping a file costs
microseconds, and the operating system pages in only what a query touches. Files are
written to a temporary name and renamed, so a reader sees a whole file or none.

Layout: one line of JSON (``{"meta": …, "arrays": {name: [dtype, shape, offset]}}``),
padded so every array starts on a 64-byte boundary.
"""

from __future__ import annotations

import json
import mmap
import os
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from ..store._files import private_folder

ALIGN = 64
MAGIC = "shitsuji-arrays-1"
HUGE_MIN = 4 << 20  # mappings from this size ask for huge pages (numpy's own threshold for arrays)


def write_arrays(path: Path, meta: dict[str, Any], arrays: dict[str, npt.NDArray[Any]]) -> None:
    """Write ``arrays`` with ``meta`` atomically (temporary file, then rename)."""
    layout: dict[str, list[Any]] = {}
    offset = 0
    for name, array in arrays.items():
        layout[name] = [array.dtype.str, list(array.shape), offset]
        offset += -(-array.nbytes // ALIGN) * ALIGN
    header = json.dumps({"magic": MAGIC, "meta": meta, "arrays": layout}, ensure_ascii=False).encode() + b"\n"
    start = -(-len(header) // ALIGN) * ALIGN
    private_folder(path.parent)  # snapshots hold vectors of private memories: 0700 / 0600
    temporary = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        with open(os.open(temporary, os.O_CREAT | os.O_WRONLY | os.O_TRUNC, 0o600), "wb") as out:
            out.write(header.ljust(start, b" "))
            for array in arrays.values():
                # written from the array's own memory: a 200 MB matrix is not copied (twice) first
                contiguous = np.ascontiguousarray(array)
                out.write(contiguous.data)
                out.write(b"\0" * (-contiguous.nbytes % ALIGN))
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)


def read_arrays(path: Path) -> tuple[dict[str, Any], dict[str, npt.NDArray[Any]]]:
    """``(meta, arrays)`` of a file ``write_arrays`` wrote; arrays are read-only views of the mapping.

    Raises ``ValueError`` for a file that is not one (damaged or foreign), ``OSError`` when unreadable.
    """
    with open(path, "rb") as f:
        header = f.readline(1 << 24)
        size = os.fstat(f.fileno()).st_size
        mapped = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) if size else None
    if mapped is not None and size >= HUGE_MIN:
        _huge_pages(mapped)
    try:
        head = json.loads(header)
        if head.get("magic") != MAGIC:
            raise ValueError("not a shitsuji arrays file")
        start = -(-len(header) // ALIGN) * ALIGN
        arrays: dict[str, npt.NDArray[Any]] = {}
        for name, (dtype, shape, offset) in head["arrays"].items():
            count = int(np.prod(shape, dtype=np.int64))
            arrays[name] = np.frombuffer(
                mapped or b"", dtype=np.dtype(dtype), count=count, offset=start + offset
            ).reshape(shape)
        meta: dict[str, Any] = head["meta"]
    except (KeyError, TypeError, json.JSONDecodeError) as exc:
        raise ValueError(f"damaged arrays file {path}: {exc}") from exc
    return meta, arrays


def _huge_pages(mapped: mmap.mmap) -> None:
    """Ask the kernel to read the file into 2 MiB pages where it reads it for this mapping.

    A scan of a mapped 100k-vector snapshot (200 MB) was ~21 % slower than of the same
    vectors copied into the process: numpy puts a large array of its own on transparent huge
    pages (``AnonHugePages``), while a file read into the page cache in 4 KiB pieces is mapped
    4 KiB at a time (``FilePmdMapped`` 0 in ``/proc/<pid>/smaps``): 51,200 TLB entries to walk
    per query instead of 100 (docs/benchmarks.md, issue 23 fl23). With this advice the pages a
    query faults in come as 2 MiB folios; pages already cached in small pieces stay as they are.
    Linux only; elsewhere, or refused, nothing changes.
    """
    advice = getattr(mmap, "MADV_HUGEPAGE", None)
    if advice is None:
        return
    try:
        mapped.madvise(advice)
    except OSError:  # a kernel without transparent huge pages
        return
