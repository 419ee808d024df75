"""Database access: connections, write transactions and named migrations."""

from ._migrations import MIGRATIONS, SCHEMA_VERSION, Migration, migrate
from ._sqlite import BUSY_TIMEOUT_S, connect, translate, write

__all__ = [
    "BUSY_TIMEOUT_S",
    "MIGRATIONS",
    "SCHEMA_VERSION",
    "Migration",
    "connect",
    "migrate",
    "translate",
    "write",
]
