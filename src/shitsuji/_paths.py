"""Where shitsuji keeps its files by default, in a module light enough for the hook's client.

``config`` reads the settings; this only knows the defaults and imports nothing but the
standard library, so ``python -m shitsuji.hooks prompt`` can find a running hook server
before it pays for numpy. ``platformdirs`` decides the folders; on Linux, in the plain case
(an absolute ``$HOME``), the XDG rule it applies there is read here instead: importing
platformdirs costs the hook process about 20 ms of CPU per prompt (docs/benchmarks.md), and
a test holds the two answers equal.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # not typing's: the hook's client imports this module
if TYPE_CHECKING:
    from pathlib import Path

APP = "shitsuji"


def default_db_path() -> Path:
    from pathlib import Path

    return Path(default_data_folder()) / "shitsuji.db"


def default_cache_dir() -> Path:
    from pathlib import Path

    return Path(default_cache_folder())


def default_data_folder() -> str:
    """platformdirs' ``user_data_dir("shitsuji", appauthor=False)``."""
    found = _xdg_folder("XDG_DATA_HOME", "~/.local/share")
    if found is None:
        from platformdirs import user_data_dir  # imported late: the hook's start-up time counts

        found = user_data_dir(APP, appauthor=False)
    return found


def default_cache_folder() -> str:
    """platformdirs' ``user_cache_dir("shitsuji", appauthor=False)``."""
    found = _xdg_folder("XDG_CACHE_HOME", "~/.cache")
    if found is None:
        from platformdirs import user_cache_dir

        found = user_cache_dir(APP, appauthor=False)
    return found


def _xdg_folder(variable: str, default: str) -> str | None:
    """The app's folder by the XDG rule on Linux (``$variable`` when absolute, else ``default`` under
    ``$HOME``); None where platformdirs may decide otherwise (another system, Android, no absolute
    ``$HOME`` to expand)."""
    if sys.platform != "linux" or hasattr(sys, "getandroidapilevel") or "ANDROID_DATA" in os.environ:
        return None
    base = os.environ.get(variable, "")
    if not os.path.isabs(base):
        if not os.path.isabs(os.environ.get("HOME", "")):
            return None
        base = os.path.expanduser(default)
    return os.path.join(base, APP)
