import pytest

from shitsuji.errors import UserInputError
from shitsuji.memory import content_hash, distance, lineage, normalize_scope, terms


def test_japanese_short_words_become_terms() -> None:
    found = terms("沖縄で紅茶を飲んだ")
    assert "沖縄" in found and "紅茶" in found
    assert "茶" in found  # single kanji so one-character queries match
    assert "を" not in found  # particles are not terms on their own


def test_one_kanji_query_matches_its_document() -> None:
    assert set(terms("猫")) <= set(terms("アキは猫派で三毛猫を飼っている"))


def test_english_terms_drop_stop_words_and_possessives_and_are_stemmed() -> None:
    assert terms("Caroline's dogs are at the vet") == terms("caroline dog vet") == ["carolin", "dog", "vet"]
    assert set(terms("She painted a sunrise")) & set(terms("painting sunrises")) == {"paint", "sunris"}


def test_full_width_and_case_do_not_change_the_hash() -> None:
    assert content_hash("ＷｉＦｉ  password。") == content_hash("wifi password")
    assert content_hash("wifi password") != content_hash("wifi passwords")


@pytest.mark.parametrize(
    ("raw", "expected"),
    [("/household/futari/", "household/futari"), ("fs/home/ユーザー/projects", "fs/home/ユーザー/projects")],
)
def test_scopes_are_normalised(raw: str, expected: str) -> None:
    assert normalize_scope(raw) == expected


@pytest.mark.parametrize("bad", ["", "  ", "a//b", "a/../b", "a/b c", "a/./b"])
def test_bad_scopes_are_refused_with_a_hint(bad: str) -> None:
    with pytest.raises(UserInputError, match="scope"):
        normalize_scope(bad)


def test_lineage_and_distance() -> None:
    assert lineage("household/futari/user/wife") == [
        "household/futari/user/wife",
        "household/futari/user",
        "household/futari",
        "household",
    ]
    assert distance("household/futari/user/wife", "household/futari") == 2
    assert distance("household/futari/user/wife", "household/futari/user/husband") is None
    assert distance("household/futari", "household/futari/user/wife") is None
