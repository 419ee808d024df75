"""The agent engine: tools, proposals, channel policies and the tool-use loop."""

from ._proposals import Decision, Proposal, Proposals, Status, arguments_hash
from ._tools import Effect, Tool, Toolbox, ToolContext, ToolInputError, ToolOutput, tool

__all__ = [
    "Decision",
    "Effect",
    "Proposal",
    "Proposals",
    "Status",
    "Tool",
    "ToolContext",
    "ToolInputError",
    "ToolOutput",
    "Toolbox",
    "arguments_hash",
    "tool",
]
