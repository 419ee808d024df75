"""Language models behind one small protocol over the Anthropic Messages shape.

Every name loads on first use (PEP 562): the provider adapters (and their SDKs, ~1 s to
import) only when a model is opened, so code that needs a few types — the settings every
command reads, memory extraction, the prompt hook — stays quick to start.
"""

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

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
    from ._openai import OpenAICompatibleModel
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

__getattr__ = lazy_exports(
    __name__,
    {
        "AnthropicModel": "._anthropic",
        "CONSERVATIVE": "._capabilities",
        "Capabilities": "._capabilities",
        "CapabilityTable": "._capabilities",
        "DEFAULT_CAPABILITIES": "._capabilities",
        "DEPTHS": "._capabilities",
        "Depth": "._capabilities",
        "thinking_params": "._capabilities",
        "CHEAP_MODEL": "._env",
        "Endpoint": "._env",
        "MAIN_MODEL": "._env",
        "NO_ENDPOINT": "._env",
        "open_model": "._env",
        "LoopbackServer": "._fake_wire",
        "QuietHandler": "._fake_wire",
        "sse_events": "._fake_wire",
        "write_sse": "._fake_wire",
        "ImageRefused": "._images",
        "image_block": "._images",
        "Model": "._model",
        "TextSink": "._model",
        "OpenAICompatibleModel": "._openai",
        "LocalServer": "._probe",
        "probe_local": "._probe",
        "ScriptedModel": "._scripted",
        "request_params": "._shape",
        "web_tools": "._shape",
        "strict_schema": "._strict",
        "Block": "._types",
        "CacheTTL": "._types",
        "Message": "._types",
        "ModelRequest": "._types",
        "ModelResponse": "._types",
        "STOP_REASONS": "._types",
        "StopReason": "._types",
        "Usage": "._types",
        "WebTools": "._types",
        "text_response": "._types",
        "tool_use_response": "._types",
        "web_search_response": "._types",
    },
)
