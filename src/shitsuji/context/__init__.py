"""Context management: what of a long conversation is sent each turn."""

from ._calibration import Calibration, request_estimate, tools_estimate
from ._segments import Segment, Segments, check_label
from ._window import REFILL, SUMMARY_PROMPT, Folded, Summarizer, fit, message_tokens, split_window

__all__ = [
    "REFILL",
    "SUMMARY_PROMPT",
    "Calibration",
    "Folded",
    "Segment",
    "Segments",
    "Summarizer",
    "check_label",
    "fit",
    "message_tokens",
    "request_estimate",
    "split_window",
    "tools_estimate",
]
