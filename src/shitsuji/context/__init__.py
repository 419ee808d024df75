"""Context management: what of a long conversation is sent each turn."""

from ._window import SUMMARY_PROMPT, Folded, Summarizer, fit, message_tokens, split_window

__all__ = ["SUMMARY_PROMPT", "Folded", "Summarizer", "fit", "message_tokens", "split_window"]
