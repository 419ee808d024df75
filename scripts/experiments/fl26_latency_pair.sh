#!/bin/bash
# one pair: this branch (fl26) and 6e9f104 `bench latency --n 100000` at the same time (the same load for both)
# usage: fl26_latency_pair.sh N   (outputs in /tmp/fl26/lat)
mkdir -p /tmp/fl26/lat && cd /tmp/fl26/lat
B=/work/wt-fl23c/.venv/bin/shitsuji
p=$1
unset OPENBLAS_THREAD_TIMEOUT  # the baseline must run with OpenBLAS's default; fl26 sets its own
echo "start $(date -u +%T) $(cat /proc/loadavg)" > lat$p.log
PYTHONPATH=/work/wt-fl23c/src $B bench latency --n 100000 --queries 200 --json > lat_new$p.json 2> lat_new$p.err &
PYTHONPATH=/tmp/wt-6e9f104/src $B bench latency --n 100000 --queries 200 --json > lat_base$p.json 2> lat_base$p.err &
wait
echo "end $(date -u +%T) $(cat /proc/loadavg)" >> lat$p.log
