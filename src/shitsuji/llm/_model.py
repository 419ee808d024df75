"""The model seam: one async method from a request to a response."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from ._types import ModelRequest, ModelResponse


@runtime_checkable
class Model(Protocol):
    """Anything that answers a Messages-shaped request: a provider adapter or a script."""

    async def respond(self, request: ModelRequest) -> ModelResponse:
        """Answer one request; raise ``ModelError`` subclasses on failure."""
        ...
