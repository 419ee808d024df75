"""Is a local OpenAI-compatible server (Ollama, vLLM, llama.cpp) answering? Offered when no endpoint is set.

Only loopback addresses are asked, once, with a short timeout: nothing leaves the machine
and start-up is not held up when nothing answers.
"""

from __future__ import annotations

import json
import urllib.request
from dataclasses import dataclass
from urllib.parse import urlsplit

LOCAL_SERVERS = ("http://127.0.0.1:11434/v1",)  # Ollama's usual address
LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})


@dataclass(frozen=True, slots=True)
class LocalServer:
    url: str
    models: tuple[str, ...]

    @property
    def hint(self) -> str:
        model = f" SHITSUJI_MODEL={self.models[0]}" if self.models else ""
        return f"SHITSUJI_MODEL_URL={self.url}{model} shitsuji serve"


def probe_local(urls: tuple[str, ...] = LOCAL_SERVERS, *, timeout_s: float = 0.3) -> LocalServer | None:
    """The first loopback server in ``urls`` whose ``/models`` answers, with the models it offers."""
    for url in urls:
        if urlsplit(url).hostname not in LOOPBACK:
            raise ValueError(f"only loopback servers are probed, not {url}")
        try:
            with urllib.request.urlopen(url.rstrip("/") + "/models", timeout=timeout_s) as response:
                body = json.loads(response.read(1_000_000) or b"{}")
        except (OSError, ValueError):
            continue
        data = body.get("data") if isinstance(body, dict) else None
        names = tuple(str(m["id"]) for m in data or [] if isinstance(m, dict) and "id" in m)
        return LocalServer(url, names)
    return None
