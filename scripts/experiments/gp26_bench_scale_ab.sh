#!/bin/bash
# alternating rounds: baseline 6e9f104 vs gp26, bench scale --no-memory, one process each engine
ROUNDS=${1:-3}
cd "$(dirname "$0")/../.."
for r in $(seq 0 $((ROUNDS-1))); do
  if [ $((r % 2)) -eq 0 ]; then sides="base gp26"; else sides="gp26 base"; fi
  for side in $sides; do
    if [ $side = base ]; then export PYTHONPATH=/tmp/wt-6e9f104/src; else unset PYTHONPATH; fi
    l0=$(cut -d' ' -f1-3 /proc/loadavg)
    out=$(.venv/bin/python -m shitsuji bench scale --no-memory --processes 1 --sessions 8 --requests 20 --json 2>/tmp/gp26/ab.err)
    l1=$(cut -d' ' -f1-3 /proc/loadavg)
    echo "{\"round\": $r, \"side\": \"$side\", \"load\": \"$l0 / $l1\", \"out\": $out}" >> ${OUT:-/tmp/gp26/ab.out}
  done
done
