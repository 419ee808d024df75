"""Safety filters around the chat turn: checks on what comes in, a sanitizer on what goes out.

    InputFilter(policy).check(text, channel)  -> Checked(text, flags, untrusted)
                                                 or raises InputRejected (a UserInputError):
                                                 InputTooLong, SensitiveInput
    await InputFilter(policy).check_async(...) -> the same, with a cheap model's second opinion
    sanitize(text)                             -> Sanitized(text, findings)
    StreamSanitizer().feed(chunk) … .flush()   -> the same for a reply streamed in pieces

Detectors are plain functions over text (``find_pii``, ``find_secrets``,
``find_injections``) returning ``Finding`` spans, usable on their own.
"""

from ._findings import Finding, mask, non_overlapping
from ._injection import defang_markup, find_injections, neutralise
from ._input import (
    DEFAULT_ACTIONS,
    DEFAULT_LIMITS,
    Action,
    Checked,
    Flag,
    InputFilter,
    InputRejected,
    InputTooLong,
    Policy,
    SensitiveInput,
)
from ._judge import Judge, Verdict
from ._output import Sanitized, StreamSanitizer, find_sensitive, sanitize
from ._pii import PII_KINDS, PiiKind, find_pii, iban_ok, luhn_ok, my_number_ok
from ._secrets import SecretKind, find_secrets
from ._shapes import looks_outside, normalised, outside_signs

__all__ = [
    "DEFAULT_ACTIONS",
    "DEFAULT_LIMITS",
    "PII_KINDS",
    "Action",
    "Checked",
    "Finding",
    "Flag",
    "InputFilter",
    "InputRejected",
    "InputTooLong",
    "Judge",
    "PiiKind",
    "Policy",
    "Sanitized",
    "SecretKind",
    "SensitiveInput",
    "StreamSanitizer",
    "Verdict",
    "defang_markup",
    "find_injections",
    "find_pii",
    "find_secrets",
    "find_sensitive",
    "iban_ok",
    "looks_outside",
    "luhn_ok",
    "mask",
    "my_number_ok",
    "neutralise",
    "non_overlapping",
    "normalised",
    "outside_signs",
    "sanitize",
]
