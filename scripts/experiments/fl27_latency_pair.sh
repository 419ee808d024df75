#!/bin/bash
# one pair: this branch (fl27) and 453f1c1 `bench latency --n 100000` at the same time (the same load for both)
# usage: fl27_latency_pair.sh N   (outputs in /tmp/fl27/lat; NEW_SRC: a copy of this branch's src, default the tree's)
mkdir -p /tmp/fl27/lat && cd /tmp/fl27/lat
B=/work/wt-fl27/.venv/bin/shitsuji
p=$1
echo "start $(date -u +%T) $(cat /proc/loadavg)" > lat$p.log
PYTHONPATH=${NEW_SRC:-/work/wt-fl27/src} $B bench latency --n 100000 --queries 200 --json > lat_new$p.json 2> lat_new$p.err &
PYTHONPATH=/tmp/wt-453f1c1-fl27/src $B bench latency --n 100000 --queries 200 --json > lat_base$p.json 2> lat_base$p.err &
wait
echo "end $(date -u +%T) $(cat /proc/loadavg)" >> lat$p.log
