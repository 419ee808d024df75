"""The agent engine: tools, proposals, channel policies, the tool-use loop and the conversation service."""

from ._assistant import Assistant, ContextStep, History, RoutedStep, check_message, with_user_text
from ._claims import Busy, Claim, TurnClaims
from ._conversations import Conversation, Conversations, model_messages, untold_decisions
from ._loop import AnswerStep, Mode, ModelStep, ProposalStep, Step, ToolStep, run_turn
from ._modes import DEFAULT_MODES, load_modes, mode_named, route
from ._notes import ModelNotes
from ._policy import DEFAULT_POLICIES, ChannelPolicy, policy_for
from ._prompt import PERSONA, select_memories, system_blocks
from ._proposals import Decision, Proposal, Proposals, Status, arguments_hash
from ._schema import AGENT_SCHEMA
from ._segment_tools import SEGMENT_TOOLS, HasSegments, list_segments, load_segment
from ._service import (
    KEEP,
    ChatService,
    EffectShown,
    Failed,
    Finished,
    ModeChosen,
    ModelNotConfigured,
    ProposalMade,
    Started,
    TextDelta,
    ToolsRunning,
    Turn,
    TurnEvent,
)
from ._tools import Effect, NamesRows, Tool, Toolbox, ToolContext, ToolInputError, ToolOutput, UiEffect, tool

__all__ = [
    "AGENT_SCHEMA",
    "DEFAULT_MODES",
    "DEFAULT_POLICIES",
    "KEEP",
    "PERSONA",
    "SEGMENT_TOOLS",
    "AnswerStep",
    "Assistant",
    "Busy",
    "ChannelPolicy",
    "ChatService",
    "Claim",
    "ContextStep",
    "Conversation",
    "Conversations",
    "Decision",
    "Effect",
    "EffectShown",
    "Failed",
    "Finished",
    "HasSegments",
    "History",
    "Mode",
    "ModeChosen",
    "ModelNotConfigured",
    "ModelNotes",
    "ModelStep",
    "NamesRows",
    "Proposal",
    "ProposalMade",
    "ProposalStep",
    "Proposals",
    "RoutedStep",
    "Started",
    "Status",
    "Step",
    "TextDelta",
    "Tool",
    "ToolContext",
    "ToolInputError",
    "ToolOutput",
    "ToolStep",
    "Toolbox",
    "ToolsRunning",
    "Turn",
    "TurnClaims",
    "TurnEvent",
    "UiEffect",
    "arguments_hash",
    "check_message",
    "list_segments",
    "load_modes",
    "load_segment",
    "mode_named",
    "model_messages",
    "policy_for",
    "route",
    "run_turn",
    "select_memories",
    "system_blocks",
    "tool",
    "untold_decisions",
    "with_user_text",
]
