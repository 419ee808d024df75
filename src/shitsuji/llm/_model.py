"""The model seam: one async method from a request to a response."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, runtime_checkable

from ._types import ModelRequest, ModelResponse

TextSink = Callable[[str], None]


@runtime_checkable
class Model(Protocol):
    """Anything that answers a Messages-shaped request: a provider adapter or a script."""

    async def respond(self, request: ModelRequest, *, on_text: TextSink | None = None) -> ModelResponse:
        """Answer one request; raise ``ModelError`` subclasses on failure.

        With ``on_text``, text is handed over as it arrives (streaming where the
        provider can), and the complete response is still returned at the end.
        """
        ...
