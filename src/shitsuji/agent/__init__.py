"""The agent engine: tools, proposals, channel policies and the tool-use loop."""

from ._assistant import Assistant, ContextStep, RoutedStep, check_message, decision_note, with_user_text
from ._conversations import Conversation, Conversations, untold_decisions
from ._followup import enqueue_exchange, env_set, extraction_queue
from ._loop import AnswerStep, Mode, ModelStep, ProposalStep, Step, ToolStep, run_turn
from ._modes import DEFAULT_MODES, configured_modes, load_modes, mode_named, route, router_model
from ._policy import DEFAULT_POLICIES, ChannelPolicy, policy_for
from ._prompt import PERSONA, select_memories, system_blocks
from ._proposals import Decision, Proposal, Proposals, Status, arguments_hash
from ._segment_tools import SEGMENT_TOOLS, list_segments, load_segment, open_panel
from ._tools import Effect, Tool, Toolbox, ToolContext, ToolInputError, ToolOutput, tool

__all__ = [
    "DEFAULT_MODES",
    "DEFAULT_POLICIES",
    "PERSONA",
    "SEGMENT_TOOLS",
    "AnswerStep",
    "Assistant",
    "ChannelPolicy",
    "ContextStep",
    "Conversation",
    "Conversations",
    "Decision",
    "Effect",
    "Mode",
    "ModelStep",
    "Proposal",
    "ProposalStep",
    "Proposals",
    "RoutedStep",
    "Status",
    "Step",
    "Tool",
    "ToolContext",
    "ToolInputError",
    "ToolOutput",
    "ToolStep",
    "Toolbox",
    "arguments_hash",
    "check_message",
    "configured_modes",
    "decision_note",
    "enqueue_exchange",
    "env_set",
    "extraction_queue",
    "list_segments",
    "load_modes",
    "load_segment",
    "mode_named",
    "open_panel",
    "policy_for",
    "route",
    "router_model",
    "run_turn",
    "select_memories",
    "system_blocks",
    "tool",
    "untold_decisions",
    "with_user_text",
]
