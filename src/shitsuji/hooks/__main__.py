"""``python -m shitsuji.hooks prompt``: the hook's fast entry point.

Same behaviour as ``shitsuji hook prompt``, without importing the Typer/Rich command
line or the MCP SDK; ``install-hooks`` writes this form. Errors print one line on stderr
and exit 1, which both clients treat as a non-blocking hook failure (exit 2 would block
the user's prompt, so it is never used).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..config import Settings
from ..errors import ShitsujiError
from ._context import DEFAULT_BUDGET, DEFAULT_K
from ._prompt import answer_prompt, one_blas_thread


def _settings(db: Path | None) -> Settings:
    settings = Settings.from_env(db=db)
    settings.use_caches()  # the chatter check and the mapped model find their cache files there
    return settings


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m shitsuji.hooks", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    prompt = sub.add_parser("prompt", help="Print memories relevant to a UserPromptSubmit payload on stdin.")
    prompt.add_argument("--db", type=Path, default=None, help="Database file (env SHITSUJI_DB).")
    prompt.add_argument("-k", "--k", type=int, default=DEFAULT_K, help="At most this many memories.")
    prompt.add_argument("--budget", type=int, default=DEFAULT_BUDGET, help="At most this many characters.")
    prompt.add_argument("--plain", action="store_true", help="Print plain text instead of hook JSON.")
    args = parser.parse_args(argv)
    one_blas_thread()
    try:
        out = answer_prompt(
            sys.stdin.read(), _settings(args.db).db, k=args.k, budget=args.budget, plain=args.plain
        )  # the embedder comes from SHITSUJI_EMBEDDER
    except ShitsujiError as exc:
        print(f"shitsuji hook: {exc}", file=sys.stderr)
        return 1
    if out:
        sys.stdout.write(out + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
