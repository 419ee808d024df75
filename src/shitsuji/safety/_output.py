"""The output sanitizer: what a person reads, and what becomes a memory, carries no secret.

Replies, tool results shown to people and every memory write pass ``sanitize``. It masks
the secrets of ``_secrets`` and, since a memory must never keep one either, card numbers
and My Numbers. Masking is idempotent and leaves text without findings unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass

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
