"""Live updates across processes: a change made by one app instance reaches another's open event
stream — on PostgreSQL by NOTIFY at once, on SQLite by the stream's 2-second re-read."""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Iterator

import httpx
import pytest

from shitsuji.household import HouseholdStore
from shitsuji.store import database, is_postgres
from shitsuji.web._hub import LISTEN_POLL_S, POLL_S

from .web_support import HOME, PASSWORD, Site, make_site, serving


@pytest.fixture
def two_sites(target: str) -> Iterator[tuple[Site, Site]]:
    """Two app instances over one database, as two processes behind one port would be."""
    first = make_site(target, None)
    second = make_site(target, None)
    yield first, second
    first.close()
    second.close()


def _listen(base: str, heard: queue.Queue[tuple[str, float]], stop: threading.Event) -> None:
    """Sign in as the husband and put every event of his stream on ``heard`` with its arrival time."""
    with httpx.Client(base_url=base, timeout=30) as client:
        signed = client.post(
            "/api/session", json={"user": "husband", "password": PASSWORD, "household": HOME}
        )
        assert signed.status_code == 200, signed.text
        with client.stream("GET", "/api/events") as stream:
            for line in stream.iter_lines():
                if line.startswith("event: "):
                    heard.put((line.removeprefix("event: "), time.monotonic()))
                if stop.is_set():
                    return


def test_a_change_in_one_app_reaches_the_others_stream(two_sites: tuple[Site, Site], target: str) -> None:
    changer, watcher = two_sites
    heard: queue.Queue[tuple[str, float]] = queue.Queue()
    stop = threading.Event()
    with serving(watcher.app) as base:
        listening = threading.Thread(target=_listen, args=(base, heard, stop), daemon=True)
        listening.start()
        assert heard.get(timeout=10)[0] == "hello"
        time.sleep(0.3)  # the stream is waiting now
        changed = time.monotonic()
        changer.backend.store.add_shopping_item(HOME, "卵", by="wife")
        kind, at = heard.get(timeout=POLL_S + 5)
        stop.set()
        poll_s = watcher.backend.hub.poll_s
    assert kind == "household"
    if is_postgres(target):
        assert poll_s == LISTEN_POLL_S  # streams no longer re-read every 2 s …
        assert at - changed < 1.0  # … the notification woke this one at once
    else:
        assert poll_s == POLL_S and at - changed < POLL_S + 1.5


def test_only_the_changed_household_is_notified_and_a_rolled_back_change_not_at_all(pg_url: str) -> None:
    import psycopg

    store = HouseholdStore(database(pg_url))
    store.create("futari", ["wife"])
    store.create("tonari", ["neighbour"])
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("LISTEN shitsuji_household")
        store.add_todo("futari", "ゴミ出し", by="wife")
        with pytest.raises(Exception, match="no to-do"):
            store.complete_todo("tonari", "t_missing", by="neighbour")  # raises inside the transaction
        heard = [note.payload for note in conn.notifies(timeout=0.5)]
    store.close()
    assert heard == ["futari"]
