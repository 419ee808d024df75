"""The butler's recipe tools: the book, "what can I make with …", the missing ingredients onto the
shopping list, a week's meals onto the calendar; adding, changing and removing recipes.

``add_missing_to_shopping_list`` is a list addition like ``add_shopping_item`` (LINE runs it
at once for the member's own words; a turn with outside text in it still makes a card); every
other write is a card. A planned meal is an all-day event 「夕食: カレー」 whose note names the
recipe's id, so the calendar, the digest and the count index need nothing new to show it.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..agent import tool
from ._deps import Ctx
from ._edit_tools import joined
from ._recipes import MAX_INGREDIENTS, MAX_STEPS, MAX_TAGS, MAX_URL, Ingredient, RecipeStore
from ._tools import Day, RowId, Title, _household, _json, _md
from ._values import MAX_NOTE

Names = Annotated[list[Annotated[str, Field(min_length=1, max_length=40)]], Field(max_length=30)]
MEALS = {"breakfast": ("朝食", "breakfast"), "lunch": ("昼食", "lunch"), "dinner": ("夕食", "dinner")}


class IngredientIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: Annotated[str, Field(min_length=1, max_length=100)]
    amount: Annotated[str | None, Field(max_length=30, description="e.g. 2個, 200g, 大さじ1")] = None


class MealIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    date: Day
    recipe: Annotated[str, Field(min_length=1, max_length=100, description="A recipe's id or exact name.")]
    meal: Literal["breakfast", "lunch", "dinner"] = "dinner"


Ingredients = Annotated[list[IngredientIn], Field(min_length=1, max_length=MAX_INGREDIENTS)]
Steps = Annotated[list[Annotated[str, Field(min_length=1, max_length=MAX_NOTE)]], Field(max_length=MAX_STEPS)]
Tags = Annotated[list[Annotated[str, Field(min_length=1, max_length=20)]], Field(max_length=MAX_TAGS)]
Url = Annotated[str | None, Field(max_length=MAX_URL, description="Where the recipe came from (http/https).")]
RecipeRef = Annotated[str, Field(min_length=1, max_length=100, description="A recipe's id or exact name.")]


def recipes_of(ctx: Ctx) -> tuple[RecipeStore, str]:
    store, household = _household(ctx)
    return RecipeStore(store.database, clock=store.clock), household


def _parts(items: list[IngredientIn] | None) -> list[Ingredient] | None:
    return None if items is None else [Ingredient(i.name, i.amount) for i in items]


# -- reads ------------------------------------------------------------------


@tool(effect="read")
def list_recipes(ctx: Ctx, tag: Annotated[str | None, Field(max_length=20)] = None) -> str:
    """List the household's saved recipes (with ingredients and steps), optionally only those with a tag."""
    book, household = recipes_of(ctx)
    return _json([r.to_json() for r in book.recipes(household, tag=tag)])


@tool(effect="read")
def find_recipes(
    ctx: Ctx,
    have: Annotated[Names, Field(min_length=1, description="Ingredients at hand, e.g. [卵, 玉ねぎ].")],
) -> str:
    """Which saved recipes can be made from the ingredients at hand, those missing least first."""
    book, household = recipes_of(ctx)
    return _json([m.to_json() for m in book.cookable(household, have)])


# -- writes -----------------------------------------------------------------


@tool(effect="write", summary=lambda a: f"レシピ「{a['name']}」を追加（材料 {len(a['ingredients'])}品）")
def add_recipe(
    ctx: Ctx,
    name: Title,
    ingredients: Ingredients,
    steps: Steps | None = None,
    tags: Tags | None = None,
    source_url: Url = None,
) -> str:
    """Save a recipe: its name, ingredients with amounts, steps, tags and source URL."""
    book, household = recipes_of(ctx)
    recipe = book.add(
        household, name, _parts(ingredients) or [], steps or (), tags or (), source_url, by=ctx.user
    )
    return f"saved recipe {recipe.name} (id {recipe.id})"


def _edit_summary(a: dict[str, Any]) -> str:
    parts = [
        f"名前→{a['name']}" if a.get("name") else "",
        f"材料→{'、'.join(i['name'] for i in a['ingredients'])}" if a.get("ingredients") else "",
        f"手順 {len(a['steps'])}つ" if a.get("steps") else "",
        f"タグ→{'、'.join(a['tags'])}" if a.get("tags") else "",
        "出典URL" if a.get("source_url") else "",
    ]
    return f"レシピ {a['id']} を変更：{joined(parts)}"


@tool(effect="write", summary=_edit_summary)
def edit_recipe(
    ctx: Ctx,
    id: RowId,
    name: Title | None = None,
    ingredients: Ingredients | None = None,
    steps: Steps | None = None,
    tags: Tags | None = None,
    source_url: Url = None,
) -> str:
    """Change a saved recipe (the id comes from list_recipes); a list given replaces the old one whole."""
    book, household = recipes_of(ctx)
    recipe = book.edit(
        household,
        id,
        name=name,
        ingredients=_parts(ingredients),
        steps=steps,
        tags=tags,
        source_url=source_url,
    )
    return f"changed recipe {recipe.name}"


@tool(effect="write", summary=lambda a: f"レシピ {a['id']} を削除")
def remove_recipe(ctx: Ctx, id: RowId) -> str:
    """Remove a saved recipe (the id comes from list_recipes)."""
    book, household = recipes_of(ctx)
    return f"removed recipe {book.remove(household, id).name}"


def _missing_summary(a: dict[str, Any]) -> str:
    return f"{a['recipe']} の足りない材料を買い物リストに追加"


@tool(effect="write", summary=_missing_summary)
def add_missing_to_shopping_list(
    ctx: Ctx,
    recipe: RecipeRef,
    have: Annotated[Names, Field(description="Ingredients already at home (left off the list).")] = [],  # noqa: B006
) -> str:
    """Put what a saved recipe needs onto the shopping list, leaving out what is at home or already listed."""
    book, household = recipes_of(ctx)
    store = ctx.deps.store
    listed = [i.name for i in store.shopping_items(household) if not i.checked]
    gap = book.missing(household, recipe, have, listed)
    for part in gap.missing:
        store.add_shopping_item(household, part.name, by=ctx.user)
    if not gap.missing:
        return f"nothing is missing for {gap.recipe.name}: everything is at home or on the list"
    return f"added for {gap.recipe.name}: {', '.join(p.name for p in gap.missing)}"


def _meals_summary(a: dict[str, Any]) -> str:
    shown = "、".join(
        f"{_md(m['date'])} {MEALS[m.get('meal') or 'dinner'][0]} {m['recipe']}" for m in a["meals"]
    )
    return f"献立を予定に追加：{shown}"


@tool(effect="write", summary=_meals_summary)
def plan_meals(
    ctx: Ctx,
    meals: Annotated[list[MealIn], Field(min_length=1, max_length=21, description="Up to 3 a day, a week.")],
) -> str:
    """Put meals from saved recipes on the household's calendar (e.g. a week's dinners)."""
    book, household = recipes_of(ctx)
    store = ctx.deps.store
    chosen = [(m, book.get(household, m.recipe)) for m in meals]  # every recipe found before any is added
    added = []
    for meal, recipe in chosen:
        title = f"{MEALS[meal.meal][0]}: {recipe.name}"
        event = store.add_event(household, title, meal.date, note=f"recipe {recipe.id}", by=ctx.user)
        added.append(f"{event.start} {title}")
    return "planned: " + "; ".join(added)


RECIPE_TOOLS = (
    list_recipes,
    find_recipes,
    add_recipe,
    edit_recipe,
    remove_recipe,
    add_missing_to_shopping_list,
    plan_meals,
)
