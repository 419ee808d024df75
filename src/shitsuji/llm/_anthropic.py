"""Claude through the official ``anthropic`` SDK (direct API or Amazon Bedrock).

With ``on_text`` the response is streamed (SSE) and text is handed over as it arrives.
The SDK already retries 408/409/429/5xx/529 (overloaded) and connection errors with
exponential backoff, honouring ``retry-after``; we set how many times and how long to
wait, then turn what is left into ``ModelError``s that say what to do next.
The key, token and base URL come from the caller (``Endpoint``), never from the environment here.
"""

from __future__ import annotations

from typing import Any

import anthropic

from ..errors import ModelError, ModelRequestError, ModelUnavailableError
from ._errors import status_error
from ._model import TextSink
from ._types import STOP_REASONS, ModelRequest, ModelResponse, StopReason, Usage

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
    ) -> None:
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
        try:
            if on_text is None:
                message = await self._client.messages.create(**_params(request))
            else:  # server-sent events: text deltas as they come, then the whole message
                async with self._client.messages.stream(**_params(request)) as stream:
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
        except anthropic.APIStatusError as exc:
            raise status_error(self._where, exc.status_code, exc.message, self._retries + 1) from exc
        return _response(message)


def _params(request: ModelRequest) -> dict[str, Any]:
    params: dict[str, Any] = {
        "model": request.model,
        "max_tokens": request.max_tokens,
        "messages": list(request.messages),
    }
    if request.system:
        params["system"] = list(request.system)
    if request.tools:
        params["tools"] = list(request.tools)
    if request.tool_choice is not None:
        params["tool_choice"] = request.tool_choice
    if request.thinking_budget:
        params["thinking"] = {"type": "enabled", "budget_tokens": request.thinking_budget}
    return params


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
