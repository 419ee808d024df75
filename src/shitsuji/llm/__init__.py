"""Language models behind one small protocol over the Anthropic Messages shape.

The provider adapters (and their SDKs, ~1 s to import) load on first use, so code that
only needs the types — memory extraction, the prompt hook — stays quick to start.
"""

from typing import TYPE_CHECKING, Any

from ._capabilities import (
    CONSERVATIVE,
    DEFAULT_CAPABILITIES,
    DEPTHS,
    Capabilities,
    CapabilityTable,
    Depth,
    thinking_params,
)
from ._env import CHEAP_MODEL, MAIN_MODEL, NO_ENDPOINT, Endpoint, open_model
from ._fake_wire import LoopbackServer, QuietHandler, sse_events, write_sse
from ._images import ImageRefused, image_block
from ._model import Model, TextSink
from ._probe import LocalServer, probe_local
from ._scripted import ScriptedModel
from ._shape import request_params, web_tools
from ._strict import strict_schema
from ._types import (
    STOP_REASONS,
    Block,
    CacheTTL,
    Message,
    ModelRequest,
    ModelResponse,
    StopReason,
    Usage,
    WebTools,
    text_response,
    tool_use_response,
    web_search_response,
)

__all__ = [
    "CHEAP_MODEL",
    "CONSERVATIVE",
    "DEFAULT_CAPABILITIES",
    "DEPTHS",
    "MAIN_MODEL",
    "NO_ENDPOINT",
    "STOP_REASONS",
    "AnthropicModel",
    "Block",
    "CacheTTL",
    "Capabilities",
    "CapabilityTable",
    "Depth",
    "Endpoint",
    "ImageRefused",
    "LocalServer",
    "LoopbackServer",
    "Message",
    "Model",
    "ModelRequest",
    "ModelResponse",
    "OpenAICompatibleModel",
    "QuietHandler",
    "ScriptedModel",
    "StopReason",
    "TextSink",
    "Usage",
    "WebTools",
    "image_block",
    "open_model",
    "probe_local",
    "request_params",
    "sse_events",
    "strict_schema",
    "text_response",
    "thinking_params",
    "tool_use_response",
    "web_search_response",
    "web_tools",
    "write_sse",
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
