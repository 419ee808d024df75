"""Bad input to the CLI is one line on stderr and exit 1, never a traceback, and nothing is written or lost."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .conftest import Cli, Run

WIFE = "household/futari/user/wife"
BROKEN = "a\udcffb"  # how Python hands over the bytes 61 ff 62 from a command line


def one_line_error(run: Run, *words: str) -> None:
    assert run.code == 1, run
    lines = run.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:"), run.err
    assert "Traceback" not in run.err and all(w in lines[0] for w in words), run.err


@pytest.fixture
def one_memory(cli: Cli) -> str:
    return str(cli("remember", "ゴミの日は月曜と木曜", "--scope", WIFE, "--json").json()["id"])


def _ids(cli: Cli) -> list[str]:
    return [m["id"] for m in cli("list", "--json").json()]


@pytest.mark.parametrize(
    ("data", "words"),
    [
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)), ("line 1", "not UTF-8")),
        (b'{"content": "ok", "scope": "x"}\n{"content": "caf\xe9", "scope": "x"}\n', ("line 2", "not UTF-8")),
        (b"[" * 100_000 + b"]" * 100_000 + b"\n", ("line 1", "nested too deeply")),
        (b'{"content": "half \\ud800 a character", "scope": "x"}\n', ("line 1", "lone surrogate")),
        (b'{"content": "ok", "scope": "x", "provenance": {"by": "\\udc00"}}\n', ("line 1", "lone surrogate")),
        (b'{"content": "ok", "scope": "x\xe2\x80\x8by"}\n', ("line 1", "invisible")),
    ],
)
def test_import_of_a_bad_file_names_the_line_and_imports_nothing(
    cli: Cli, tmp_path: Path, one_memory: str, data: bytes, words: tuple[str, ...]
) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(data)
    one_line_error(cli("import", str(bad)), *words, "nothing was imported")
    assert _ids(cli) == [one_memory]


def test_arguments_that_are_not_utf8_are_refused(cli: Cli, one_memory: str, tmp_path: Path) -> None:
    one_line_error(cli("remember", BROKEN, "--scope", WIFE), "argument 2", "UTF-8")
    one_line_error(cli("recall", "ゴミ", "--scope", BROKEN), "argument 4", "UTF-8")
    one_line_error(cli("show", BROKEN), "UTF-8")
    out = tmp_path / "out.jsonl"
    one_line_error(cli("export", "--scope", BROKEN, "--output", str(out)), "UTF-8")
    assert not out.exists() and _ids(cli) == [one_memory]


def test_text_with_a_lone_surrogate_is_refused_by_the_engine_too(cli: Cli) -> None:
    from shitsuji.errors import UserInputError
    from shitsuji.memory import HashEmbedder, MemoryEngine, open_store

    engine = MemoryEngine(open_store(":memory:"), HashEmbedder())
    with pytest.raises(UserInputError, match="surrogate"):
        engine.remember("half \ud800 a character", WIFE)
    with pytest.raises(UserInputError, match="invisible"):
        engine.remember("ok", "household/\ud800")


def test_export_into_a_missing_folder_or_onto_a_folder(cli: Cli, tmp_path: Path, one_memory: str) -> None:
    one_line_error(cli("export", "--output", str(tmp_path / "nope" / "out.jsonl")), "does not exist")
    assert not (tmp_path / "nope").exists()
    one_line_error(cli("export", "--output", str(tmp_path)), "is a folder")
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        p.name for p in tmp_path.iterdir() if p.suffix != ".part"
    )


def test_a_failed_export_leaves_the_old_file_whole(cli: Cli, tmp_path: Path, one_memory: str) -> None:
    folder = tmp_path / "exports"
    folder.mkdir()
    out = folder / "memories.jsonl"
    out.write_text("the previous export\n", encoding="utf-8")
    one_line_error(cli("export", "--scope", "bad scope", "--output", str(out)), "scope")
    assert out.read_text(encoding="utf-8") == "the previous export\n"
    assert cli("export", "--output", str(out)).code == 0
    assert [json.loads(line)["id"] for line in out.read_text(encoding="utf-8").splitlines()] == [one_memory]
    assert [p.name for p in folder.iterdir()] == ["memories.jsonl"]  # no temporary file left


@pytest.mark.parametrize("bench", ["locomo", "longmemeval"])
@pytest.mark.parametrize(
    ("data", "words"),
    [
        (bytes(range(256)), ("not UTF-8",)),
        (b"[" * 100_000 + b"]" * 100_000, ("nested too deeply",)),
        (b'{"a": 1}', ("format",)),
        (b'[{"conversation": {"session_1": [{"text": "hi"}]}, "question": "q"}]', ("format",)),
        (b'[{"conversation": {"session_1": "not turns"}, "question": "q", "question_id": 1}]', ("format",)),
    ],
)
def test_bench_with_a_file_of_the_wrong_format(
    cli: Cli, tmp_path: Path, bench: str, data: bytes, words: tuple[str, ...]
) -> None:
    wrong = tmp_path / "wrong.json"
    wrong.write_bytes(data)
    one_line_error(cli("bench", bench, str(wrong)), *words)


@pytest.mark.parametrize(
    ("facts", "words"),
    [
        (bytes(range(256)), ("not UTF-8",)),
        (b'{"id": "a1", "user": "aki"}\n', ("format", "content")),
        (b"[" * 100_000 + b"]" * 100_000 + b"\n", ("nested too deeply",)),
    ],
)
def test_bench_japanese_with_files_of_the_wrong_format(
    cli: Cli, tmp_path: Path, facts: bytes, words: tuple[str, ...]
) -> None:
    (tmp_path / "facts-dev.jsonl").write_bytes(facts)
    (tmp_path / "queries-dev.jsonl").write_text(
        '{"user": "aki", "query": "q", "expected": []}\n', encoding="utf-8"
    )
    one_line_error(cli("bench", "japanese", str(tmp_path)), *words)
