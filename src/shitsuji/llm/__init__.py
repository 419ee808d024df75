"""Language models behind one small protocol over the Anthropic Messages shape."""

from ._anthropic import AnthropicModel
from ._env import open_model
from ._model import Model, TextSink
from ._openai import OpenAICompatibleModel
from ._scripted import ScriptedModel
from ._types import (
    STOP_REASONS,
    Block,
    Message,
    ModelRequest,
    ModelResponse,
    StopReason,
    Usage,
    text_response,
    tool_use_response,
)

__all__ = [
    "STOP_REASONS",
    "AnthropicModel",
    "Block",
    "Message",
    "Model",
    "ModelRequest",
    "ModelResponse",
    "OpenAICompatibleModel",
    "ScriptedModel",
    "StopReason",
    "TextSink",
    "Usage",
    "open_model",
    "text_response",
    "tool_use_response",
]
