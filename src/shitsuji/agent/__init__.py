"""The agent engine: tools, proposals, channel policies and the tool-use loop."""

from ._tools import Effect, Tool, Toolbox, ToolContext, ToolInputError, ToolOutput, tool

__all__ = ["Effect", "Tool", "ToolContext", "ToolInputError", "ToolOutput", "Toolbox", "tool"]
