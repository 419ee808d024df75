"""The prompt hook's client path (``hooks._quick``) says what the full standard modules would say.

It reads the arguments by hand, writes the request and reads the answer with ``_json``'s
codecs: for everything it accepts, the result must equal argparse's and ``json``'s.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

from shitsuji._paths import _xdg_folder, default_cache_folder, default_data_folder
from shitsuji.hooks.__main__ import _parser
from shitsuji.hooks._quick import PromptArgs, parse_answer, parse_prompt, prompt_request

READ = [
    ["prompt"],
    ["prompt", "--db", "/p/x.db"],
    ["prompt", "--db=/p/データ.db", "--plain"],
    ["prompt", "-k", "3", "--budget", "500", "--no-server"],
    ["prompt", "--k", " 7 ", "--budget=+12", "--db", "a", "--db", "b"],
    ["prompt", "-k=4", "--plain", "--no-server", "--plain"],
    ["prompt", "--budget", "１２"],  # full-width digits: int() reads them, so argparse does
]
LEFT_TO_ARGPARSE = [
    [],
    ["serve"],
    ["--help"],
    ["prompt", "--help"],
    ["prompt", "-k"],
    ["prompt", "-k", "-1"],
    ["prompt", "-k", "x"],
    ["prompt", "-k5"],
    ["prompt", "--bud", "5"],
    ["prompt", "--db", ""],
    ["prompt", "--plain=yes"],
    ["prompt", "extra"],
    ["prompt", "--budget", "1_000"],
]


@pytest.mark.parametrize("argv", READ)
def test_the_arguments_read_by_hand_are_argparses(argv: list[str]) -> None:
    quick = parse_prompt(argv)
    full = _parser().parse_args(argv)
    assert quick is not None
    assert (quick.db, quick.k, quick.budget, quick.plain, quick.server) == (
        None if full.db is None else str(full.db),
        full.k,
        full.budget,
        full.plain,
        full.server,
    )


@pytest.mark.parametrize("argv", LEFT_TO_ARGPARSE)
def test_anything_else_is_left_to_argparse(argv: list[str]) -> None:
    assert parse_prompt(argv) is None


@pytest.mark.parametrize(
    "payload",
    [
        '{"prompt": "テストの実行方法は？"}',
        'quote " backslash \\ tab \t nul \x00',
        "lone \ud800 surrogate",
        "",
    ],
)
@pytest.mark.parametrize("plain", [True, False])
def test_the_request_is_byte_for_byte_what_json_dumps_writes(payload: str, plain: bool) -> None:
    args = PromptArgs("x.db", 3, 1500, plain, True)
    expected = {"v": 1, "payload": payload, "cwd": "/home/花子/app", "k": 3, "budget": 1500, "plain": plain}
    assert prompt_request(payload, "/home/花子/app", args) == json.dumps(expected).encode() + b"\n"


@pytest.mark.parametrize(
    "line",
    [
        '{"out": "記憶: make test"}',
        ' {"error": "no prompt", "n": [1, 2.5, null, true]} ',
        '{"out": "\\u3042\\ud83d\\ude00"}',
        '{"x": NaN}',
    ],
)
def test_an_answer_reads_as_json_loads_reads_it(line: str) -> None:
    found = parse_answer(line.encode())
    assert found is not None
    assert json.dumps(found, sort_keys=True) == json.dumps(json.loads(line), sort_keys=True)


def test_nan_reads_as_a_float() -> None:
    found = parse_answer(b'{"x": NaN}')
    assert found is not None and math.isnan(found["x"])


@pytest.mark.parametrize(
    "line",
    [b"", b"[1]", b'"out"', b'{"out": "a"} x', b'{"out": "a"', b"\xff\xfe", b'{"out": "\x01"}', b"nope"],
)
def test_what_json_loads_refuses_or_is_no_object_is_no_answer(line: bytes) -> None:
    assert parse_answer(line) is None


@pytest.mark.skipif(sys.platform != "linux", reason="the folders are read without platformdirs on Linux only")
@pytest.mark.parametrize(
    ("xdg", "home", "read_here"),
    [
        (None, "/home/花子", True),
        ("/srv/xdg", "/home/u", True),
        ("/srv/xdg/", "/home/u/", True),
        ("relative/xdg", "/home/u", True),  # platformdirs ignores an XDG folder that is not absolute
        ("", "/home/u", True),
        (None, "relative-home", False),
        (None, None, False),
    ],
)
def test_the_default_folders_are_platformdirs(
    monkeypatch: pytest.MonkeyPatch, xdg: str | None, home: str | None, read_here: bool
) -> None:
    from platformdirs import user_cache_dir, user_data_dir

    for name, value in (("XDG_CACHE_HOME", xdg), ("XDG_DATA_HOME", xdg), ("HOME", home)):
        if value is None:
            monkeypatch.delenv(name, raising=False)
        else:
            monkeypatch.setenv(name, value)
    assert default_cache_folder() == user_cache_dir("shitsuji", appauthor=False)
    assert default_data_folder() == user_data_dir("shitsuji", appauthor=False)
    assert (_xdg_folder("XDG_CACHE_HOME", "~/.cache") is not None) == read_here  # not platformdirs' own


@pytest.mark.skipif(sys.platform != "linux", reason="the folders are read without platformdirs on Linux only")
def test_the_default_folders_cost_the_hook_no_platformdirs_nor_pathlib(tmp_path: Path) -> None:
    code = (
        "import sys; from shitsuji.hooks._quick import locations; locations(None); print(sorted(sys.modules))"
    )
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("SHITSUJI_", "XDG_"))}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env={**environ, "HOME": str(tmp_path)}
    )
    loaded = set(json.loads(done.stdout.replace("'", '"')))
    assert "shitsuji.hooks._quick" in loaded, done.stderr
    assert loaded & {"platformdirs", "pathlib"} == set()
