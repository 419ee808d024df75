#!/bin/bash
# one pair: this branch and b6d27b8 at the same time (the same load for both)
cd /tmp/fl23c  # holds the kept fill: scripts/bench_sqlite_recall_kept.py fill /tmp/fl23c/bench.db, then one recall on it
B=/work/wt-fl23c/.venv/bin/shitsuji
p=$1
echo "start $(date -u +%T) $(cat /proc/loadavg)" > lat$p.log
PYTHONPATH=/work/wt-fl23c/src $B bench latency --n 100000 --queries 200 --json > lat_new$p.json 2> lat_new$p.err &
PYTHONPATH=/tmp/wt-b6d27b8/src $B bench latency --n 100000 --queries 200 --json > lat_base$p.json 2> lat_base$p.err &
wait
echo "end $(date -u +%T) $(cat /proc/loadavg)" >> lat$p.log
