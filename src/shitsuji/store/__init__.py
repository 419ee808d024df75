"""Database access: connections, write transactions and named migrations (each package owns its set)."""

from ._migrations import PER_PACKAGE, Migration, Schema, migrate, ordered
from ._sqlite import BUSY_TIMEOUT_S, connect, translate, write

__all__ = [
    "BUSY_TIMEOUT_S",
    "PER_PACKAGE",
    "Migration",
    "Schema",
    "connect",
    "migrate",
    "ordered",
    "translate",
    "write",
]
