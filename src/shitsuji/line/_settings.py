"""The LINE channel's settings: its secret and token from the LINE Developers console, the API base
URL and the push rate. Read from the environment once, at the edge (``config.Settings.from_env``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ..errors import UserInputError


@dataclass(frozen=True, slots=True)
class LineSettings:
    """The LINE channel's secret (checks webhook signatures) and access token (answers), both from the
    LINE Developers console; ``api_url`` points the SDK elsewhere (a local fake in tests)."""

    channel_secret: str
    channel_token: str
    api_url: str | None = None
    push_rate: float = 50.0  # pushes per second at most, below the Messaging API's limit

    def __repr__(self) -> str:  # never print the secrets
        return f"LineSettings(api_url={self.api_url!r}, push_rate={self.push_rate})"


def line_settings(env: Mapping[str, str]) -> LineSettings | None:
    """The LINE channel's settings from the environment (``config.Settings.from_env`` asks), or None."""
    secret = env.get("SHITSUJI_LINE_CHANNEL_SECRET") or ""
    token = env.get("SHITSUJI_LINE_CHANNEL_TOKEN") or ""
    if not secret and not token:
        return None
    if not secret or not token:
        missing = "SHITSUJI_LINE_CHANNEL_TOKEN" if secret else "SHITSUJI_LINE_CHANNEL_SECRET"
        raise UserInputError(f"the LINE channel needs both its secret and its token: set {missing} too")
    rate = env.get("SHITSUJI_LINE_PUSH_RATE")
    try:
        push_rate = float(rate) if rate else 50.0
    except ValueError:
        push_rate = 0.0
    if not push_rate > 0:
        raise UserInputError(f"SHITSUJI_LINE_PUSH_RATE must be a positive number, not {rate!r}")
    return LineSettings(secret, token, env.get("SHITSUJI_LINE_API_URL") or None, push_rate)
