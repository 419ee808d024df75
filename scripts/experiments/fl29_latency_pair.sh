#!/bin/bash
# one pair: a copy of this branch's src (NEW_SRC) and 9a2da6b, `bench latency --n 100000` at the same time
# usage: fl29_latency_pair.sh N   (outputs in /tmp/fl29/lat)
mkdir -p /tmp/fl29/lat && cd /tmp/fl29/lat
B=/work/wt-fl28/.venv/bin/shitsuji
echo "start $(date -u +%T) $(cat /proc/loadavg)" > "lat$1.log"
PYTHONPATH=${NEW_SRC:-/work/wt-fl28/src} $B bench latency --n 100000 --queries 200 --json > "lat_new$1.json" 2> "lat_new$1.err" &
PYTHONPATH=/tmp/wt-9a2da6b/src $B bench latency --n 100000 --queries 200 --json > "lat_base$1.json" 2> "lat_base$1.err" &
wait
echo "end $(date -u +%T) $(cat /proc/loadavg)" >> "lat$1.log"
