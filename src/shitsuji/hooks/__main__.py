"""``python -m shitsuji.hooks prompt``: the hook's fast entry point (and ``serve``, its server).

Same behaviour as ``shitsuji hook prompt``, without importing the Typer/Rich command
line or the MCP SDK; ``install-hooks`` writes this form. It first asks the hook server
for this database (``_quick``: its arguments read by hand, ``_socket`` and ``_json``'s
codecs, so a served prompt costs little more than starting Python; argparse only for
``serve``, ``--help`` and mistakes); when none answers it does the work itself and starts one for the next
prompt. Errors print one line on stderr and exit 1, which both clients treat as a
non-blocking hook failure (exit 2 would block the user's prompt, so it is never used).
"""

from __future__ import annotations

import os
import sys

from ._quick import (
    DEFAULT_BUDGET,
    DEFAULT_K,
    PromptArgs,
    ask_line,
    locations,
    parse_answer,
    parse_prompt,
    prompt_request,
    server_enabled,
    socket_file,
)

TYPE_CHECKING = False  # typing's own constant costs an import of typing on every prompt
if TYPE_CHECKING:
    import argparse
    from pathlib import Path

    from ..config import Settings

__all__ = ["DEFAULT_BUDGET", "DEFAULT_K", "main", "prompt", "serve"]


def _parser() -> argparse.ArgumentParser:
    import argparse  # only for what ``parse_prompt`` leaves: serve, --help, a mistake
    from pathlib import Path

    from ._client import IDLE_TIMEOUT

    parser = argparse.ArgumentParser(prog="python -m shitsuji.hooks", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    prompt = sub.add_parser("prompt", help="Print memories relevant to a UserPromptSubmit payload on stdin.")
    prompt.add_argument("--db", type=Path, default=None, help="Database file (env SHITSUJI_DB).")
    prompt.add_argument("-k", "--k", type=int, default=DEFAULT_K, help="At most this many memories.")
    prompt.add_argument("--budget", type=int, default=DEFAULT_BUDGET, help="At most this many characters.")
    prompt.add_argument("--plain", action="store_true", help="Print plain text instead of hook JSON.")
    prompt.add_argument(
        "--no-server",
        dest="server",
        action="store_false",
        help="Neither ask nor start a hook server (env SHITSUJI_HOOK_SERVER=off does the same).",
    )
    serve = sub.add_parser("serve", help="Answer prompt hooks for one database from a resident process.")
    serve.add_argument("--db", type=Path, default=None, help="Database file (env SHITSUJI_DB).")
    serve.add_argument("--embedder", default=None, help="Embedding model (env SHITSUJI_EMBEDDER).")
    serve.add_argument(
        "--idle-timeout",
        type=float,
        default=IDLE_TIMEOUT,
        help="Exit after this many seconds without a prompt.",
    )
    return parser


def _locations(db: Path | None) -> tuple[Path, str | None, Path]:
    """Database, embedder name and cache folder as ``Settings`` resolves them, without importing it."""
    from pathlib import Path

    path, embedder, cache = locations(None if db is None else os.fspath(db))
    return Path(path), embedder, Path(cache)


def prompt(args: PromptArgs) -> int:
    """Ask the server (``_quick``: nothing imported beyond two C modules), else answer alone."""
    payload = sys.stdin.read()
    url = os.environ.get("SHITSUJI_DATABASE_URL") or None
    if url is not None:  # memories in PostgreSQL: answered by this process (the server keeps a file's)
        return _answer_alone(payload, url, args)
    db, embedder, cache = locations(args.db)
    path = socket_file(db, embedder, cache) if server_enabled(args.server) and os.path.exists(db) else None
    line = None if path is None else ask_line(path, prompt_request(payload, os.getcwd(), args))
    answer = None if line is None else parse_answer(line)
    if answer is not None and "error" in answer:  # a payload the server refuses, as the hook alone would
        print(f"shitsuji hook: {answer['error']}", file=sys.stderr)
        return 1
    if answer is not None:
        _print(str(answer.get("out", "")))
        return 0
    from pathlib import Path

    code = _answer_alone(payload, Path(db), args)
    if path is not None:
        from ._client import start_server

        start_server(Path(path), Path(db), embedder)  # after answering: the agent already has what it needs
    return code


def _answer_alone(payload: str, db: str | Path, args: PromptArgs) -> int:
    from ..errors import ShitsujiError
    from ._prompt import answer_prompt, one_blas_thread

    one_blas_thread()
    settings = _use_caches(db)
    try:
        out = answer_prompt(
            payload, db, k=args.k, budget=args.budget, plain=args.plain, zone=settings.time_zone
        )
    except ShitsujiError as exc:  # the embedder comes from SHITSUJI_EMBEDDER
        print(f"shitsuji hook: {exc}", file=sys.stderr)
        return 1
    _print(out)
    return 0


def _use_caches(db: str | Path) -> Settings:
    """The settings (read once: the user's time zone among them), their cache folders put to use: the
    chatter check and the mapped model find their cache files there."""
    from ..config import Settings
    from ..store import is_postgres

    settings = Settings.from_env(db=None if is_postgres(db) else db)
    settings.use_caches()
    return settings


def serve(args: argparse.Namespace) -> int:
    from ._client import hold_lock, socket_path

    db, embedder, cache = _locations(args.db)
    if not db.exists():
        print(f"shitsuji hook serve: no database at {db}", file=sys.stderr)
        return 1
    embedder = args.embedder or embedder
    path = socket_path(db, embedder, cache)
    if path is None:
        print(f"shitsuji hook serve: the socket path under {cache} is too long", file=sys.stderr)
        return 1
    lock = hold_lock(path, mine=True)  # before loading anything: a second server leaves at once
    if lock is None:
        return 0
    try:
        return _serve_locked(db, embedder, path, args.idle_timeout)
    finally:
        os.close(lock)


def _serve_locked(db: Path, embedder: str | None, path: Path, idle_timeout: float) -> int:
    from .._open import open_memory
    from ._context import GATES
    from ._prompt import one_blas_thread
    from ._second import load_second_opinion
    from ._server import file_identity, run_server

    one_blas_thread()
    # e5's engine (OpenMP) takes every core while it embeds the memories in the background;
    # one thread leaves the other core to the prompts (read when the library loads, below)
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    zone = _use_caches(db).time_zone
    identity = file_identity(db)  # before opening: a file replaced meanwhile is noticed
    engine = open_memory(db, embedder)
    model = engine.embedder.model_id
    fused = any(key.startswith(f"{model}+") for key in GATES)  # a gate calibrated with a second model
    try:
        second = load_second_opinion(file=path.with_name(path.stem + ".second.arrays")) if fused else None
        return run_server(
            engine, db, path, idle_timeout=idle_timeout, second=second, identity=identity, zone=zone
        )
    finally:
        engine.store.close()


def _print(out: str) -> None:
    if out:
        sys.stdout.write(out + "\n")


def main(argv: list[str] | None = None) -> int:
    words = sys.argv[1:] if argv is None else argv
    quick = parse_prompt(words)
    if quick is not None:
        return prompt(quick)
    args = _parser().parse_args(words)
    if args.command == "prompt":
        db = None if args.db is None else os.fspath(args.db)
        return prompt(PromptArgs(db, args.k, args.budget, args.plain, args.server))
    return serve(args)


if __name__ == "__main__":
    sys.exit(main())
