"""Secrets that must never reach a person's screen or a memory: keys, tokens, passwords, home paths.

Provider keys are recognised by their published prefixes (``sk-ant-``, ``sk-proj-``,
``ghp_``, ``github_pat_``, ``AKIA``, ``xox?-``, ``AIza``); a bare 40-character AWS secret
key, a password after ``password:`` / ``パスワードは`` and a PIN (暗証番号) only next to the
words that name them, since such strings look like anything else on their own. A URL's
password is masked and its user and host kept; a home directory path keeps what follows
the user name (``/home/alice/notes.txt`` → ``~/notes.txt``), so a path stays useful
without naming the account.

``detect-secrets`` was evaluated and not used: see ``docs/benchmarks.md`` (security).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Final, Literal

from ._findings import Finding, inside_token

SecretKind = Literal[
    "anthropic_key",
    "openai_key",
    "github_token",
    "aws_access_key",
    "aws_secret_key",
    "slack_token",
    "google_key",
    "private_key",
    "url_password",
    "password",
    "home_path",
]

_B: Final = r"(?<![A-Za-z0-9_\-])"  # a token starts at a word edge
_E: Final = r"(?![A-Za-z0-9_\-])"

_PATTERNS: Final[tuple[tuple[SecretKind, re.Pattern[str]], ...]] = (
    ("anthropic_key", re.compile(rf"{_B}sk-ant-(?=[A-Za-z_\-]*[0-9])[A-Za-z0-9_\-]{{20,}}{_E}")),
    (
        "openai_key",
        re.compile(
            rf"{_B}sk-(?:(?:proj|svcacct|admin)-(?=[A-Za-z_\-]*[0-9])[A-Za-z0-9_\-]{{20,}}|[A-Za-z0-9]{{32,}}){_E}"
        ),
    ),
    ("github_token", re.compile(rf"{_B}(?:gh[pousr]_[A-Za-z0-9]{{30,}}|github_pat_[A-Za-z0-9_]{{22,}}){_E}")),
    ("aws_access_key", re.compile(r"(?<![A-Z0-9])(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}(?![A-Z0-9])")),
    ("slack_token", re.compile(rf"{_B}(?:xox[abposr]|xapp)-[A-Za-z0-9\-]{{10,}}{_E}")),
    ("google_key", re.compile(rf"{_B}AIza[0-9A-Za-z_\-]{{35}}{_E}")),
    (
        "private_key",
        re.compile(
            r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY-----(?:[\s\S]*?-----END[A-Z0-9 ]*PRIVATE KEY-----|[\s\S]*\Z)"
        ),
    ),
)
# A secret named by the words before it: the value is the group "v".
_NAMED: Final[tuple[tuple[SecretKind, re.Pattern[str]], ...]] = (
    (
        "aws_secret_key",
        re.compile(
            r"(?i:aws_?secret_?access_?key|secret_?access_?key|aws.{0,12}secret)[\"']?\s*[:=：]?\s*[\"']?"
            r"(?P<v>(?<![A-Za-z0-9/+])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=]))"
        ),
    ),
    ("url_password", re.compile(r"[a-zA-Z][a-zA-Z0-9+.\-]*://[^\s:/@]+:(?P<v>(?!\[redacted)[^\s@/]+)@")),
    (
        "password",
        re.compile(
            # after a colon or は/が any value; after "is" (or nothing) only one with a digit or symbol
            r"(?:(?i:\b(?:password|passwd|passcode|pwd|pin|api[_\-]?key|secret|token)\b)"
            r"(?:\s*[:=：]\s*|\s+(?:is\s+)?(?=\S*[0-9!#$%&*+?@^_~]))"
            r"|(?:パスワード|暗証番号|パスコード|合言葉)\s*(?:は|が|を|[:=：])\s*)"
            r"[\"'「『]?(?P<v>(?!\[redacted)[A-Za-z0-9!#$%&()*+\-./;<>?@^_`{|}~]{4,})"
        ),
    ),
)
_HOME: Final = re.compile(
    r"(?P<v>(?<![A-Za-z0-9_/\\.~])(?:/home/|/Users/|[A-Za-z]:\\Users\\)[^\s/\\:*?\"<>|]+)(?=[/\\]|[\s\"'`)\]」、。,]|\Z)"
)


def _spans(text: str) -> Iterator[Finding]:
    for kind, pattern in _PATTERNS:
        for m in pattern.finditer(text):
            yield Finding(kind, m.start(), m.end(), m.group())
    for kind, pattern in _NAMED:
        for m in pattern.finditer(text):
            yield Finding(kind, m.start("v"), m.end("v"), m.group("v"))


def find_secrets(text: str) -> list[Finding]:
    """Every secret span in ``text`` (may overlap; see ``non_overlapping``)."""
    found = list(_spans(text))
    found += [Finding("home_path", m.start("v"), m.end("v"), m.group("v"), "~") for m in _HOME.finditer(text)]
    return [f for f in found if not inside_token(text, f.start, f.end)]
