"""Package exports that load on first use (PEP 562), so that importing a package is cheap.

The command line imports every command's module to list them; a command then pays only for
what it runs. ``lazy_exports`` builds the ``__getattr__`` a package's ``__init__`` assigns:
each public name maps to the private module that defines it.
"""

from __future__ import annotations

from importlib import import_module

TYPE_CHECKING = False  # typing is not imported at run time: every hook process imports this module
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any


def lazy_exports(package: str, homes: Mapping[str, str]) -> Callable[[str], Any]:
    """``__getattr__`` for ``package``: ``homes`` maps an exported name to its module (``"._store"``)."""

    def __getattr__(name: str) -> Any:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(import_module(home, package), name)

    return __getattr__
