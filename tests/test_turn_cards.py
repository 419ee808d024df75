"""A turn's cards come back with its claim (issue 25, pt25e), and say what the separate read said.

On PostgreSQL the claim is a data-modifying ``WITH`` whose ``SELECT`` joins the conversation's cards
(``Proposals.after``), so no statement of the turn reads ``proposals`` alone. What the cards carry must
not change for it: a decision made since the last turn is told to the model once, with the person's
words; a card still pending stays pending. Real SQLite and PostgreSQL (counted on the wire there), the
real ``Butler`` wiring and a scripted model that asks for a write (a card).
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from shitsuji.bench._statements import counting
from shitsuji.household import Butler, HouseholdStore
from shitsuji.llm import ScriptedModel, text_response, tool_use_response
from shitsuji.store import database

from .web_support import memory_engine


def _turn(butler: Butler, text: str) -> Any:
    ctx = butler.member("wife", "app", household="futari")
    turn = butler.service.begin(ctx, text)

    async def run() -> list[Any]:
        return [event async for event in butler.service.events(turn, mode="task")]

    last = asyncio.run(run())[-1]
    assert type(last).__name__ == "Finished", last
    return last


def test_the_cards_read_with_the_claim_tell_a_decision_once(target: str) -> None:
    with counting(target) as (url, statements):
        db = database(url)
        HouseholdStore(db).create("futari", ["wife", "husband"])
        model = ScriptedModel(
            [
                tool_use_response(("toolu_1", "add_todo", {"title": "年賀状を書く"}), text="追加しますね。"),
                tool_use_response(("toolu_2", "add_todo", {"title": "障子を張る"}), text="こちらも。"),
                text_response("承知しました。"),
                text_response("はい。"),
            ]
        )
        butler = Butler(db, memory_engine(url), model)
        ctx = butler.member("wife", "app", household="futari")
        _turn(butler, "年賀状を書くをToDoに")
        _turn(butler, "障子を張るもToDoに")
        first, second = butler.service.member_proposals(ctx, pending_only=True)
        decided = asyncio.run(butler.service.decide(ctx, first.id, approve=True))
        assert decided.done, decided.reason

        statements.mark()
        _turn(butler, "ありがとう")
        told = json.dumps(model.requests[-1].messages[-1], ensure_ascii=False)
        assert f"The person approved proposal {first.id}" in told and "ありがとう" in told
        assert f"approved proposal {second.id}" not in told  # still pending: no decision to tell
        if db.dialect == "postgresql":  # the cards came with the claim: no statement reads them alone
            alone = [s for s in statements.snapshot() if s.sql.lstrip().upper().startswith("SELECT")]
            assert not [s for s in alone if "FROM proposals" in s.sql], statements.report()
            claim = [s for s in statements.snapshot() if "INSERT INTO turn_claims" in s.sql]
            assert len(claim) == 1 and "JOIN proposals" in claim[0].sql, statements.report()

        _turn(butler, "またね")
        assert "The person approved" not in json.dumps(model.requests[-1].messages[-1], ensure_ascii=False)
        assert [p.id for p in butler.service.member_proposals(ctx, pending_only=True)] == [second.id]
        butler.close()
