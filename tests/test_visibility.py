"""One visibility rule, checked from the route table: every read route × every kind of private record.

The other member's private records (a memory, a conversation, a card, the audit rows of a
``remember`` run at once) and the other household's records (its memories, its lists, its
conversation, its card) each carry a canary word. Every GET route the app serves is asked
by the wife, with every planted id in its path and query: no canary of another member or
another household may appear. The control: each owner, asking the same routes, does see
their own canaries (so the test would notice a route that shows them). Both engines.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient

from shitsuji.household import Butler

from .test_web_api import signed_in
from .web_support import HOME, NEIGHBOUR, Site, make_site

STREAMS = {"/api/events"}  # answers forever: checked by the live-update tests, not read to the end
SIGNED_OUT_FORMS = {"/login", "/setup", "/forgot", "/join/{token}", "/lang/{code}"}
VALUES: dict[str, list[Any]] = {
    "name": ["shopping", "calendar", "todos", "budget"],
    "month": [None],
    "scope": ["all", "own", "shared"],
    "deleted": [False, True],
    "state": ["all"],
    "limit": [None],
    "category": [None],
    "done": [None],
}


@dataclass
class Planted:
    """Canary words by owner, and every planted id by parameter name."""

    canaries: dict[tuple[str, str], set[str]] = field(default_factory=dict)
    ids: dict[str, list[str]] = field(default_factory=dict)

    def add(self, owner: tuple[str, str], canary: str, **ids: str) -> None:
        self.canaries.setdefault(owner, set()).add(canary)
        for name, value in ids.items():
            self.ids.setdefault(name, []).append(value)


def _plant(butler: Butler, household: str, member: str, planted: Planted, *, lists: bool) -> None:
    tag = f"CANARY{member.upper()}"
    scope = butler.store.get(household).member_scope(member)
    memory = butler.memory.remember(f"{tag}MEMORY 秘密", scope, provenance={"by": member}).memory
    planted.add((household, member), f"{tag}MEMORY", memory_id=memory.id)
    conversation = butler.conversations.start(household, member, "app")
    butler.conversations.add_said(conversation, f"{tag}CONVERSATION の話")
    planted.add((household, member), f"{tag}CONVERSATION", id=conversation.id, c=conversation.id)
    ctx = butler.member(member, "app", household=household)
    remember = butler.toolbox.get("remember")
    assert remember is not None
    card = butler.proposals.propose(remember, {"content": f"{tag}CARD を覚える", "category": "misc"}, ctx)
    planted.add((household, member), f"{tag}CARD", proposal_id=card.id)
    butler.proposals.auto_ran(remember, {"content": f"{tag}AUDIT の予算", "category": "misc"}, ctx, ok=True)
    planted.add((household, member), f"{tag}AUDIT")
    if lists:  # the other household's shared things are private to it
        shared = butler.store.get(household).scope
        butler.memory.remember(f"{tag}SHARED 家の事", shared, provenance={"by": member})
        planted.add((household, member), f"{tag}SHARED")
        butler.store.add_shopping_item(household, f"{tag}SHOPPING", by=member)
        planted.add((household, member), f"{tag}SHOPPING")


@pytest.fixture
def site(target: str) -> Iterator[tuple[Site, Planted]]:
    made = make_site(target, None)
    planted = Planted()
    _plant(made.backend.butler, HOME, "husband", planted, lists=False)
    _plant(made.backend.butler, NEIGHBOUR, "neighbour", planted, lists=True)
    yield made, planted
    made.close()


def read_routes(routes: list[Any], prefix: str = "") -> Iterator[APIRoute]:
    """Every GET route of the app, through included routers."""
    for route in routes:
        if hasattr(route, "original_router"):
            yield from read_routes(route.original_router.routes, prefix + route.include_context.prefix)
        elif isinstance(route, APIRoute) and "GET" in route.methods:
            yield route


def requests(route: APIRoute, planted: Planted) -> Iterator[tuple[str, dict[str, Any]]]:
    """The route with every planted id (and every listed value) in its path and query."""
    path_names = [p.name for p in route.dependant.path_params]
    query_names = [p.name for p in route.dependant.query_params]

    def options(name: str) -> list[Any]:
        found = planted.ids.get(name) or VALUES.get(name)
        if found is None and name == "q":
            return [None, *(c for cs in planted.canaries.values() for c in cs)]
        return list(found) if found is not None else [None]

    for path_values in itertools.product(*(options(n) for n in path_names)):
        path = route.path
        for name, value in zip(path_names, path_values, strict=True):
            path = path.replace("{" + name + "}", str(value))
        query_options = [options(n) for n in query_names]
        for query_values in itertools.product(*query_options) if query_names else [()]:
            query = {n: v for n, v in zip(query_names, query_values, strict=True) if v is not None}
            yield path, query


def _answers(client: TestClient, planted: Planted, routes: list[APIRoute]) -> Iterator[tuple[str, str]]:
    for route in routes:
        for path, query in requests(route, planted):
            answer = client.get(path, params=query, follow_redirects=False)
            assert answer.status_code < 500, (path, query, answer.text[:300])
            text = answer.text
            for value in query.values():  # a search box shows back what was asked: that is no leak
                text = text.replace(str(value), "") if isinstance(value, str) else text
            yield f"{path}?{query}", text


def test_no_read_route_shows_another_members_or_households_private_records(
    site: tuple[Site, Planted],
) -> None:
    made, planted = site
    routes = [r for r in read_routes(made.app.router.routes) if r.path not in STREAMS | SIGNED_OUT_FORMS]
    assert len(routes) >= 15  # the table really was read
    wife, _ = signed_in(made, "wife", HOME)
    foreign = {c for owner, cs in planted.canaries.items() for c in cs if owner != (HOME, "wife")}
    asked = 0
    for where, text in _answers(wife, planted, routes):
        asked += 1
        leaked = [c for c in foreign if c in text]
        assert not leaked, (where, leaked)
    assert asked > 100
    # the control: each owner sees each of their own canaries on some route
    for (household, member), canaries in planted.canaries.items():
        owner, _ = signed_in(made, member, household)
        seen = " ".join(text for _, text in _answers(owner, planted, routes))
        assert {c for c in canaries if c not in seen} == set(), (member, household)
