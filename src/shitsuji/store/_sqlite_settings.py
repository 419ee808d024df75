"""The page-reading settings of every SQLite connection a ``Database`` opens: memory-mapped reads,
the page cache's size, temporary tables in memory.

Why: recall reads ~100 candidate rows scattered over the file per query. With SQLite's defaults
(no memory map, a 2 MB page cache) each page is copied out of the OS page cache by a ``read()``
call into SQLite's own cache, which holds only ~500 pages of 4 KB and turns over on every recall of
a large store. Mapping the file lets SQLite read pages where the OS keeps them (no copy, no system
call); the measured effect is in docs/benchmarks.md ("sq25").

Safety of the memory map, per platform (SQLite's own notes: https://sqlite.org/mmap.html):

- **Address space, not memory**: the map reserves addresses; the pages it touches are the OS page
  cache's (shared, reclaimable, the same pages ``read()`` would copy from). On a 64-bit process the
  cap below is a small part of the address space. A **32-bit process** has 2-4 GB in all, shared with
  the heap and the libraries: it gets a small map (``MMAP_32BIT``) so that a large one cannot fail
  other allocations. A machine with **little memory** gets at most 1/8 of its RAM mapped (the pages
  stay reclaimable, but a map as large as the RAM would make RSS read like a leak). SQLite also caps
  the map at its compile-time ``SQLITE_MAX_MMAP_SIZE`` (2 GB on common builds; 0 — no map — on
  OpenBSD, whose file cache is not unified): reading the PRAGMA back gives what is in effect.
- **An I/O error under the map** (a disk pulled out, a file truncated by another program) reaches
  the process as SIGBUS instead of an error SQLite could report. The database is never damaged by
  it (writes do not go through the map: ``PRAGMA mmap_size`` maps for reading only), but the
  process ends. The same disk failure under ``read()`` would have failed the statement.
- **Windows** cannot shrink a mapped file: a ``VACUUM`` that would shorten it leaves the free pages
  at the end, reused as the file grows again (nothing is lost).
- **A network file system**: the database is in WAL mode, which needs the shared-memory index
  beside the file on the same host; SQLite does not support WAL over NFS/SMB with several hosts
  at all, so the memory map adds no new limit there. Keep the file on a local disk (README,
  "Configuration").

``cache_size`` is heap memory of the connection (one per ``Database``: per file and process), so it
is capped by RAM as well; ``temp_store = MEMORY`` keeps the temporary b-trees of a sort or a
``DISTINCT`` that no index serves in memory instead of a temporary file.
"""

from __future__ import annotations

import os
import sqlite3
import sys

__all__ = ["CACHE_KB", "MMAP_32BIT", "MMAP_BYTES", "TEMP_STORE", "apply_settings", "settings"]

#: the memory map of a 64-bit process with RAM to spare (a cap: SQLite maps no more than the file)
MMAP_BYTES = 1 << 30
#: the memory map of a 32-bit process (its address space is 2-4 GB in all)
MMAP_32BIT = 32 << 20
#: SQLite's page cache per connection, in KiB (SQLite's default is 2,000 KiB)
CACHE_KB = 16 << 10
#: ``PRAGMA temp_store``: 2 is MEMORY
TEMP_STORE = 2


def _ram_bytes() -> int | None:
    """Physical memory, or None where the OS does not say (then no cap by RAM)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):  # Windows has no sysconf
        return None


def settings(*, bits64: bool | None = None, ram: int | None = -1) -> dict[str, int]:
    """The PRAGMAs each connection is given on this host: ``bits64`` / ``ram`` stand for this
    process's (a 64-bit interpreter, physical memory; ``ram=None``: not known)."""
    wide = sys.maxsize > 2**32 if bits64 is None else bits64
    memory = _ram_bytes() if ram == -1 else ram
    mmap_bytes = MMAP_BYTES if wide else MMAP_32BIT
    cache_kb = CACHE_KB
    if memory is not None:
        mmap_bytes = min(mmap_bytes, memory // 8)
        cache_kb = max(2_000, min(cache_kb, memory // 64 // 1024))  # never below SQLite's default
    return {"mmap_size": mmap_bytes, "cache_size": -cache_kb, "temp_store": TEMP_STORE}


def apply_settings(conn: sqlite3.Connection) -> None:
    """Give ``conn`` this host's settings (integers of our own: nothing a user typed is pasted)."""
    for name, value in settings().items():
        conn.execute(f"PRAGMA {name} = {int(value)}")
