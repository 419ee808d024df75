"""Language models behind one small protocol over the Anthropic Messages shape.

The provider adapters (and their SDKs, ~1 s to import) load on first use, so code that
only needs the types — memory extraction, the prompt hook — stays quick to start.
"""

from typing import TYPE_CHECKING, Any

from ._env import CHEAP_MODEL, MAIN_MODEL, NO_ENDPOINT, Endpoint, open_model
from ._model import Model, TextSink
from ._probe import LocalServer, probe_local
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
    web_search_response,
)

__all__ = [
    "CHEAP_MODEL",
    "MAIN_MODEL",
    "NO_ENDPOINT",
    "STOP_REASONS",
    "AnthropicModel",
    "Block",
    "Endpoint",
    "LocalServer",
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
    "probe_local",
    "text_response",
    "tool_use_response",
    "web_search_response",
]

if TYPE_CHECKING:
    from ._anthropic import AnthropicModel
    from ._openai import OpenAICompatibleModel

_LAZY = {"AnthropicModel": "._anthropic", "OpenAICompatibleModel": "._openai"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        from importlib import import_module

        return getattr(import_module(_LAZY[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
