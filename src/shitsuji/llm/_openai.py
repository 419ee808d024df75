"""Any OpenAI-compatible server (Ollama, vLLM, llama.cpp, …) through the ``openai`` SDK.

The loop speaks the Anthropic Messages shape; this adapter translates both ways:
system blocks → one system message, ``tool_use`` blocks ↔ ``tool_calls``,
``tool_result`` blocks → ``tool`` messages, finish reasons → stop reasons. Server tools
(web search) have no equivalent and are left out. Tool arguments that are not valid JSON
reach the loop as a string, which tool validation turns into a clear error result.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from typing import Any

import openai

from ..errors import ModelError, ModelRequestError, ModelUnavailableError
from ._errors import status_error
from ._model import TextSink
from ._types import Block, Message, ModelRequest, ModelResponse, StopReason, Usage

log = logging.getLogger(__name__)

_FINISH: dict[str, StopReason] = {
    "stop": "end_turn",
    "tool_calls": "tool_use",
    "function_call": "tool_use",
    "length": "max_tokens",
    "content_filter": "refusal",
}


class OpenAICompatibleModel:
    """A ``Model`` over ``openai.AsyncOpenAI`` pointed at ``base_url`` (SHITSUJI_MODEL_URL, read at the edge)."""

    def __init__(
        self,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        timeout: float = 120.0,
        max_retries: int = 3,
    ) -> None:
        url = base_url
        if not url:
            raise ModelRequestError(
                "no model server: set SHITSUJI_MODEL_URL (e.g. http://127.0.0.1:11434/v1 for Ollama)"
            )
        self._where = url
        self._retries = max_retries
        self._client = openai.AsyncOpenAI(
            base_url=url,
            api_key=api_key or "not-needed",
            timeout=timeout,
            max_retries=max_retries,
        )

    async def respond(self, request: ModelRequest, *, on_text: TextSink | None = None) -> ModelResponse:
        params: dict[str, Any] = {
            "model": request.model,
            "messages": to_openai_messages(request.system, request.messages),
            "max_tokens": request.max_tokens,
        }
        tools = [to_openai_tool(t) for t in request.tools if "input_schema" in t]
        if len(tools) < len(request.tools):
            log.info("server tools are not available on %s and were left out", self._where)
        if tools:
            params["tools"] = tools
        try:
            completion = await self._client.chat.completions.create(**params)
        except openai.APITimeoutError as exc:
            raise ModelUnavailableError(
                f"{self._where} did not answer in time ({self._retries + 1} tries)"
            ) from exc
        except openai.APIConnectionError as exc:
            raise ModelUnavailableError(
                f"cannot reach {self._where} ({self._retries + 1} tries): is the server running? check SHITSUJI_MODEL_URL"
            ) from exc
        except openai.APIStatusError as exc:
            raise status_error(self._where, exc.status_code, exc.message, self._retries + 1) from exc
        response = from_openai(completion)
        if on_text is not None and response.text:  # not streamed yet: the text arrives whole
            on_text(response.text)
        return response


def to_openai_tool(tool: Block) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": tool["name"],
            "description": tool.get("description", ""),
            "parameters": tool["input_schema"],
        },
    }


def to_openai_messages(system: Sequence[Block], messages: Sequence[Message]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    system_text = "\n\n".join(b.get("text", "") for b in system if b.get("type") == "text")
    if system_text:
        out.append({"role": "system", "content": system_text})
    for message in messages:
        content = message["content"]
        blocks: list[Block] = (
            [{"type": "text", "text": content}] if isinstance(content, str) else list(content)
        )
        if message["role"] == "assistant":
            text = "".join(b.get("text", "") for b in blocks if b.get("type") == "text")
            calls = [
                {
                    "id": b["id"],
                    "type": "function",
                    "function": {
                        "name": b["name"],
                        "arguments": json.dumps(b.get("input", {}), ensure_ascii=False),
                    },
                }
                for b in blocks
                if b.get("type") == "tool_use"
            ]
            entry: dict[str, Any] = {"role": "assistant", "content": text or None}
            if calls:
                entry["tool_calls"] = calls
            out.append(entry)
            continue
        texts: list[str] = []
        for b in blocks:  # tool results first, as OpenAI wants them right after the calls
            if b.get("type") == "tool_result":
                out.append({"role": "tool", "tool_call_id": b["tool_use_id"], "content": _result_text(b)})
            elif b.get("type") == "text":
                texts.append(b["text"])
        if texts:
            out.append({"role": "user", "content": "\n".join(texts)})
    return out


def _result_text(block: Block) -> str:
    content = block.get("content", "")
    text = content if isinstance(content, str) else "\n".join(c.get("text", "") for c in content)
    return f"ERROR: {text}" if block.get("is_error") else text


def from_openai(completion: Any) -> ModelResponse:
    if not completion.choices:
        raise ModelError("the model server returned no choices")
    choice = completion.choices[0]
    message = choice.message
    blocks: list[Block] = []
    if message.content:
        blocks.append({"type": "text", "text": message.content})
    for call in message.tool_calls or []:
        try:
            arguments: Any = json.loads(call.function.arguments or "{}")
        except json.JSONDecodeError:
            arguments = call.function.arguments  # the tool's validation reports it to the model
        blocks.append({"type": "tool_use", "id": call.id, "name": call.function.name, "input": arguments})
    stop = _FINISH.get(choice.finish_reason or "stop", "end_turn")
    if stop == "end_turn" and any(b["type"] == "tool_use" for b in blocks):
        stop = "tool_use"  # some servers say "stop" even when they call tools
    usage = completion.usage
    cached = getattr(getattr(usage, "prompt_tokens_details", None), "cached_tokens", 0) if usage else 0
    return ModelResponse(
        content=blocks,
        stop_reason=stop,
        usage=Usage(
            input_tokens=usage.prompt_tokens if usage else 0,
            output_tokens=usage.completion_tokens if usage else 0,
            cache_read_input_tokens=cached or 0,
        ),
        model=completion.model or "",
    )
