"""shitsuji (執事): a runtime for LLM agents that act safely and remember.

The names below load on first use, so ``import shitsuji.<module>`` costs only that module:
the prompt hook's client asks a running hook server before it imports numpy at all.
"""

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._open import open_memory
    from .config import Settings
    from .errors import ShitsujiError
    from .memory import Hit, Memory, MemoryEngine, RememberResult

__version__ = "0.1.0"

_HOMES = {
    "Settings": "config",
    "open_memory": "_open",
    "ShitsujiError": "errors",
    "Hit": "memory",
    "Memory": "memory",
    "MemoryEngine": "memory",
    "RememberResult": "memory",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib import import_module

    return getattr(import_module(f".{home}", __name__), name)


__all__ = [
    "Hit",
    "Memory",
    "MemoryEngine",
    "RememberResult",
    "Settings",
    "ShitsujiError",
    "__version__",
    "open_memory",
]
