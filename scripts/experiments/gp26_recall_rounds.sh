#!/bin/bash
# recall on the 200k fill, base (6e9f104, its own copy) vs gp26 (its copy), alternating, 40 new scopes per round
ROUNDS=${1:-3}; N=${2:-40}
cd "$(dirname "$0")/../.."
for r in $(seq 0 $((ROUNDS-1))); do
  if [ $((r % 2)) -eq 0 ]; then sides="base gp26"; else sides="gp26 base"; fi
  for side in $sides; do
    if [ $side = base ]; then export PYTHONPATH=/tmp/wt-6e9f104/src; dir=${BASE_DIR:-/tmp/gp26/pg200k-base}; else unset PYTHONPATH; dir=${NEW_DIR:-/tmp/gp26/pg200k}; fi
    l0=$(cut -d' ' -f1-3 /proc/loadavg)
    out=$(timeout 900 .venv/bin/python scripts/experiments/gp26_recall_ab.py $dir $N $((300 + r*N)) 2>/dev/null)
    echo "{\"round\": $r, \"side\": \"$side\", \"load\": \"$l0\", \"out\": $out}" >> /tmp/gp26/recall.out
  done
done
