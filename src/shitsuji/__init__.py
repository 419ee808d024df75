"""shitsuji (執事): a runtime for LLM agents that act safely and remember."""

from .config import Settings, open_memory
from .errors import ShitsujiError
from .memory import Hit, Memory, MemoryEngine, RememberResult

__version__ = "0.1.0"

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
