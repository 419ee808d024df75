"""``shitsuji bench time``: questions about time on a labelled set, with each time rule on and off."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from ._app import STATE, JsonFlag, console, err_console, print_json
from ._bench import bench_app

COLUMNS = ("shipped", "without_span", "without_newer", "without_both")


@bench_app.command("time")
def time_bench(
    path: Annotated[
        Path | None,
        typer.Argument(
            help="A time-question set (JSON, the packaged set's format); default: the packaged set.",
            exists=True,
            dir_okay=False,
        ),
    ] = None,
    distractors: Annotated[
        int,
        typer.Option(
            "--distractors", min=0, help="Synthetic facts added to each asker's scope, said over the year."
        ),
    ] = 0,
    as_json: JsonFlag = False,
) -> None:
    """hit@1/hit@3 per kind and language on a labelled set of time questions, beside the span rule and
    newer-first turned off, and leave-one-household-out over their settings."""
    from ..bench.time_questions import run_time_questions

    def note(message: str) -> None:
        err_console.print(f"[dim]{message}[/]")

    data = run_time_questions(
        path, embedder=STATE.settings().embedder, distractors=distractors, progress=None if as_json else note
    )
    if as_json:
        print_json(data)
        return
    _table(data)


def _table(data: dict[str, Any]) -> None:
    rules = data["rules"]
    console.print(
        f"[bold]time questions[/] ({data['embedder']}): {data['questions']} questions, {data['facts']} facts, "
        f"{data['distractors']} distractors; "
        "hit@1 / hit@3"
    )
    console.print(f"  {'':<22}" + "".join(f"{c:>16}" for c in COLUMNS))
    rows = [("overall", "overall", None)]
    rows += [(name, "by_kind", name) for name in rules["shipped"]["by_kind"]]
    rows += [(name, "by_lang", name) for name in rules["shipped"]["by_lang"]]
    for label, group, key in rows:
        blocks = [rules[c][group] if key is None else rules[c][group][key] for c in COLUMNS]
        n = blocks[0]["n"]
        console.print(
            f"  {label + f' ({n})':<22}"
            + "".join(f"{b['hit_at_1']:>9.3f} {b['hit_at_3']:.3f}" for b in blocks)
        )
    held = data["leave_one_out"]
    console.print(
        f"  leave one household out: hit@1 {held['overall']['hit_at_1']:.3f}  hit@3 {held['overall']['hit_at_3']:.3f}  "
        + "  ".join(f"{h}: {b['chosen']}" for h, b in held["by_household"].items())
    )
    for miss in data["misses"]:
        console.print(f"  missed {miss['id']} ({miss['kind']}, rank {miss['rank']}): {miss['text']}")
