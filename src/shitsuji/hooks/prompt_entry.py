"""The prompt hook run by its file's path: ``python …/shitsuji/hooks/prompt_entry.py prompt``.

The same as ``python -m shitsuji.hooks prompt`` (``__main__``), without ``-m``: ``runpy``
and what it imports cost ~3.4 ms of the hook process's ~17 ms of CPU per prompt when the
hook server answers (measured side by side, docs/benchmarks.md hk23e). ``install-hooks``
writes this form.

Python puts a script's own folder first on ``sys.path``; that folder is this package's, whose
module names (``_client``, ``_server``…) must not shadow anything, so it is replaced by the
folder holding the ``shitsuji`` package (site-packages, or ``src`` in a development install).
"""

import os
import sys

if __name__ == "__main__":
    sys.path[0] = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from shitsuji.hooks.__main__ import main

    sys.exit(main())
