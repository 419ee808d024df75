#!/usr/bin/env bash
# usage: pin.sh SRC OUTFILE — /tmp/rest/pin/pin.sh adapted: SQLite only, the interpreter of wt-ja27's venv with
# SRC on PYTHONPATH; only this run's app processes (children of its bench process) are re-pinned to CPU 0.
src=$1; out=$2
echo "load $(cut -d' ' -f1-3 /proc/loadavg)" > $out.load
cd /work/wt-ja27 && PYTHONPATH=$src taskset -c 1 .venv/bin/shitsuji bench scale --no-memory --engine sqlite --processes 1 --sessions 8 --requests 40 --json > $out 2> $out.err &
bench=$!
while kill -0 $bench 2>/dev/null; do for p in $(pgrep -P $bench -f 'shitsuji.bench.scale '); do taskset -pc 0 $p >/dev/null 2>&1; done; sleep 0.2; done
wait $bench
echo "load-end $(cut -d' ' -f1-3 /proc/loadavg)" >> $out.load
