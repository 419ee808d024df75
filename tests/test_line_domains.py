"""The household domains on LINE, through the fake Messaging API and the real line-bot-sdk client:
what runs at once, what comes back as a card, what the model is told, and what LINE draws."""

from __future__ import annotations

import json

from shitsuji.household import AnniversaryStore, Ingredient, MoneyStore, NisaStore, RecipeStore
from shitsuji.llm import text_response, tool_use_response

from . import test_line_turns
from .line_support import HUSBAND, WIFE, LineSite
from .test_line_turns import buttons, messages_to, tap

site = test_line_turns.site  # the fixture: the LINE app with both members linked


def dates(site: LineSite) -> AnniversaryStore:
    return AnniversaryStore(site.backend.store.database)


def system_text(site: LineSite) -> str:
    return json.dumps(site.script.requests[-1].system, ensure_ascii=False)


def test_the_next_anniversary_is_in_what_the_model_reads_for_its_speaker_only(site: LineSite) -> None:
    today = site.backend.store.today("futari")
    dates(site).add("futari", "結婚記念日", today.replace(year=today.year - 3), by="husband")
    dates(site).add("futari", "夫の誕生日", "1990-01-01", by="wife", private=True)
    site.script.then(text_response("今日は結婚記念日です。"))
    site.say(HUSBAND, "次の記念日は？")
    site.settled()
    assert "記念日 1件・次は" in system_text(site) and "結婚記念日（今日）" in system_text(site)
    assert "夫の誕生日" not in system_text(site)  # the wife's surprise never reaches his turn
    assert site.answers(HUSBAND) == ["今日は結婚記念日です。"]


def test_adding_an_anniversary_is_a_card_and_the_list_comes_as_a_flex_bubble(site: LineSite) -> None:
    site.script.then(
        tool_use_response(("toolu_a", "add_anniversary", {"title": "初デート", "date": "2019-02-14"}))
    )
    site.say(WIFE, "初デートは2019年2月14日、記念日に入れて")
    site.settled()
    [card] = messages_to(site, WIFE)
    assert card["type"] == "template" and "2/14 初デート を記念日に追加" in card["template"]["text"]
    assert dates(site).visible("futari", "wife") == []  # not yet: a card on LINE too

    assert "承認しました" in tap(site, WIFE, buttons(site, WIFE)["承認"])
    assert [a.title for a in dates(site).visible("futari", "husband")] == ["初デート"]

    site.script.then(tool_use_response(("toolu_l", "list_anniversaries", {})), text_response("こちらです。"))
    site.say(HUSBAND, "記念日の一覧を見せて")
    site.settled()
    text, flex = messages_to(site, HUSBAND)
    assert text == {"type": "text", "text": "こちらです。"}
    assert flex["type"] == "flex" and flex["altText"].startswith("記念日: 初デート（2/14）")


def test_whats_missing_for_a_dish_goes_on_the_list_at_once_on_line(site: LineSite) -> None:
    RecipeStore(site.backend.store.database).add(
        "futari",
        "カレー",
        [Ingredient("豚肉", "200g"), Ingredient("玉ねぎ", "2個"), Ingredient("カレールー")],
        by="wife",
    )
    site.script.then(
        tool_use_response(
            ("toolu_r", "add_missing_to_shopping_list", {"recipe": "カレー", "have": ["玉ねぎ"]})
        ),
        text_response("豚肉とカレールーを買い物リストに入れました。"),
    )
    site.say(HUSBAND, "カレーの足りない材料を買い物リストに入れて、玉ねぎはある")
    site.settled()
    assert [i.name for i in site.backend.store.shopping_items("futari")] == ["豚肉", "カレールー"]
    assert site.backend.butler.proposals.list(household="futari") == []  # a list addition: no card
    assert site.answers(HUSBAND) == ["豚肉とカレールーを買い物リストに入れました。"]


def test_saving_a_recipe_on_line_is_a_card(site: LineSite) -> None:
    recipe = {"name": "オムレツ", "ingredients": [{"name": "卵", "amount": "3個"}], "tags": ["朝"]}
    site.script.then(tool_use_response(("toolu_s", "add_recipe", recipe)))
    site.say(WIFE, "オムレツのレシピを保存して。卵3個")
    site.settled()
    [card] = messages_to(site, WIFE)
    assert card["type"] == "template" and "レシピ「オムレツ」を追加" in card["template"]["text"]
    book = RecipeStore(site.backend.store.database)
    assert book.recipes("futari") == []
    assert "承認しました" in tap(site, WIFE, buttons(site, WIFE)["承認"])
    assert [r.name for r in book.recipes("futari")] == ["オムレツ"]


def test_nisa_room_is_answered_from_the_speakers_data_and_a_purchase_is_a_card(site: LineSite) -> None:
    year = site.backend.store.today("futari").year
    NisaStore(site.backend.store.database).contribute(
        "futari", "tsumitate", "全世界株式", 400_000, f"{year}-01-02", by="wife"
    )
    site.script.then(
        tool_use_response(("toolu_n", "nisa_allowance", {})),
        text_response("つみたて投資枠はあと80万円です。"),
    )
    site.say(WIFE, "今年の枠はあといくら？")
    site.settled()
    results = json.dumps(site.script.requests[-1].messages, ensure_ascii=False)
    assert '"tsumitate": 800000' in results.replace('\\"', '"')
    site.script.then(
        tool_use_response(
            (
                "toolu_b",
                "add_nisa_contribution",
                {"frame": "growth", "fund": "トヨタ自動車", "amount": 300000},
            )
        )
    )
    site.say(HUSBAND, "NISAでトヨタを30万円買った")
    site.settled()
    [card] = messages_to(site, HUSBAND)
    assert card["type"] == "template" and "成長投資枠で トヨタ自動車 を ¥300,000" in card["template"]["text"]
    assert (
        NisaStore(site.backend.store.database).contributions("futari", "husband") == []
    )  # not before approval


def test_who_paid_more_is_answered_from_data_and_a_new_split_is_a_card(site: LineSite) -> None:
    site.backend.store.add_expense("futari", 8_000, "外食", by="husband")
    site.script.then(
        tool_use_response(("toolu_s", "settlement", {})), text_response("今月は夫が4,000円多く払っています。")
    )
    site.say(WIFE, "今月はどっちがいくら多く払った？")
    site.settled()
    results = json.dumps(site.script.requests[-1].messages, ensure_ascii=False).replace('\\"', '"')
    assert '"paid_more": "husband"' in results and '"by_yen": 4000' in results
    site.script.then(tool_use_response(("toolu_r", "set_split", {"ratio": "6:4"})))
    site.say(WIFE, "これからは6:4で分けて")
    site.settled()
    card = messages_to(site, WIFE)[-1]
    assert card["type"] == "template" and "負担割合を 6:4" in card["template"]["text"]
    assert MoneyStore(site.backend.store.database).split("futari") == (1, 1)  # not before approval


def test_a_removal_card_on_line_names_the_event_not_its_id(site: LineSite) -> None:
    event = site.backend.store.add_event("futari", "歯医者", "2026-12-03T10:00", by="wife")
    site.script.then(tool_use_response(("toolu_r", "remove_event", {"id": event.id})))
    site.say(WIFE, "歯医者の予定を消して")
    site.settled()
    [card] = messages_to(site, WIFE)
    assert "「歯医者」" in card["template"]["text"] and event.id not in card["template"]["text"]
    assert [e.title for e in site.backend.store.events("futari")] == ["歯医者"]  # a card: nothing yet
    assert "承認しました" in tap(site, WIFE, buttons(site, WIFE)["承認"])
    assert site.backend.store.events("futari") == []


def test_a_garbage_day_is_added_on_line_as_a_card(site: LineSite) -> None:
    arguments = {"title": "燃えるゴミ", "weekdays": ["mon", "thu"]}
    site.script.then(tool_use_response(("toolu_g", "add_recurring_todo", arguments)))
    site.say(WIFE, "燃えるゴミは毎週月曜と木曜")
    site.settled()
    [card] = messages_to(site, WIFE)
    assert "燃えるゴミ（毎週月・木）をくり返しのToDoに追加" in card["template"]["text"]
    assert site.backend.store.todos("futari") == []
    tap(site, WIFE, buttons(site, WIFE)["承認"])
    [todo] = site.backend.store.todos("futari")
    assert todo.repeat is not None and todo.repeat.describe("ja") == "毎週月・木"
