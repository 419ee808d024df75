"""Recipes and meals: the book on both engines, "what can I make with …", what is missing for a dish
onto the shopping list, a week's meals on the calendar, the panel actions and the count index."""

from __future__ import annotations

import json
from typing import Any

import pytest

from shitsuji.agent import DEFAULT_POLICIES, ToolInputError
from shitsuji.errors import NotFoundError, UserInputError
from shitsuji.household import (
    ACTIONS,
    HouseholdStore,
    Ingredient,
    RecipeStore,
    apply,
    butler_toolbox,
    count_index,
    ingredient_key,
    panel_view,
    parse_ingredients,
)
from shitsuji.memory import MemoryEngine

from . import test_household
from .test_anniversaries import TODAY, ctx
from .test_anniversaries import said as run

store = test_household.store  # the fixture: futari (wife, husband) and tonari (alice)
BOX = butler_toolbox()
CURRY = [
    Ingredient("豚肉", "200g"),
    Ingredient("タマネギ", "2個"),
    Ingredient("じゃがいも", "2個"),
    Ingredient("カレールー", "1/2箱"),
]


@pytest.fixture
def book(store: HouseholdStore) -> RecipeStore:
    return RecipeStore(store.database, clock=store.clock)


def test_ingredient_keys_fold_width_case_and_kana() -> None:
    assert ingredient_key("タマネギ") == ingredient_key("たまねぎ") == ingredient_key("ﾀﾏﾈｷﾞ")
    assert ingredient_key(" Eggs ") == ingredient_key("EGGS")
    assert ingredient_key("玉ねぎ") != ingredient_key("玉葱")  # no synonyms guessed
    assert parse_ingredients("卵 2個、玉ねぎ：1個\n塩, olive oil 大さじ1") == [
        Ingredient("卵", "2個"),
        Ingredient("玉ねぎ", "1個"),
        Ingredient("塩"),
        Ingredient("olive oil", "大さじ1"),
    ]


def test_the_book_on_both_engines(book: RecipeStore) -> None:
    curry = book.add(
        "futari", "カレー", CURRY, ["切る", "煮る"], ["定番"], "https://example.com/curry", by="wife"
    )
    book.add("futari", "オムレツ", [Ingredient("卵", "3個"), Ingredient("玉ねぎ", "1/4個")], by="husband")
    book.add("tonari", "卵焼き", [Ingredient("卵", "2個")], by="alice")
    assert [r.name for r in book.recipes("futari")] == ["オムレツ", "カレー"]
    assert book.get("futari", "カレー") == curry == book.get("futari", curry.id)
    assert curry.to_json()["ingredients"][1] == {"name": "タマネギ", "amount": "2個"}
    assert [r.name for r in book.recipes("futari", tag="定番")] == ["カレー"]
    with pytest.raises(NotFoundError):
        book.get("tonari", curry.id)  # another household's recipe is not found
    changed = book.edit("futari", curry.id, ingredients=[*CURRY, Ingredient("にんじん", "1本")], tags=[])
    assert len(changed.ingredients) == 5 and changed.tags == () and changed.steps == ("切る", "煮る")
    assert book.get("futari", curry.id) == changed
    assert book.remove("futari", "カレー").id == curry.id and book.count("futari") == 1


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda b: b.add("futari", "x", [], by="wife"), "at least one ingredient"),
        (lambda b: b.add("futari", "x", CURRY, source_url="javascript:alert(1)", by="wife"), "http"),
        (lambda b: b.add("futari", " ", CURRY, by="wife"), "recipe name is empty"),
        (lambda b: b.add("futari", "x", [Ingredient("卵")] * 41, by="wife"), "at most 40"),
    ],
)
def test_bad_recipes_are_refused_and_nothing_is_stored(book: RecipeStore, call: Any, message: str) -> None:
    with pytest.raises(UserInputError, match=message):
        call(book)
    assert book.recipes("futari") == []


def test_what_can_be_made_from_the_fridge(
    book: RecipeStore, store: HouseholdStore, engine: MemoryEngine
) -> None:
    book.add("futari", "カレー", CURRY, by="wife")
    book.add("futari", "オムレツ", [Ingredient("卵", "3個"), Ingredient("玉ねぎ", "1/4個")], by="wife")
    book.add("futari", "サラダ", [Ingredient("レタス")], by="wife")
    found = json.loads(run(ctx(store, engine, "wife"), "find_recipes", have=["卵", "玉ねぎ"]))
    assert [(m["name"], m["missing"]) for m in found] == [("オムレツ", [])]
    found = json.loads(run(ctx(store, engine, "wife"), "find_recipes", have=["たまねぎ", "卵"]))
    assert [m["name"] for m in found] == ["オムレツ", "カレー"]  # カレー's タマネギ is at hand too
    assert found[1]["missing"][0] == {"name": "豚肉", "amount": "200g"}


def test_whats_missing_for_a_dish_goes_on_the_list_once(
    book: RecipeStore, store: HouseholdStore, engine: MemoryEngine
) -> None:
    book.add("futari", "カレー", CURRY, by="wife")
    store.add_shopping_item("futari", "豚肉", by="husband")
    wife = ctx(store, engine, "wife")
    said = run(wife, "add_missing_to_shopping_list", recipe="カレー", have=["たまねぎ"])
    assert said == "added for カレー: じゃがいも, カレールー"
    assert [i.name for i in store.shopping_items("futari")] == ["豚肉", "じゃがいも", "カレールー"]
    again = run(wife, "add_missing_to_shopping_list", recipe="カレー", have=["たまねぎ"])
    assert "nothing is missing" in again and len(store.shopping_items("futari")) == 3
    with pytest.raises(NotFoundError, match="no recipe"):
        run(wife, "add_missing_to_shopping_list", recipe="ラーメン")


def test_the_list_addition_runs_at_once_on_line_only_for_the_members_own_words() -> None:
    line, app = DEFAULT_POLICIES["line"], DEFAULT_POLICIES["app"]
    assert line.may_auto_run("add_missing_to_shopping_list", tainted=False)
    assert not line.may_auto_run("add_missing_to_shopping_list", tainted=True)
    assert not app.may_auto_run("add_missing_to_shopping_list", tainted=False)
    for name in ("add_recipe", "edit_recipe", "remove_recipe", "plan_meals"):
        assert not line.may_auto_run(name, tainted=False), name


def test_a_weeks_meals_on_the_calendar(
    book: RecipeStore, store: HouseholdStore, engine: MemoryEngine
) -> None:
    curry = book.add("futari", "カレー", CURRY, by="wife")
    book.add("futari", "オムレツ", [Ingredient("卵")], by="wife")
    meals = [{"date": f"2026-01-0{d}", "recipe": "カレー" if d % 2 else "オムレツ"} for d in range(1, 8)]
    tool = BOX.get("plan_meals")
    assert tool is not None
    assert (
        tool.summary(tool.validate({"meals": meals[:2]}))
        == "献立を予定に追加：1/1 夕食 カレー、1/2 夕食 オムレツ"
    )
    run(ctx(store, engine, "wife"), "plan_meals", meals=meals)
    events = store.events("futari", "2026-01-01", "2026-01-07")
    assert [e.title for e in events][:2] == ["夕食: カレー", "夕食: オムレツ"] and len(events) == 7
    assert events[0].note == f"recipe {curry.id}"
    with pytest.raises(NotFoundError):  # one unknown dish: none of the week is added
        run(
            ctx(store, engine, "wife"),
            "plan_meals",
            meals=[{"date": "2026-01-09", "recipe": "カレー"}, {"date": "2026-01-10", "recipe": "寿司"}],
        )
    assert len(store.events("futari", "2026-01-08")) == 0
    with pytest.raises(ToolInputError):
        run(ctx(store, engine, "wife"), "plan_meals", meals=[{"date": "明日", "recipe": "カレー"}])


def test_panel_actions_view_and_count_index(store: HouseholdStore) -> None:
    added = apply(
        store,
        "futari",
        ACTIONS.validate_python(
            {
                "action": "add_recipe",
                "name": "オムレツ",
                "ingredients": "卵 3個、玉ねぎ 1/4個",
                "tags": "朝、簡単",
            }
        ),
        by="wife",
    )
    assert added.row["tags"] == ["朝", "簡単"] and added.row["ingredients"][0] == {
        "name": "卵",
        "amount": "3個",
    }
    assert [r["name"] for r in panel_view(store, "futari", "recipes")["recipes"]] == ["オムレツ"]
    assert count_index(store, "futari", TODAY, viewer="wife").endswith("・レシピ 1件")
    assert count_index(store, "futari", TODAY, viewer="wife", lang="en").endswith(" · saved recipes 1")
    apply(
        store,
        "futari",
        ACTIONS.validate_python({"action": "remove_recipe", "id": added.row["id"]}),
        by="husband",
    )
    assert panel_view(store, "futari", "recipes")["recipes"] == []
