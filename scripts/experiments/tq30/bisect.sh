#!/usr/bin/env bash
# usage: bisect.sh OUTDIR SRC... — instructions a turn (turn_instructions.py under callgrind, its options from
# $OPTS, e.g. OPTS="--turns 40") of each SRC, with this worktree's .venv/bin/python; prints one line per SRC:
# "SRC turns N failed F instructions_per_turn I". Two at a time (the counts do not depend on load). $VGOPTS: more
# valgrind options (--cache-sim=yes: simulated cache misses, see cg_diff.py).
out=$1; shift
here=$(cd "$(dirname "$0")" && pwd); root=$(cd "$here/../../.." && pwd)
[ -f /tmp/tq30-cgctl.so ] || gcc -O1 -shared -fPIC -o /tmp/tq30-cgctl.so "$here/cgctl.c"
mkdir -p "$out"
one() {
  local src=$1 tag; tag=$2$(echo "$src" | tr '/' '_')
  # shellcheck disable=SC2086
  PYTHONHASHSEED=0 PYTHONPATH=$src valgrind --tool=callgrind --instr-atstart=no $VGOPTS \
    --callgrind-out-file="$out/cg.$tag.%p" "$root/.venv/bin/python" "$here/turn_instructions.py" $OPTS \
    > "$out/log.$tag" 2>&1
  local dump total turns
  dump=$(ls "$out"/cg."$tag".*.1 | head -1)
  total=$(grep '^totals:' "$dump" | awk '{print $2}')
  turns=$(grep -o '^turns [0-9]*' "$out/log.$tag" | awk '{print $2}')
  echo "$src $(grep -o '^turns [0-9]* failed [0-9]*' "$out/log.$tag") instructions_per_turn $((total / turns))"
}
running=0; n=0
for src in "$@"; do
  n=$((n + 1)); one "$src" "$n" & running=$((running + 1))
  if [ $running -ge 2 ]; then wait -n; running=$((running - 1)); fi
done
wait
