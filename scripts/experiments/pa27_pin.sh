#!/usr/bin/env bash
# usage: pa27_pin.sh SRC OUT [bench args] — one pinned bench scale chat run of checkout SRC (its src on PYTHONPATH,
# this worktree's .venv): the app processes on CPU 0 (every thread, re-pinned as each starts), the bench client and
# the PostgreSQL server on CPU 1; per-CPU busy, the app's thread states sampled beside it.
# INJECT=DIR: DIR holds pa27_hops_sitecustomize.py as sitecustomize.py (each worker-thread trip's wait, wall, CPU);
# PA27_THREADS=N with it: the app processes' worker threads.
here=$(cd "$(dirname "$0")" && pwd)
src=$1; out=$2; shift 2
python3 "$here/pa27_pin_monitor.py" "$out.mon" &
mon=$!
python3 "$here/pa27_thread_states.py" "$out.states" &
st=$!
echo "load $(cut -d' ' -f1-3 /proc/loadavg)" > "$out.load"
cd "$here/../.." && PYTHONPATH=${INJECT:+$INJECT:}$src/src taskset -c 1 .venv/bin/shitsuji bench scale --no-memory --sessions 8 "$@" --json > "$out" 2> "$out.err"
kill $mon $st; wait $mon $st
echo "load-end $(cut -d' ' -f1-3 /proc/loadavg)" >> "$out.load"
