"""A model controlled by a script, for tests (ours and our users').

Give it a list of responses (used in order) or a function of the request; it records
every request it saw, so a test can check what was sent (tools, system blocks, history).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..errors import ModelError
from ._model import TextSink
from ._types import ModelRequest, ModelResponse

Script = Sequence[ModelResponse | Exception] | Callable[[ModelRequest], ModelResponse]


class ScriptedModel:
    def __init__(self, script: Script) -> None:
        self._script = script
        self._next = 0
        self.requests: list[ModelRequest] = []

    async def respond(self, request: ModelRequest, *, on_text: TextSink | None = None) -> ModelResponse:
        self.requests.append(request)
        response = self._next_response(request)
        if on_text is not None and response.text:
            on_text(response.text)
        return response

    def _next_response(self, request: ModelRequest) -> ModelResponse:
        if callable(self._script):
            return self._script(request)
        if self._next >= len(self._script):
            raise ModelError(f"the scripted model has no response left (it had {len(self._script)})")
        step = self._script[self._next]
        self._next += 1
        if isinstance(step, Exception):
            raise step
        return step
