"""One wording for what a provider's HTTP status means to the person at the keyboard."""

from __future__ import annotations

from ..errors import ModelError, ModelRequestError, ModelUnavailableError


def status_error(where: str, status: int, message: str, tries: int) -> ModelError:
    """429 and 5xx (after the SDK's retries) mean "later"; anything else means the request itself is refused."""
    if status == 429 or status >= 500:
        return ModelUnavailableError(
            f"{where} is busy or failing (HTTP {status} after {tries} tries): try again later"
        )
    return ModelRequestError(f"{where} refused the request (HTTP {status}): {message}")
