#!/bin/bash
# one pair: this branch and main 0279fba at the same time (the same load for both)
cd /tmp/fl23
B=/work/wt-platform/.venv/bin/shitsuji
p=$1
PYTHONPATH=/work/wt-platform/src $B bench latency --n 100000 --queries 200 --json > lat_new$p.json 2> lat_new$p.err &
PYTHONPATH=/tmp/wt-0279fba/src $B bench latency --n 100000 --queries 200 --json > lat_main$p.json 2> lat_main$p.err &
wait
echo done > lat$p.done
