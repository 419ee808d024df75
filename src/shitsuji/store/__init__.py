"""Database access: connections, write transactions and named migrations."""

from ._migrations import MIGRATIONS, SCHEMA_VERSION, Migration, migrate
from ._sqlite import connect, translate, write

__all__ = ["MIGRATIONS", "SCHEMA_VERSION", "Migration", "connect", "migrate", "translate", "write"]
