"""The start-up heap, frozen once a server has loaded what it keeps (modules, the app, indexes).

CPython's collector walks every tracked object on a full pass. A server's first full pass after
start-up comes while it answers requests and walks everything start-up made — in the web app a
pause of ~100 ms with the event loop stopped (``bench web``, loop lag max), in the hook server a slow
prompt. Collecting once and freezing (``gc.freeze``) moves those objects out of the collector's sight:
later passes see only what requests make. The web app unfreezes when it stops (``gc.unfreeze``), so an
app stopped inside a longer process (tests, ``bench``) leaves nothing uncollectable behind.
"""

from __future__ import annotations

import gc

__all__ = ["settle_heap"]


def settle_heap() -> None:
    """Collect now and freeze what survives (call once, after a server's warm-up, before its work)."""
    gc.collect()
    gc.freeze()
