#!/usr/bin/env bash
# usage: wall_rounds.sh ROUNDS SRC_A SRC_B [OPTS...] — turn_instructions.py outside valgrind, sides alternating:
# one line per run "round side load cpu_ms_per_turn wall_ms_per_turn" (CPU and wall move with the load; a ratio of
# medians is the second figure beside the instruction counts).
rounds=$1; a=$2; b=$3; shift 3
here=$(cd "$(dirname "$0")" && pwd); root=$(cd "$here/../../.." && pwd)
for r in $(seq "$rounds"); do
  for side in "$a" "$b"; do
    load=$(cut -d' ' -f1 /proc/loadavg)
    line=$(PYTHONHASHSEED=0 PYTHONPATH=$side "$root/.venv/bin/python" "$here/turn_instructions.py" "$@" 2>/dev/null | grep '^turns')
    echo "$r $side $load $(echo "$line" | awk '{print $6, $8}')"
  done
done
