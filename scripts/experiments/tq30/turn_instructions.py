"""Instructions a SQLite chat turn costs, counted by callgrind (issue 23, tq30).

The app of ``bench scale``'s chat part (``Butler(..., scripted_model(), panels=True)`` in ``create_app``) is
driven in this process, over ``httpx.ASGITransport`` (mode ``http``: sign-in, CSRF, the SSE stream) or through
``Backend.begin``/``run`` (mode ``direct``: ``bench web``'s in-process path), with ``bench web``'s messages
(every 4th asks for the shopping list, so the model calls a tool). One session warms up first (``--warm``
turns, untimed, uncounted); then ``--sessions`` sessions send ``--turns`` messages each, one after another,
each in its own conversation (``bench scale`` sends 40 a session). Only those turns are counted: the
process runs under ``valgrind --tool=callgrind --instr-atstart=no`` and ``cgctl.so`` starts the
instrumentation before them and dumps the counts after (every thread's).

    gcc -O1 -shared -fPIC -o /tmp/tq30-cgctl.so scripts/experiments/tq30/cgctl.c
    PYTHONHASHSEED=0 PYTHONPATH=SRC valgrind --tool=callgrind --instr-atstart=no \\
        --callgrind-out-file=OUT.%p python scripts/experiments/tq30/turn_instructions.py --turns 40
    # then: instructions a turn = the dump's "totals:" / (sessions × turns); bisect.sh does both

Outside valgrind the client requests do nothing: the script then prints wall and CPU ms a turn instead.
"""

from __future__ import annotations

import argparse
import asyncio
import ctypes
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

CGCTL = os.environ.get("TQ30_CGCTL", "/tmp/tq30-cgctl.so")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", choices=("http", "direct"), default="http")
    parser.add_argument("--turns", type=int, default=40, help="messages a counted session sends")
    parser.add_argument("--sessions", type=int, default=1)
    parser.add_argument("--warm", type=int, default=8, help="messages of the warm-up session")
    parser.add_argument("--embedder", default="hash")
    parser.add_argument("--tool-every", type=int, default=4)
    parser.add_argument("--profile", help="cProfile the counted turns into this file")
    parser.add_argument(
        "--concurrent", action="store_true", help="the counted sessions at once (bench scale)"
    )
    parser.add_argument(
        "--lifespan",
        action="store_true",
        help="run the app's lifespan (warm-up, loop-lag probe) around it all",
    )
    args = parser.parse_args()
    cg = ctypes.CDLL(CGCTL)
    if args.profile:
        _profile_every_thread()
    with tempfile.TemporaryDirectory(prefix="tq30-") as tmp:
        asyncio.run(_run(Path(tmp), args, cg))


_PROFILES: list[object] = []


def _profile_every_thread() -> None:
    """A cProfile profiler in every thread started from now on (the turn's work runs on worker threads)."""
    import cProfile
    import threading

    def start(*_: object) -> None:
        profile = cProfile.Profile()
        _PROFILES.append(profile)
        profile.enable()

    threading.setprofile(start)


async def _run(tmp: Path, args: argparse.Namespace, cg: ctypes.CDLL) -> None:
    import httpx

    from shitsuji._offload import bound_threads
    from shitsuji.bench.web import (
        Session,
        _chat_once,
        _new_conversation,
        _sign_in,
        close_backend,
        make_backend,
        member_names,
        message,
    )
    from shitsuji.web import Member, create_app

    bound_threads()  # as the app's lifespan does (its loop-lag probe and warm-up task are left out)
    members = 1 + args.sessions
    backend = make_backend(tmp / "chat.db", members, args.embedder)
    app = create_app(backend)
    names = member_names(members)
    transport = httpx.ASGITransport(app=app)
    clients = [httpx.AsyncClient(transport=transport, base_url="http://tq30") for _ in names]
    sessions = [Session(c, u) for c, u in zip(clients, names, strict=True)]

    conversations: dict[int, str] = {}

    async def sign_in(index: int) -> None:
        """Sign-in (argon2: ~0.1 s of CPU) and the conversation, before the count."""
        if args.mode == "http":
            await _sign_in(sessions[index])
            await _new_conversation(sessions[index])
        else:
            conversations[index] = (await backend.new_conversation(Member("bench", names[index]))).id

    async def chat(index: int, turns: int) -> int:
        bad = 0
        if args.mode == "http":
            s = sessions[index]
            for i in range(turns):
                sample = await _chat_once(s, message(i, args.tool_every))
                bad += not sample.ok
        else:
            member, conversation = Member("bench", names[index]), conversations[index]
            for i in range(turns):
                turn = backend.begin(member, message(i, args.tool_every), conversation)
                outcome = await backend.run(member, turn, lambda event, data: None)
                bad += type(outcome).__name__ != "Finished"
        return bad

    async def counted() -> None:
        for index in range(members):
            await sign_in(index)
        bad = await chat(0, args.warm)
        profile = None
        if args.profile:
            import cProfile

            profile = cProfile.Profile()
            for other in _PROFILES:
                other.clear()  # type: ignore[attr-defined]  # the warm-up's calls
        cpu, wall, usage = time.process_time(), time.perf_counter(), resource.getrusage(resource.RUSAGE_SELF)
        cg.cg_start()
        if profile:
            profile.enable()
        if args.concurrent:
            bad += sum(await asyncio.gather(*(chat(s, args.turns) for s in range(1, members))))
        else:
            for s in range(1, members):
                bad += await chat(s, args.turns)
        if profile:
            profile.disable()
        cg.cg_stop(b"turns")
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        end = resource.getrusage(resource.RUSAGE_SELF)
        if profile:
            import pstats

            stats = pstats.Stats(profile)
            for other in _PROFILES:
                stats.add(other)
            stats.dump_stats(args.profile)
        n = args.sessions * args.turns
        print(
            f"turns {n} failed {bad} cpu_ms_per_turn {cpu / n * 1000:.3f} wall_ms_per_turn {wall / n * 1000:.3f}"
        )
        each = {
            "user_ms": (end.ru_utime - usage.ru_utime) * 1000,
            "sys_ms": (end.ru_stime - usage.ru_stime) * 1000,
            "minor_faults": end.ru_minflt - usage.ru_minflt,
            "major_faults": end.ru_majflt - usage.ru_majflt,
            "voluntary_switches": end.ru_nvcsw - usage.ru_nvcsw,
            "involuntary_switches": end.ru_nivcsw - usage.ru_nivcsw,
        }
        print("per_turn " + " ".join(f"{k} {v / n:.3f}" for k, v in each.items()))
        if bad:
            sys.exit(1)

    try:
        if args.lifespan:
            async with app.router.lifespan_context(app):
                await counted()
        else:
            await counted()
    finally:
        for c in clients:
            await c.aclose()
        close_backend(backend)


if __name__ == "__main__":
    main()
