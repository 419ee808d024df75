"""The chat model named by the environment."""

from __future__ import annotations

import os

from ..errors import ModelRequestError
from ._anthropic import AnthropicModel
from ._model import Model
from ._openai import OpenAICompatibleModel


def open_model() -> Model:
    """Claude when ANTHROPIC_API_KEY (or ANTHROPIC_BASE_URL) is set, else the server at SHITSUJI_MODEL_URL."""
    if os.environ.get("ANTHROPIC_API_KEY") or os.environ.get("ANTHROPIC_AUTH_TOKEN"):
        return AnthropicModel()
    if os.environ.get("ANTHROPIC_BASE_URL"):  # a compatible gateway that needs no key
        return AnthropicModel(api_key="not-needed")
    if os.environ.get("SHITSUJI_MODEL_URL"):
        return OpenAICompatibleModel()
    raise ModelRequestError(
        "no model endpoint: set ANTHROPIC_API_KEY (Claude) or SHITSUJI_MODEL_URL (an OpenAI-compatible server)"
    )
