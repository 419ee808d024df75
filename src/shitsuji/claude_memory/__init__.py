"""shitsuji as the storage behind Claude's memory tool, for applications built on the Anthropic SDK.

Importing this loads the ``anthropic`` SDK (about a second), so nothing else in shitsuji imports it.
"""

from ._tool import PATH_KEY, ROOT, ShitsujiMemoryTool, household_scopes

__all__ = ["PATH_KEY", "ROOT", "ShitsujiMemoryTool", "household_scopes"]
