"""The prompt hook finds memories by meaning (real USE model), and its gate keeps small talk clean."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from shitsuji.bench.hook_relevance import run_hook_relevance
from shitsuji.hooks import answer_prompt
from shitsuji.mcp import project_scope
from shitsuji.memory import MemoryEngine, USEEmbedder, open_store


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "home" / "u" / "projects" / "api"
    (root / ".git").mkdir(parents=True)
    return root


@pytest.fixture
def saved(db_path: Path, project: Path) -> Iterator[dict[str, str]]:
    store = open_store(db_path)
    engine = MemoryEngine(store, USEEmbedder())
    scope = project_scope(project)
    ids = {
        "utc": engine.remember("All datetimes are saved as UTC; convert only in the UI.", scope).memory.id,
        "deploy": engine.remember("本番へのデプロイは金曜日には行わない。", scope).memory.id,
        "readme": engine.remember("READMEの説明文は英語で書く。", scope).memory.id,
    }
    store.close()
    yield ids


def ask(prompt: str, cwd: Path, db: Path) -> str:
    out = answer_prompt(json.dumps({"cwd": str(cwd), "prompt": prompt}), db, embedder="use")
    return json.loads(out)["hookSpecificOutput"]["additionalContext"] if out else ""


def test_a_paraphrase_with_no_shared_word_finds_the_memory(
    saved: dict[str, str], project: Path, db_path: Path
) -> None:
    context = ask("what timezone do we store timestamps in?", project, db_path)
    assert saved["utc"] in context


def test_a_japanese_rule_answers_an_english_prompt(
    saved: dict[str, str], project: Path, db_path: Path
) -> None:
    assert saved["deploy"] in ask("can I deploy to production on Friday?", project, db_path)


@pytest.mark.parametrize(
    "prompt", ["もう少し短く説明して", "thanks, go on", "ありがとう、続けて", "write a haiku"]
)
def test_small_talk_gets_nothing_even_with_a_shared_word(
    saved: dict[str, str], project: Path, db_path: Path, prompt: str
) -> None:
    assert ask(prompt, project, db_path) == ""


def test_the_fast_entry_point_answers_by_meaning_in_a_fresh_process(
    saved: dict[str, str], project: Path, db_path: Path
) -> None:
    env = {**os.environ, "SHITSUJI_EMBEDDER": "use"}
    payload = json.dumps({"cwd": str(project), "prompt": "which time zone are timestamps kept in?"})
    done = subprocess.run(
        [sys.executable, "-m", "shitsuji.hooks", "prompt", "--db", str(db_path), "--plain"],
        input=payload,
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    assert saved["utc"] in done.stdout


def test_the_shipped_gate_holds_on_the_labelled_set() -> None:
    """A floor under the calibrated gate (docs/benchmarks.md has the figures): it fails if recall or
    the noise guard regresses, e.g. a model or ranking change that moves cosines."""
    data = run_hook_relevance(embedder="use")
    alone = data["alone"]["shipped"]
    assert alone["right"] >= 0.65
    assert alone["noise"] <= 0.05
    assert alone["right"] > data["words_only"]["right"] + 0.2
    if "with_second_model" in data:  # the e5 extra is installed: the hook server's fused gate
        fused = data["with_second_model"]
        assert fused["shipped"]["right"] >= 0.8 and fused["shipped"]["noise"] <= 0.05
        assert fused["two_fold_shipped_weight_right"] >= 0.8  # held out, too
        assert fused["two_fold_shipped_weight_noise"] <= 0.05
