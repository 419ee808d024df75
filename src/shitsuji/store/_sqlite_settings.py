"""The page-reading settings of every SQLite connection a ``Database`` opens: memory-mapped reads.

Why: recall reads ~100 candidate rows scattered over the file per query. With SQLite's defaults
(no memory map, a 2 MB page cache) each page is copied out of the OS page cache by a ``read()``
call into SQLite's own cache, which holds only ~500 pages of 4 KB and turns over on every recall of
a large store. Mapping the file lets SQLite read pages where the OS keeps them (no copy, no system
call): recall's candidate-row read took 0.77-0.82× the CPU at 100k memories (docs/benchmarks.md, "sq25").

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

Measured and **not** set (docs/benchmarks.md, "sq25"): a page cache of 16 MB instead of SQLite's
2 MB (``cache_size``) read recall's candidate rows no faster (2.03-2.07 against 2.05-2.09 ms CPU at
100k: ~100 random rows over a 470 MB file hit any cache of that size a few times in a hundred) and
costs heap per connection; ``temp_store = MEMORY`` has nothing to act on — recall's sorts are of a
few hundred rows, which SQLite sorts in memory anyway.
"""

from __future__ import annotations

import os
import sqlite3
import sys

__all__ = ["MMAP_32BIT", "MMAP_BYTES", "apply_settings", "settings"]

#: the memory map of a 64-bit process with RAM to spare (a cap: SQLite maps no more than the file).
#: The gain follows the share of the file mapped, and so does the process's RSS: the kernel counts the
#: mapped pages a process has touched (and their neighbours it maps on each fault) as its own, file
#: pages that stay reclaimable. At 100k memories (a 470 MB file) 256 MB read recall's candidate rows
#: in 0.77-0.82× the CPU, 2 GB 0.76-0.77×; at 1M (4.4 GB) 256 MB 0.98-0.99×, 2 GB 0.90-0.92× — but 300 recalls
#: there left 951 MB of the file in the RSS with 2 GB mapped, 148 MB with 256 MB (docs/benchmarks.md,
#: "sq25"). 256 MB: a household's file whole, a large store's gain nearly whole, RSS bounded.
MMAP_BYTES = 256 << 20
#: the memory map of a 32-bit process (its address space is 2-4 GB in all)
MMAP_32BIT = 32 << 20


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
    if memory is not None:
        mmap_bytes = min(mmap_bytes, memory // 8)
    return {"mmap_size": mmap_bytes}


def apply_settings(conn: sqlite3.Connection) -> None:
    """Give ``conn`` this host's settings (integers of our own: nothing a user typed is pasted)."""
    for name, value in settings().items():
        conn.execute(f"PRAGMA {name} = {int(value)}")
