"""Claude through the official ``anthropic`` SDK (direct API or Amazon Bedrock).

With ``on_text`` the response is streamed (SSE) and text is handed over as it arrives.
The SDK already retries 408/409/429/5xx/529 (overloaded) and connection errors with
exponential backoff, honouring ``retry-after``; we set how many times and how long to
wait, then turn what is left into ``ModelError``s that say what to do next.
The key, token and base URL come from the caller (``Endpoint``), never from the environment here.
"""

from __future__ import annotations

import logging
from typing import Any

import anthropic

from ..errors import ModelError, ModelRequestError, ModelUnavailableError
from ._capabilities import CapabilityTable
from ._errors import status_error
from ._model import TextSink
from ._shape import request_params
from ._types import STOP_REASONS, ModelRequest, ModelResponse, StopReason, Usage

log = logging.getLogger(__name__)

DEFAULT_TIMEOUT_S = 60.0
DEFAULT_RETRIES = 3


class AnthropicModel:
    """A ``Model`` over ``anthropic.AsyncAnthropic`` (or ``AsyncAnthropicBedrock`` with ``bedrock=True``)."""

    def __init__(
        self,
        *,
        api_key: str | None = None,
        auth_token: str | None = None,
        base_url: str | None = None,
        timeout: float = DEFAULT_TIMEOUT_S,
        max_retries: int = DEFAULT_RETRIES,
        bedrock: bool = False,
        capabilities: CapabilityTable | None = None,
    ) -> None:
        self._capabilities = capabilities or CapabilityTable()
        self._refused: dict[str, set[str]] = {}  # model -> tool versions the API said it lacks
        self._where = base_url or "the Anthropic API"
        self._client: Any
        if bedrock:
            self._where = "Amazon Bedrock"
            try:
                self._client = anthropic.AsyncAnthropicBedrock(timeout=timeout, max_retries=max_retries)
            except (ValueError, ImportError) as exc:  # no region, no credentials, no boto3
                raise ModelRequestError(f"cannot use Amazon Bedrock: {exc}") from exc
        else:
            if not (api_key or auth_token):
                raise ModelRequestError(
                    "no API key for Claude: set ANTHROPIC_API_KEY (or ANTHROPIC_BASE_URL for a compatible server)"
                )
            self._client = anthropic.AsyncAnthropic(
                api_key=api_key,
                auth_token=auth_token,
                base_url=base_url,
                timeout=timeout,
                max_retries=max_retries,
            )
        self._retries = max_retries

    async def respond(self, request: ModelRequest, *, on_text: TextSink | None = None) -> ModelResponse:
        refused = self._refused.setdefault(request.model, set())
        params = request_params(request, self._capabilities.for_model(request.model), refused=refused)
        try:
            return await self._send(params, on_text)
        except anthropic.BadRequestError as exc:
            version = _refused_version(params, exc.message)
            if version is None:
                raise status_error(self._where, exc.status_code, exc.message, self._retries + 1) from exc
        # the model lacks a tool version the table gave it: fall back to the next older one, once
        log.warning(
            "%s refused %s for %s; falling back to an older version", self._where, version, request.model
        )
        refused.add(version)
        params = request_params(request, self._capabilities.for_model(request.model), refused=refused)
        try:
            return await self._send(params, on_text)
        except anthropic.BadRequestError as exc:
            raise status_error(self._where, exc.status_code, exc.message, self._retries + 1) from exc

    async def _send(self, params: dict[str, Any], on_text: TextSink | None) -> ModelResponse:
        try:
            if on_text is None:
                message = await self._client.messages.create(**params)
            else:  # server-sent events: text deltas as they come, then the whole message
                async with self._client.messages.stream(**params) as stream:
                    async for text in stream.text_stream:
                        on_text(text)
                    message = await stream.get_final_message()
        except anthropic.APITimeoutError as exc:
            raise ModelUnavailableError(
                f"{self._where} did not answer in time ({self._retries + 1} tries); try again later"
            ) from exc
        except anthropic.APIConnectionError as exc:
            raise ModelUnavailableError(
                f"cannot reach {self._where} ({self._retries + 1} tries): check the network or ANTHROPIC_BASE_URL"
            ) from exc
        except anthropic.AuthenticationError as exc:
            raise ModelRequestError(f"{self._where} refused the API key: check ANTHROPIC_API_KEY") from exc
        except anthropic.BadRequestError:
            raise  # respond() decides: a refused tool version falls back, anything else is an error
        except anthropic.APIStatusError as exc:
            raise status_error(self._where, exc.status_code, exc.message, self._retries + 1) from exc
        return _response(message)


def _refused_version(params: dict[str, Any], message: str) -> str | None:
    """The server tool version a 400 names, when it is one we sent."""
    for tool in params.get("tools", ()):
        version = tool.get("type", "")
        if version.startswith(("web_search_", "web_fetch_")) and version in message:
            return str(version)
    return None


def _response(message: Any) -> ModelResponse:
    stop = message.stop_reason
    if stop not in STOP_REASONS:
        raise ModelError(f"the model stopped for an unknown reason: {stop!r}")
    usage = message.usage
    stop_reason: StopReason = stop
    return ModelResponse(
        content=[block.model_dump(mode="json", exclude_none=True) for block in message.content],
        stop_reason=stop_reason,
        usage=Usage(
            input_tokens=usage.input_tokens or 0,
            output_tokens=usage.output_tokens or 0,
            cache_read_input_tokens=getattr(usage, "cache_read_input_tokens", 0) or 0,
            cache_creation_input_tokens=getattr(usage, "cache_creation_input_tokens", 0) or 0,
        ),
        model=message.model,
    )
