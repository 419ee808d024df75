"""The input filter: what a person sends is checked before it is stored or shown to a model.

``InputFilter(policy).check(text, channel)`` returns a ``Checked`` message or raises an
``InputRejected`` (a ``UserInputError``) with a message to show the person:

1. **Size**: each channel has a limit in characters (``InputTooLong`` past it).
2. **Invisible characters** (zero-width, bidi controls) are removed, lone surrogates become
   U+FFFD: they hide words from every check that follows and from the person reading.
3. **Personal data**: each kind has an action — ``block`` (``SensitiveInput``; nothing is
   stored), ``redact`` (the value is replaced by ``[redacted:kind]`` in ``Checked.text``,
   which is the only text the caller keeps) or ``allow`` (noted in the flags).
4. **Injection**: fake markup is defanged and each sentence holding an injection phrase is
   wrapped in ``<untrusted_data>``; ``Checked.untrusted`` tells the caller to treat the
   turn like outside text (no write without a card, no memory without confirmation).
   The conversation goes on: nothing is refused for this.

``check_async`` adds the optional second opinion of a cheap model (``Judge``) for long or
flagged input.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any, Final, Literal, get_args

from ..errors import UserInputError
from ._findings import mask, non_overlapping
from ._injection import WRAP_CLOSE, WRAP_OPEN, neutralise
from ._judge import Judge
from ._pii import PII_KINDS, PiiKind, find_pii
from ._shapes import outside_signs

Action = Literal["block", "redact", "allow"]
FlagAction = Literal["blocked", "redacted", "allowed", "removed", "neutralised", "judged", "untrusted"]

# The web API and the assistant already refuse more than 8,000 characters; LINE's own limit is 5,000.
DEFAULT_LIMITS: Final[Mapping[str, int]] = MappingProxyType({"app": 8000, "line": 5000})
DEFAULT_ACTIONS: Final[Mapping[PiiKind, Action]] = MappingProxyType(
    {
        "credit_card": "block",
        "my_number": "redact",
        "bank_account": "redact",
        "email": "allow",
        "phone": "allow",
    }
)
_LABELS: Final[dict[str, tuple[str, str]]] = {
    "credit_card": ("a credit card number", "クレジットカード番号"),
    "my_number": ("a My Number (individual number)", "マイナンバー（個人番号）"),
    "bank_account": ("a bank account number", "口座番号"),
    "email": ("an e-mail address", "メールアドレス"),
    "phone": ("a phone number", "電話番号"),
}
# Zero-width and bidi control characters; U+200D (zero-width joiner) only between letters,
# since emoji sequences (👨‍👩‍👧) need it.
_INVISIBLE: Final = re.compile(
    r"[\u200b\u200c\u200e\u200f\u2060-\u2064\ufeff\u202a-\u202e\u2066-\u2069\u061c]"
)
_LETTER_JOINER: Final = re.compile(r"(?<=[^\W\d_])\u200d|\u200d(?=[^\W\d_])")
_SURROGATE: Final = re.compile(r"[\ud800-\udfff]")


class InputRejected(UserInputError):
    """The message was not accepted; ``message_ja`` says the same in Japanese. Nothing was stored."""

    def __init__(self, message: str, message_ja: str) -> None:
        super().__init__(message)
        self.message_ja = message_ja


class InputTooLong(InputRejected):
    def __init__(self, size: int, limit: int, channel: str) -> None:
        super().__init__(
            f"the message is {size:,} characters; the limit here ({channel}) is {limit:,}: send it in parts",
            f"メッセージが{size:,}文字あります。ここ（{channel}）では{limit:,}文字までです。分けて送ってください",
        )
        self.size, self.limit, self.channel = size, limit, channel


class SensitiveInput(InputRejected):
    def __init__(self, kinds: list[str]) -> None:
        en = " and ".join(_LABELS[k][0] for k in kinds)
        ja = "・".join(_LABELS[k][1] for k in kinds)
        super().__init__(
            f"the message looks like it holds {en}; it was not sent or stored. Please leave it out",
            f"メッセージに{ja}が含まれているようです。送信も保存もしていません。その部分を除いて送ってください",
        )
        self.kinds = kinds


@dataclass(frozen=True, slots=True)
class Flag:
    """Something the filter found and what it did. ``detail`` never holds a redacted value."""

    kind: str
    action: FlagAction
    detail: str = ""


@dataclass(frozen=True, slots=True)
class Checked:
    """The message to store and send on (``text``), what was found, and whether to treat it as untrusted."""

    text: str
    flags: tuple[Flag, ...] = ()
    untrusted: bool = False


@dataclass(frozen=True, slots=True)
class Policy:
    """Size limits per channel (characters) and what to do with each kind of personal data."""

    limits: Mapping[str, int] = field(default_factory=lambda: dict(DEFAULT_LIMITS))
    default_limit: int = 8000
    actions: Mapping[PiiKind, Action] = field(default_factory=lambda: dict(DEFAULT_ACTIONS))
    judge: Judge | None = None
    judge_over: int = 1000  # with a judge, input this long is judged even when nothing was flagged

    def limit(self, channel: str) -> int:
        return self.limits.get(channel, self.default_limit)

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any], *, judge: Judge | None = None) -> Policy:
        """A policy from a ``[safety]`` TOML table: ``limits = {line = 2000}``, ``actions = {phone = "redact"}``."""
        limits = dict(DEFAULT_LIMITS)
        for channel, value in dict(data.get("limits", {})).items():
            limits[str(channel)] = _positive(value, f"safety.limits.{channel}")
        actions: dict[PiiKind, Action] = dict(DEFAULT_ACTIONS)
        for kind, action in dict(data.get("actions", {})).items():
            if kind not in PII_KINDS:
                raise UserInputError(
                    f"safety.actions: unknown kind {kind!r}; use one of {', '.join(PII_KINDS)}"
                )
            if action not in get_args(Action):
                raise UserInputError(f"safety.actions.{kind} must be block, redact or allow, got {action!r}")
            actions[kind] = action
        default = _positive(data.get("default_limit", 8000), "safety.default_limit")
        return cls(limits=limits, default_limit=default, actions=actions, judge=judge)


def _positive(value: object, name: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise UserInputError(f"{name} must be a positive whole number, got {value!r}")
    return value


class InputFilter:
    """Checks one message at a time against a ``Policy``; holds no state between messages."""

    def __init__(self, policy: Policy | None = None) -> None:
        self.policy = policy or Policy()

    def check(self, text: str, channel: str) -> Checked:
        """The message as it may be stored and sent on, or ``InputRejected`` (nothing to store)."""
        limit = self.policy.limit(channel)
        if len(text) > limit:
            raise InputTooLong(len(text), limit, channel)
        flags: list[Flag] = []
        clean, removed = _visible(text)
        if removed:
            flags.append(Flag("invisible", "removed", f"{removed} characters"))
        clean, pii_flags = self._personal_data(clean)
        flags += pii_flags
        clean, injections = neutralise(clean)
        flags += [Flag(f.kind, "neutralised", f.value[:80]) for f in injections]
        # the shape of text the member did not type (a link, a header block, a paste) taints the turn
        # on every channel: the auto-run allow-list is for the member's own plain words only
        shapes = outside_signs(clean)
        if shapes:
            flags.append(Flag("outside_text", "untrusted", ",".join(shapes)))
        return Checked(clean, tuple(flags), untrusted=bool(injections or shapes))

    async def check_async(self, text: str, channel: str) -> Checked:
        """``check``, then the judge's opinion for long or flagged input (when the policy has a judge)."""
        checked = self.check(text, channel)
        judge = self.policy.judge
        if judge is None or not (checked.untrusted or len(checked.text) > self.policy.judge_over):
            return checked
        verdict = await judge.verdict(checked.text)
        flag = Flag("judge", "judged", ("failed: " if verdict.failed else "") + verdict.reason[:200])
        if not verdict.injection:
            return replace(checked, flags=(*checked.flags, flag))
        text = checked.text if checked.untrusted else f"{WRAP_OPEN}{checked.text}{WRAP_CLOSE}"
        return Checked(text, (*checked.flags, flag), untrusted=True)

    def _personal_data(self, text: str) -> tuple[str, list[Flag]]:
        findings = non_overlapping(find_pii(text))
        actions = {f.kind: self.policy.actions.get(f.kind, "allow") for f in findings}  # type: ignore[call-overload]
        blocked = sorted({k for k, a in actions.items() if a == "block"}, key=PII_KINDS.index)
        if blocked:
            raise SensitiveInput(blocked)
        redacted = [f for f in findings if actions[f.kind] == "redact"]
        flags = [Flag(f.kind, "redacted" if actions[f.kind] == "redact" else "allowed") for f in findings]
        return mask(text, redacted), flags


def _visible(text: str) -> tuple[str, int]:
    """The text without invisible characters (composed, NFC) and how many were removed or replaced."""
    out, surrogates = _SURROGATE.subn("\ufffd", text)
    out, joiners = _LETTER_JOINER.subn("", out)
    out, controls = _INVISIBLE.subn("", out)
    return unicodedata.normalize("NFC", out), surrogates + joiners + controls
