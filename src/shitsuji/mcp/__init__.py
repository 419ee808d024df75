"""The MCP channel: shitsuji's memory as tools for coding agents, one project per server.

``project_root``/``project_scope`` map a working directory to its scope; the hook path
uses them too, so this package imports the MCP SDK (about half a second) only when a
server is actually built: ``build_server`` and ``serve`` load ``_server`` on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports
from ..memory._project import path_scope, project_root, project_scope

if TYPE_CHECKING:
    from ._server import ProjectMemory, build_server, serve

__all__ = ["ProjectMemory", "build_server", "path_scope", "project_root", "project_scope", "serve"]

__getattr__ = lazy_exports(__name__, dict.fromkeys(("ProjectMemory", "build_server", "serve"), "._server"))
