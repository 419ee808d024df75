"""Where shitsuji keeps its files by default, in a module light enough for the hook's client.

``config`` reads the settings; this only knows the defaults and imports nothing but the
standard library (``platformdirs`` on first use), so ``python -m shitsuji.hooks prompt``
can find a running hook server before it pays for numpy.
"""

from __future__ import annotations

from pathlib import Path


def default_db_path() -> Path:
    from platformdirs import user_data_dir  # imported late: the hook's start-up time counts

    return Path(user_data_dir("shitsuji", appauthor=False)) / "shitsuji.db"


def default_cache_dir() -> Path:
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("shitsuji", appauthor=False))
