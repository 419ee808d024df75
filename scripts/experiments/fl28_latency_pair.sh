#!/bin/bash
# one pair: this branch (fl28) and a3c941b `bench latency --n 100000` at the same time (the same load for both)
# usage: fl28_latency_pair.sh N   (outputs in /tmp/fl28/lat; NEW_SRC: a copy of this branch's src, default the tree's)
mkdir -p /tmp/fl28/lat && cd /tmp/fl28/lat
B=/work/wt-fl28/.venv/bin/shitsuji
p=$1
echo "start $(date -u +%T) $(cat /proc/loadavg)" > lat$p.log
PYTHONPATH=${NEW_SRC:-/work/wt-fl28/src} $B bench latency --n 100000 --queries 200 --json > lat_new$p.json 2> lat_new$p.err &
PYTHONPATH=/tmp/wt-a3c941b/src $B bench latency --n 100000 --queries 200 --json > lat_base$p.json 2> lat_base$p.err &
wait
echo "end $(date -u +%T) $(cat /proc/loadavg)" >> lat$p.log
