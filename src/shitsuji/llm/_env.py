"""Which chat model endpoint to use, as data the edge (CLI, web start-up) fills in once.

Nothing here reads the environment: ``Settings.from_env`` in ``shitsuji.config`` does,
and hands an ``Endpoint`` down. ``open_model`` turns it into an adapter.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import ModelRequestError
from ._capabilities import CapabilityTable
from ._model import Model

MAIN_MODEL = "claude-sonnet-4-6"
CHEAP_MODEL = "claude-haiku-4-5"  # routing, summaries, extraction
NO_ENDPOINT = (
    "no model endpoint: set ANTHROPIC_API_KEY (Claude) or SHITSUJI_MODEL_URL (an OpenAI-compatible server)"
)


@dataclass(frozen=True, slots=True)
class Endpoint:
    """Where the chat model answers: Claude (key or token, optional base URL) or an OpenAI-compatible URL."""

    anthropic_api_key: str | None = None
    anthropic_auth_token: str | None = None
    anthropic_base_url: str | None = None
    openai_url: str | None = None
    openai_key: str | None = None

    @property
    def configured(self) -> bool:
        return bool(
            self.anthropic_api_key or self.anthropic_auth_token or self.anthropic_base_url or self.openai_url
        )

    def __repr__(self) -> str:  # never print keys
        where = self.anthropic_base_url or self.openai_url or ("anthropic" if self.configured else "none")
        return f"Endpoint({where})"


def open_model(endpoint: Endpoint, capabilities: CapabilityTable | None = None) -> Model:
    """Claude when a key, token or base URL is given, else the OpenAI-compatible server, else a clear error.

    ``capabilities``: the model table (the configuration's ``[models.*]`` rows over the built-in ones).
    Each provider's SDK is imported only when it is the one chosen (each takes seconds on a busy
    machine), and none when nothing is configured: the error comes at once.
    """
    if endpoint.anthropic_api_key or endpoint.anthropic_auth_token:
        from ._anthropic import AnthropicModel

        return AnthropicModel(
            api_key=endpoint.anthropic_api_key,
            auth_token=endpoint.anthropic_auth_token,
            base_url=endpoint.anthropic_base_url,
            capabilities=capabilities,
        )
    if endpoint.anthropic_base_url:  # a compatible gateway that needs no key
        from ._anthropic import AnthropicModel

        return AnthropicModel(
            api_key="not-needed", base_url=endpoint.anthropic_base_url, capabilities=capabilities
        )
    if endpoint.openai_url:
        from ._openai import OpenAICompatibleModel

        return OpenAICompatibleModel(base_url=endpoint.openai_url, api_key=endpoint.openai_key)
    raise ModelRequestError(NO_ENDPOINT)
