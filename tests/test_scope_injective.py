"""Scopes are injective: no directory name, however crafted, maps onto another directory's scope."""

from __future__ import annotations

from pathlib import PurePosixPath

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shitsuji.errors import UserInputError
from shitsuji.household._values import check_name
from shitsuji.mcp import path_scope
from shitsuji.memory import normalize_scope

HOME = PurePosixPath("/home/u")


def _segment_of(name: str) -> str:
    return path_scope(HOME / name).rsplit("/", 1)[1]


def test_a_directory_named_like_a_hashed_long_name_gets_its_own_scope() -> None:
    long_name = "x" * 300
    crafted = _segment_of(long_name)  # "xxx…~<hash>", a valid directory name itself
    assert "~" in crafted and len(crafted) <= 100
    assert path_scope(HOME / crafted) != path_scope(HOME / long_name)


def test_a_directory_named_like_a_folded_deep_path_gets_its_own_scope() -> None:
    deep = PurePosixPath("/" + "/".join(f"d{i}" for i in range(40)))
    folded = path_scope(deep).rsplit("/", 1)[1]  # "~<hash>" for everything past depth 31
    crafted = PurePosixPath("/" + "/".join(f"d{i}" for i in range(30))) / folded
    assert path_scope(crafted) != path_scope(deep)


def test_a_tilde_in_a_name_is_escaped() -> None:
    assert path_scope(PurePosixPath("/home/u/~backup")) == "fs/home/u/%7Ebackup"


names = (
    st.lists(
        st.sampled_from(["a", "b", "~", "%", "7", "E", " ", "\u200b", "\u202e", "東", "x" * 40, "."]),
        min_size=1,
        max_size=8,
    )
    .map("".join)
    .filter(lambda n: n not in (".", ".."))
)
# Adversarial segments: the escaped or hashed form of another name, used as a name itself.
crafted = st.one_of(names, names.map(_segment_of))
paths = st.lists(crafted, min_size=1, max_size=36).map(lambda parts: PurePosixPath("/", *parts))


@settings(max_examples=300, deadline=None)
@given(paths, paths)
def test_distinct_directories_have_distinct_scopes(a: PurePosixPath, b: PurePosixPath) -> None:
    if a != b:
        assert path_scope(a) != path_scope(b)
    assert normalize_scope(path_scope(a)) == path_scope(a)


@pytest.mark.parametrize("char", ["\u200b", "\u200d", "\u202e", "\u2066", "\ufeff", "\ud800"])
def test_scopes_and_names_refuse_invisible_characters(char: str) -> None:
    with pytest.raises(UserInputError, match="invisible"):
        normalize_scope(f"household/fut{char}ari")
    with pytest.raises(UserInputError, match="invisible"):
        check_name(f"wi{char}fe", "member id")
    assert normalize_scope("household/ふたり/user/妻") == "household/ふたり/user/妻"
    assert check_name("妻", "member id") == "妻"


@settings(max_examples=300, deadline=None)
@given(st.lists(names, min_size=1, max_size=36), st.data())
def test_a_name_replaced_by_its_own_scope_form_is_another_scope(
    parts: list[str], data: st.DataObject
) -> None:
    i = data.draw(st.integers(0, len(parts) - 1))
    twin = [*parts[:i], _segment_of(parts[i]), *parts[i + 1 :]]
    if twin != parts:
        assert path_scope(PurePosixPath("/", *twin)) != path_scope(PurePosixPath("/", *parts))
