"""A card whose executor died, as its owner sees it: "interrupted" on the web card and in
``shitsuji proposals list``, and approving it again retries it once (issue 19).

The dead executor is a real process that has ended (its pid is gone); the kill -9 itself is
tests/test_crash_recovery.py's.
"""

from __future__ import annotations

import socket
import subprocess
import sys
from typing import Any

from shitsuji.agent import Proposals, ToolContext
from shitsuji.household import Butler, HouseholdStore
from shitsuji.household._tools import add_shopping_item
from shitsuji.memory import HashEmbedder, MemoryEngine, open_store
from shitsuji.store import database
from shitsuji.store._process import boot_id

from .conftest import Cli
from .test_web_api import signed_in
from .web_support import Site


def _dead_process(target: str) -> str:
    """The holder name of a process that has ended."""
    ended = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    )
    return f"{socket.gethostname()}|{boot_id()}|{int(ended.stdout)}|1"


def _interrupted_card(db: str, ctx: ToolContext[Any]) -> str:
    proposals = Proposals(database(db))
    card = proposals.propose(add_shopping_item, {"name": "牛乳"}, ctx)
    with database(db).write() as tx:  # as an approving process that then died left it
        tx.execute(
            "UPDATE proposals SET status = 'running', executor = ?, decided_by = 'wife' WHERE id = ?",
            (_dead_process(db), card.id),
        )
    return card.id


def test_the_web_card_shows_interrupted_and_retry_runs_it_once(site: Site) -> None:
    client, csrf = signed_in(site, "wife", "futari")
    card = _interrupted_card(site.db, site.backend.butler.member("wife", "app", household="futari"))
    shown = client.get(f"/api/proposals/{card}").json()
    assert shown["state"] == "interrupted" and shown["interrupted"] is True
    page = client.get("/proposals").text
    assert f'data-proposal="{card}"' in page and ("やり直す" in page or "Retry" in page)
    retried = client.post(f"/api/proposals/{card}/approve", headers={"X-CSRF-Token": csrf})
    assert retried.status_code == 200 and retried.json()["proposal"]["state"] == "approved"
    again = client.post(f"/api/proposals/{card}/approve", headers={"X-CSRF-Token": csrf})
    assert again.status_code == 409
    [item] = client.get("/api/panels/shopping").json()["items"]
    assert item["name"] == "牛乳"


def test_the_terminal_lists_an_interrupted_card_and_approving_retries_it(cli: Cli, db_path: object) -> None:
    HouseholdStore(database(str(db_path))).create("futari", ["wife", "husband"])
    butler = Butler(database(str(db_path)), MemoryEngine(open_store(str(db_path)), HashEmbedder()), None)
    card = _interrupted_card(str(db_path), butler.member("wife", "cli", household="futari"))
    listed = cli("proposals", "list", "--user", "wife")
    assert card in listed.out and "interrupted: approve it again to retry" in listed.out
    assert cli("proposals", "list", "--user", "wife", "--json").json()[0]["interrupted"] is True
    done = cli("proposals", "approve", card, "--user", "wife", "--json")
    assert done.code == 0 and done.json()["proposal"]["status"] == "approved"
    assert cli("proposals", "approve", card, "--user", "wife").code == 1
    assert [i.name for i in HouseholdStore(database(str(db_path))).shopping_items("futari")] == ["牛乳"]
