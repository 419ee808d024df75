"""Saved recipes: a name, ingredients with amounts, steps, tags and where it came from.

Recipes are the household's (shared): the couple cooks from one book. Each ingredient is a
row of its own with a *key* — its name folded for comparison (NFKC, case, katakana to
hiragana, no spaces), so 「タマネギ」, 「たまねぎ」 and 「ﾀﾏﾈｷﾞ」 are one ingredient —
which is what "冷蔵庫の卵と玉ねぎで何が作れる？" (``cookable``) and "add what's missing for
カレー" (``missing``) compare. Nothing here guesses at synonyms (玉ねぎ vs 玉葱): the key
is the written name, folded.
"""

from __future__ import annotations

import re
import secrets
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from .. import store as db
from ..errors import NotFoundError, UserInputError
from ._changing import DomainStore, changing
from ._values import MAX_NOTE, MAX_TITLE, check_text

MAX_INGREDIENTS = 40
MAX_STEPS = 30
MAX_TAGS = 10
MAX_URL = 500
_RECIPE = "id, name, steps, tags, source_url, added_by, created_at"
_SPLIT = re.compile(r"[、,，\n]+")
_AMOUNT = re.compile(r"^(?P<name>.+?)[\s:：]+(?P<amount>[^\s:：]+)$")


def ingredient_key(name: str) -> str:
    """A name folded for comparison: NFKC, lower case, katakana as hiragana, no spaces."""
    text = unicodedata.normalize("NFKC", name).casefold()
    text = "".join(chr(ord(c) - 0x60) if "ァ" <= c <= "ヶ" else c for c in text)
    return "".join(text.split())


@dataclass(frozen=True, slots=True)
class Ingredient:
    name: str
    amount: str | None = None

    @property
    def key(self) -> str:
        return ingredient_key(self.name)

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, **({"amount": self.amount} if self.amount else {})}


def parse_ingredients(text: str) -> list[Ingredient]:
    """「卵 2個、玉ねぎ 1個、塩」 → the three ingredients (the last word of each part is its amount)."""
    found = []
    for part in _SPLIT.split(text):
        part = part.strip()
        if not part:
            continue
        match = _AMOUNT.match(part)
        found.append(Ingredient(match["name"], match["amount"]) if match else Ingredient(part))
    return found


@dataclass(frozen=True, slots=True)
class Recipe:
    id: str
    name: str
    ingredients: tuple[Ingredient, ...]
    steps: tuple[str, ...]
    tags: tuple[str, ...]
    source_url: str | None
    added_by: str
    created_at: str

    def to_json(self) -> dict[str, Any]:
        row: dict[str, Any] = {
            "id": self.id,
            "name": self.name,
            "ingredients": [i.to_json() for i in self.ingredients],
            "steps": list(self.steps),
            "tags": list(self.tags),
            "added_by": self.added_by,
        }
        if self.source_url:
            row["source_url"] = self.source_url
        return row


@dataclass(frozen=True, slots=True)
class Match:
    """A recipe against what there is: the ingredients at hand and the ones still missing."""

    recipe: Recipe
    have: tuple[Ingredient, ...]
    missing: tuple[Ingredient, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.recipe.id,
            "name": self.recipe.name,
            "have": [i.name for i in self.have],
            "missing": [i.to_json() for i in self.missing],
        }


def _same(a: str, b: str) -> bool:
    """Whether two keys name the same thing (one contains the other: 卵 ~ 卵黄 is left to the cook)."""
    return bool(a) and bool(b) and (a == b or a in b or b in a)


def _lines(text: str | None) -> tuple[str, ...]:
    return tuple(t for t in (text or "").split("\n") if t)


def _check_url(url: str | None) -> str | None:
    if url is None or not url.strip():
        return None
    text = url.strip()
    if len(text) > MAX_URL or not re.match(r"^https?://[^\s/$.?#][^\s]*$", text):
        raise UserInputError(
            f"source URL {url!r} is not an http(s) address: use e.g. https://example.com/curry"
        )
    return text


def _check_list(items: Iterable[str], what: str, limit: int, width: int) -> tuple[str, ...]:
    out = tuple(check_text(i, what, width) for i in items if i and i.strip())
    if len(out) > limit:
        raise UserInputError(f"a recipe has at most {limit} {what}s, got {len(out)}")
    return out


class RecipeStore(DomainStore):
    """The household's recipe book."""

    def add(
        self,
        household: str,
        name: str,
        ingredients: Sequence[Ingredient],
        steps: Sequence[str] = (),
        tags: Sequence[str] = (),
        source_url: str | None = None,
        *,
        by: str,
    ) -> Recipe:
        recipe = Recipe(
            "r_" + secrets.token_hex(4),
            check_text(name, "recipe name"),
            self._checked(ingredients),
            _check_list(steps, "step", MAX_STEPS, MAX_NOTE),
            _check_list(tags, "tag", MAX_TAGS, 20),
            _check_url(source_url),
            by,
            self.clock().isoformat(timespec="seconds"),
        )
        with changing(self.db, household) as tx:
            if tx.execute("SELECT 1 FROM households WHERE name = ?", (household,)).fetchone() is None:
                raise NotFoundError(f"no household named {household!r}")
            tx.execute(
                f"INSERT INTO recipes (household, {_RECIPE}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    household,
                    recipe.id,
                    recipe.name,
                    "\n".join(recipe.steps),
                    "\n".join(recipe.tags),
                    recipe.source_url,
                    by,
                    recipe.created_at,
                ),
            )
            self._write_ingredients(tx, household, recipe)
        return recipe

    def recipes(self, household: str, *, tag: str | None = None) -> list[Recipe]:
        """The book by name (only those tagged ``tag`` when given)."""
        rows = self.db.execute(
            f"SELECT {_RECIPE} FROM recipes WHERE household = ? ORDER BY name, id", (household,)
        ).fetchall()
        parts = self._ingredients(household)
        found = [self._recipe(r, parts.get(r[0], ())) for r in rows]
        return [r for r in found if tag is None or tag in r.tags]

    def get(self, household: str, ref: str) -> Recipe:
        """A recipe by id, or by its exact name (「カレー」)."""
        matches = [r for r in self.recipes(household) if r.id == ref or r.name == ref.strip()]
        if not matches:
            raise NotFoundError(f"no recipe {ref!r} in this household: list them to see the ids and names")
        return matches[0]

    def edit(
        self,
        household: str,
        ref: str,
        *,
        name: str | None = None,
        ingredients: Sequence[Ingredient] | None = None,
        steps: Sequence[str] | None = None,
        tags: Sequence[str] | None = None,
        source_url: str | None = None,
    ) -> Recipe:
        old = self.get(household, ref)
        new = Recipe(
            old.id,
            check_text(name, "recipe name") if name is not None else old.name,
            self._checked(ingredients) if ingredients is not None else old.ingredients,
            _check_list(steps, "step", MAX_STEPS, MAX_NOTE) if steps is not None else old.steps,
            _check_list(tags, "tag", MAX_TAGS, 20) if tags is not None else old.tags,
            _check_url(source_url) if source_url is not None else old.source_url,
            old.added_by,
            old.created_at,
        )
        with changing(self.db, household) as tx:
            tx.execute(
                "UPDATE recipes SET name = ?, steps = ?, tags = ?, source_url = ? WHERE household = ? AND id = ?",
                (new.name, "\n".join(new.steps), "\n".join(new.tags), new.source_url, household, old.id),
            )
            tx.execute(
                "DELETE FROM recipe_ingredients WHERE household = ? AND recipe = ?", (household, old.id)
            )
            self._write_ingredients(tx, household, new)
        return new

    def remove(self, household: str, ref: str) -> Recipe:
        old = self.get(household, ref)
        with changing(self.db, household) as tx:
            tx.execute(
                "DELETE FROM recipe_ingredients WHERE household = ? AND recipe = ?", (household, old.id)
            )
            tx.execute("DELETE FROM recipes WHERE household = ? AND id = ?", (household, old.id))
        return old

    def cookable(self, household: str, have: Iterable[str], *, limit: int = 10) -> list[Match]:
        """Recipes using what there is, those missing least first (then those using most of it)."""
        keys = [ingredient_key(h) for h in have if h.strip()]
        found = []
        for recipe in self.recipes(household):
            used = tuple(i for i in recipe.ingredients if any(_same(i.key, k) for k in keys))
            if used:
                missing = tuple(i for i in recipe.ingredients if i not in used)
                found.append(Match(recipe, used, missing))
        found.sort(key=lambda m: (len(m.missing), -len(m.have), m.recipe.name))
        return found[:limit]

    def missing(
        self, household: str, ref: str, have: Iterable[str] = (), on_list: Iterable[str] = ()
    ) -> Match:
        """What ``ref`` needs beyond ``have`` and what is already on the shopping list (``on_list``)."""
        recipe = self.get(household, ref)
        keys = [ingredient_key(h) for h in (*have, *on_list) if h.strip()]
        covered = tuple(i for i in recipe.ingredients if any(_same(i.key, k) for k in keys))
        return Match(recipe, covered, tuple(i for i in recipe.ingredients if i not in covered))

    def count(self, household: str) -> int:
        row = self.db.execute("SELECT COUNT(*) FROM recipes WHERE household = ?", (household,)).fetchone()
        return int(row[0])

    # -- helpers ----------------------------------------------------------

    @staticmethod
    def _checked(ingredients: Sequence[Ingredient]) -> tuple[Ingredient, ...]:
        out = tuple(
            Ingredient(
                check_text(i.name, "ingredient", MAX_TITLE),
                check_text(i.amount, "amount", 30) if i.amount else None,
            )
            for i in ingredients
        )
        if not out:
            raise UserInputError("a recipe needs at least one ingredient, e.g. 卵 2個")
        if len(out) > MAX_INGREDIENTS:
            raise UserInputError(f"a recipe has at most {MAX_INGREDIENTS} ingredients, got {len(out)}")
        return out

    @staticmethod
    def _write_ingredients(tx: db.Tx, household: str, recipe: Recipe) -> None:
        tx.executemany(
            "INSERT INTO recipe_ingredients (recipe, household, position, name, amount, key) VALUES (?, ?, ?, ?, ?, ?)",
            [(recipe.id, household, n, i.name, i.amount, i.key) for n, i in enumerate(recipe.ingredients)],
        )

    def _ingredients(self, household: str) -> dict[str, tuple[Ingredient, ...]]:
        rows = self.db.execute(
            "SELECT recipe, name, amount FROM recipe_ingredients WHERE household = ? ORDER BY recipe, position",
            (household,),
        ).fetchall()
        out: dict[str, list[Ingredient]] = {}
        for recipe, name, amount in rows:
            out.setdefault(recipe, []).append(Ingredient(name, amount))
        return {k: tuple(v) for k, v in out.items()}

    @staticmethod
    def _recipe(row: Sequence[Any], ingredients: tuple[Ingredient, ...]) -> Recipe:
        rid, name, steps, tags, url, by, created = row
        return Recipe(rid, name, ingredients, _lines(steps), _lines(tags), url, by, created)
