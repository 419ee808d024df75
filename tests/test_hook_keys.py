"""The prompt hook reads the search keys a model wrote for a memory (issue 23, hk26).

The hook's word check compared the prompt with the matched passage only, so a note saved with keys in
the other language ("deploy", "release day" for 本番へのデプロイは金曜日には行わない) was found by the
search — its keys are in the keyword index — and then dropped: it shared no word of its own text with
the prompt. The keys now count among the words a note shares with a prompt (``_context.shared_terms``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from shitsuji.hooks._payload import parse_payload
from shitsuji.hooks._prompt import answer_event
from shitsuji.memory import MemoryEngine
from shitsuji.memory._project import project_scope

from .test_said_terms import memory_target  # noqa: F401  (the same fixture: both engines)

NOTES = {
    "本番へのデプロイは金曜日には行わない。リリースは火曜か水曜の午前中に。": [
        "deploy",
        "release day",
        "Friday",
    ],
    "Tests run with `make test`; a single file with `.venv/bin/pytest -q tests/test_x.py`.": [
        "テストの実行",
        "テスト方法",
    ],
}


@pytest.mark.parametrize(
    ("prompt", "note"),
    [("which day can we deploy a release?", "デプロイ"), ("テストの実行方法は？", "make test")],
)
def test_a_prompt_that_shares_a_notes_keys_gets_the_note(
    engine: MemoryEngine, tmp_path: Path, prompt: str, note: str
) -> None:
    scope = project_scope(tmp_path)
    for text, keys in NOTES.items():
        engine.remember(text, scope, keys=keys)
    event = parse_payload(json.dumps({"cwd": str(tmp_path), "prompt": prompt}))
    shown = answer_event(engine, event, plain=True)
    assert note in shown, shown


def test_keys_shared_with_nothing_show_nothing(engine: MemoryEngine, tmp_path: Path) -> None:
    scope = project_scope(tmp_path)
    for text, keys in NOTES.items():
        engine.remember(text, scope, keys=keys)
    event = parse_payload(json.dumps({"cwd": str(tmp_path), "prompt": "how do I reverse a string in Go?"}))
    assert answer_event(engine, event, plain=True) == ""
