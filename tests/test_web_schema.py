"""Schemathesis against the web API's own OpenAPI schema: whatever a signed-in member sends
(valid or not), the server answers without a 5xx.

The app runs under a real uvicorn server on loopback with a model that always answers, so
``/api/chat`` never runs out of replies. The session sends the CSRF token with every request.
``/api/events`` is an endless stream and is left out (its own tests read it).

Cases come from schemathesis' Hypothesis strategies (``operation.as_strategy``) rather than
``schemathesis.pytest.from_fixture``, whose lazy loader breaks under pytest 9 (it sets
``request.node._nodeid``, which pytest no longer has).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis import APIOperation, Case, GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.core.result import Ok

from shitsuji.llm import ScriptedModel, text_response
from shitsuji.store import close_databases
from shitsuji.web import Member
from shitsuji.web._security import CSRF_HEADER, SESSION_COOKIE

from .web_support import HOME, Site, make_site, serving

OWN = "household/futari/user/wife"
SHARED = "household/futari"
SPOUSE = "household/futari/user/husband"
EXAMPLES = 30  # per operation and mode: about 900 requests in all


class Running:
    """The site under uvicorn, a signed-in member's session and the ids of some real records."""

    def __init__(self, site: Site, base_url: str) -> None:
        self.site = site
        self.base_url = base_url
        self.session = requests.Session()
        self.sign_in()
        memory = site.backend.memory
        self.memories = [
            memory.remember("妻は紅茶が好き", OWN, category="preference").memory.id,
            memory.remember("ゴミの日は火曜", SHARED, category="routine").memory.id,
        ]
        self.secret = memory.remember("夫は妻へのサプライズを計画中", SPOUSE).memory.id
        tool = site.backend.butler.toolbox.get("add_shopping_item")
        assert tool is not None
        self.proposals = [
            site.backend.butler.proposals.propose(
                tool, {"name": name, "quantity": 1}, self.context("wife")
            ).id
            for name in ("牛乳", "卵", "米")
        ]
        self.conversation = site.backend.conversation(Member(HOME, "wife")).id

    def context(self, user: str) -> Any:
        return self.site.backend.context(Member(HOME, user))

    def sign_in(self) -> None:
        """A fresh session (the fuzzed sign-ins may have rate-limited this address, so not over HTTP)."""
        token, session = self.site.backend.accounts.start_session(HOME, "wife")
        self.session.cookies.clear()
        self.session.cookies.set(SESSION_COOKIE, token)
        self.session.headers[CSRF_HEADER] = session.csrf

    def signed_in(self) -> bool:
        return self.session.get(f"{self.base_url}/api/me", timeout=10).status_code == 200


@pytest.fixture(autouse=True)
def _fresh_databases() -> Iterator[None]:
    """The server below lives for the module: its database stays open between these tests (``running``
    closes it at the end), instead of being closed after each test as elsewhere."""
    yield


@pytest.fixture(scope="module")
def running(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Running]:
    db: Path = tmp_path_factory.mktemp("schema") / "web.db"
    site = make_site(db, ScriptedModel(lambda request: text_response("はい")))
    try:
        with serving(site.app) as base_url:
            state = Running(site, base_url)
            yield state
            state.session.close()
    finally:
        site.close()
        close_databases()


def operations(running: Running) -> list[APIOperation]:
    schema = schemathesis.openapi.from_dict(running.site.app.openapi())
    found = []
    for result in schema.exclude(path="/api/events").get_all_operations():  # an endless stream
        assert isinstance(result, Ok), result
        found.append(result.ok())
    return found


def test_the_schema_covers_the_api_but_the_event_stream(running: Running) -> None:
    labels = {op.label for op in operations(running)}
    assert (
        len(labels) == 35 and "GET /api/events" not in labels
    )  # 27 + notifications, read, reminders GET/PUT + DELETE /api/line, POST /api/password/reset, pictures, /api/nisa/cards
    assert {"GET /api/audit", "GET /api/line", "POST /api/line/code"} <= labels
    assert {
        "POST /api/chat",
        "POST /api/chat/picture",
        "PATCH /api/memories/{memory_id}",
        "DELETE /api/session",
    } <= labels
    assert {
        "POST /api/panel-actions",
        "POST /api/invitations",
        "POST /api/join",
        "PUT /api/time-zone",
    } <= labels


def has_inputs(operation: APIOperation) -> bool:
    return any(len(part) for part in (operation.body, operation.query, operation.path_parameters))


@pytest.mark.parametrize("mode", [GenerationMode.POSITIVE, GenerationMode.NEGATIVE])
def test_no_request_makes_the_server_fail(running: Running, mode: GenerationMode) -> None:
    """Valid and invalid requests to every operation: never a 5xx, whatever the body, query or path."""
    statuses: dict[str, Counter[int]] = {}
    for operation in operations(running):
        if mode is GenerationMode.NEGATIVE and not has_inputs(operation):
            continue  # nothing to get wrong
        statuses[operation.label] = Counter()

        @given(case=operation.as_strategy(mode), real=st.sampled_from([None, 0, 1, 2]))
        @settings(
            max_examples=EXAMPLES,
            derandomize=True,
            deadline=None,
            database=None,
            suppress_health_check=list(HealthCheck),
        )
        def check(case: Case, real: int | None) -> None:
            params = case.path_parameters
            if real is not None and params and (mode is GenerationMode.POSITIVE or len(case.operation.body)):
                # sometimes aim at a real record, to reach the code behind the lookup
                if "proposal_id" in params:
                    params["proposal_id"] = running.proposals[real]
                if "memory_id" in params:
                    params["memory_id"] = [*running.memories, running.secret][real]
            response = case.call(base_url=running.base_url, session=running.session, timeout=30)
            statuses[case.operation.label][response.status_code] += 1
            case.validate_response(response, checks=[not_a_server_error])
            assert response.status_code < 500, (case.operation.label, response.text)
            if not running.signed_in():  # DELETE /api/session signed out: carry on signed in
                running.sign_in()

        check()
    print({label: dict(counts) for label, counts in statuses.items()})
    # the fuzzing reached the code: signed in and past the CSRF check, every operation answered
    for label, counts in statuses.items():
        assert sum(counts.values()) >= 2, label
        assert counts[401] == counts[403] == 0, (label, counts)
    if mode is GenerationMode.POSITIVE:
        assert statuses["POST /api/chat"][200] >= 1 and statuses["PATCH /api/memories/{memory_id}"][200] >= 1


def test_the_fuzzed_member_never_reached_the_spouses_private_memory(running: Running) -> None:
    """Runs after the fuzzing above (same module-scoped site): her husband's secret is untouched."""
    secret = running.site.backend.memory.get(running.secret)
    assert secret.content == "夫は妻へのサプライズを計画中" and secret.deleted_at is None
    assert [m.id for m in running.site.backend.memory.list_memories(SPOUSE)] == [running.secret]
