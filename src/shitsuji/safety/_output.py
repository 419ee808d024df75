"""The output sanitizer: what a person reads, and what becomes a memory, carries no secret.

Replies, tool results shown to people and every memory write pass ``sanitize``. It masks
the secrets of ``_secrets`` and, since a memory must never keep one either, card numbers
and My Numbers. Masking is idempotent and leaves text without findings unchanged.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Final

from ._findings import Finding, mask, non_overlapping
from ._pii import find_pii
from ._secrets import find_secrets


@dataclass(frozen=True, slots=True)
class Sanitized:
    """``text`` with every finding masked; ``findings`` refer to the original text."""

    text: str
    findings: tuple[Finding, ...]

    @property
    def changed(self) -> bool:
        return bool(self.findings)

    @property
    def kinds(self) -> list[str]:
        return sorted({f.kind for f in self.findings})


def find_sensitive(text: str) -> list[Finding]:
    """Secrets, card numbers and My Numbers in ``text``, without overlaps."""
    return non_overlapping([*find_secrets(text), *find_pii(text, ("credit_card", "my_number"))])


def sanitize(text: str) -> Sanitized:
    """Mask keys, tokens, private keys, passwords, home paths, card numbers and My Numbers."""
    findings = find_sensitive(text)
    return Sanitized(mask(text, findings), tuple(findings))


_TOKEN_CHARS: Final = re.compile(r"[A-Za-z0-9_\-/+=.:@%~\\]+\Z")


class StreamSanitizer:
    """``sanitize`` for text that arrives in pieces (a streamed reply): what ``feed`` returns is final.

    The last ``HOLD`` characters, any run of key-like characters at the end, and any
    finding still open (a private key block without its END line) are held back until
    more text or ``flush`` shows whether they are a secret. The characters already sent
    stay as context, so ``password:`` in one piece and the password in the next is still
    caught.
    """

    HOLD: Final = 40  # longer than any secret written with spaces (a card number: 23 characters)

    def __init__(self) -> None:
        self._context = ""  # already sent (as it was, unmasked): context for the next matches
        self._pending = ""

    def feed(self, chunk: str) -> str:
        self._pending += chunk
        return self._emit(final=False)

    def flush(self) -> str:
        return self._emit(final=True)

    def _emit(self, *, final: bool) -> str:
        text = self._context + self._pending
        offset = len(self._context)
        findings = [f for f in find_sensitive(text) if f.end > offset]
        cut = len(text) if final else self._safe_cut(text, offset, findings)
        out = mask(
            text[offset:cut],
            [
                replace(f, start=max(f.start, offset) - offset, end=f.end - offset)
                for f in findings
                if f.end <= cut
            ],
        )
        self._context = text[max(0, cut - self.HOLD) : cut]
        self._pending = text[cut:]
        return out

    def _safe_cut(self, text: str, offset: int, findings: list[Finding]) -> int:
        cut = max(offset, len(text) - self.HOLD)
        run = _TOKEN_CHARS.search(text, offset, cut)
        if run is not None:
            cut = run.start()
        for found in sorted(findings, key=lambda f: f.start):
            if found.start < cut < found.end:
                cut = max(offset, found.start)
        return cut
