#!/bin/bash
# alternating rounds on fresh copies of the kept 100k fill: this branch (fl28), then a3c941b (order swapped each round)
# usage: fl28_recall_ab.sh TAG ROUNDS QUERIES; the kept fill in /tmp/fl28/base.db (+ .vectors): fl27's
# (scripts/bench_sqlite_recall_kept.py fill, then one recall on it); a3c941b in /tmp/wt-a3c941b
cd /tmp/fl28
PY=/work/wt-fl28/.venv/bin/python
K=/work/wt-fl28/scripts/bench_sqlite_recall_kept.py
tag=$1; rounds=$2; q=$3
for r in $(seq 1 $rounds); do
  if [ $((r % 2)) = 1 ]; then order="new base"; else order="base new"; fi
  for side in $order; do
    rm -rf run_$side.db run_$side.db-wal run_$side.db-shm run_$side.db.vectors; cp base.db run_$side.db; cp -r base.db.vectors run_$side.db.vectors
    cat run_$side.db run_$side.db.vectors/*/* > /dev/null
    if [ $side = base ]; then src=/tmp/wt-a3c941b/src; else src=${NEW_SRC:-/work/wt-fl28/src}; fi
    l0=$(cut -d' ' -f1 /proc/loadavg)
    PYTHONPATH=$src $PY $K recall run_$side.db --queries $q > ${tag}_${side}$r.json 2>>${tag}.err
    echo "$r $side load_start=$l0 load_end=$(cut -d' ' -f1 /proc/loadavg) $(tr -d '\n ' < ${tag}_${side}$r.json)" >> ${tag}.log
  done
done
echo done >> ${tag}.log
