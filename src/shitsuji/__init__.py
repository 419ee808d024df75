"""shitsuji (執事): a runtime for LLM agents that act safely and remember.

The names below load on first use, so ``import shitsuji.<module>`` costs only that module:
the prompt hook's client asks a running hook server before it imports numpy at all.
"""

from . import _blas  # noqa: F401  (first: OpenBLAS reads its setting when numpy loads it)
from ._lazy import lazy_exports

TYPE_CHECKING = False  # not typing's: importing typing costs every hook process ~5 ms of CPU

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


__getattr__ = lazy_exports(__name__, {name: f".{home}" for name, home in _HOMES.items()})


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
