"""The agent engine: tools, proposals, channel policies and the tool-use loop."""

from ._loop import AnswerStep, Mode, ModelStep, ProposalStep, Step, ToolStep, run_turn
from ._policy import DEFAULT_POLICIES, ChannelPolicy, policy_for
from ._proposals import Decision, Proposal, Proposals, Status, arguments_hash
from ._tools import Effect, Tool, Toolbox, ToolContext, ToolInputError, ToolOutput, tool

__all__ = [
    "DEFAULT_POLICIES",
    "AnswerStep",
    "ChannelPolicy",
    "Decision",
    "Effect",
    "Mode",
    "ModelStep",
    "Proposal",
    "ProposalStep",
    "Proposals",
    "Status",
    "Step",
    "Tool",
    "ToolContext",
    "ToolInputError",
    "ToolOutput",
    "ToolStep",
    "Toolbox",
    "arguments_hash",
    "policy_for",
    "run_turn",
    "tool",
]
