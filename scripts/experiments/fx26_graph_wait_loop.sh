#!/bin/bash
# CPU hogs beside a loop of the graph-wait tests
cd "$(dirname "$0")/../.." && mkdir -p /tmp/fx26
for i in 1 2 3; do python3 -c 'while True: pass' & echo $! >> /tmp/fx26/hogs; done
for r in $(seq 1 ${1:-6}); do
  .venv/bin/pytest -q -p no:randomly tests/test_pg_graph_wait.py > /tmp/fx26/run$r.log 2>&1
  echo "run $r rc=$? load=$(cut -d' ' -f1 /proc/loadavg)" >> /tmp/fx26/summary
done
kill $(cat /tmp/fx26/hogs); rm /tmp/fx26/hogs
