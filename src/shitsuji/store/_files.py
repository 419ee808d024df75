"""Files the product creates are its owner's alone: 0600 files, a 0700 folder it made.

The database holds password hashes and private memories. SQLite creates its WAL and shared-memory
files with the database file's own mode, so creating the file 0600 before SQLite opens it covers
all three; a folder shitsuji creates (the data folder, a snapshot's) is 0700, while a folder that
already exists (``--db /tmp/x.db``) is left as its owner made it.
"""

from __future__ import annotations

import os
from pathlib import Path

FILE_MODE = 0o600
FOLDER_MODE = 0o700


def private_folder(folder: Path) -> None:
    """Create ``folder`` (and missing parents) as 0700; an existing folder is left alone."""
    missing = []
    for part in [folder, *folder.parents]:
        if part.exists():
            break
        missing.append(part)
    folder.mkdir(parents=True, exist_ok=True)
    for part in missing:
        os.chmod(part, FOLDER_MODE)


def private_file(path: str | Path) -> Path:
    """Make sure ``path`` exists and is 0600 (its folder is made private if shitsuji creates it)."""
    target = Path(path).expanduser()
    private_folder(target.parent)
    fd = os.open(target, os.O_CREAT | os.O_RDWR, FILE_MODE)
    os.close(fd)
    os.chmod(target, FILE_MODE)
    for companion in (f"{target}-wal", f"{target}-shm"):
        if os.path.exists(companion):
            os.chmod(companion, FILE_MODE)
    return target
