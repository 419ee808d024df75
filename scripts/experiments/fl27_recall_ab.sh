#!/bin/bash
# alternating rounds on fresh copies of the kept 100k fill: this branch (fl27), then 453f1c1 (order swapped each round)
# usage: fl27_recall_ab.sh TAG ROUNDS QUERIES; the kept fill in /tmp/fl27/bench.db (+ .vectors), made by
# scripts/bench_sqlite_recall_kept.py fill, then one recall on it; 453f1c1 in /tmp/wt-453f1c1-fl27
cd /tmp/fl27
PY=/work/wt-fl27/.venv/bin/python
K=/work/wt-fl27/scripts/bench_sqlite_recall_kept.py
tag=$1; rounds=$2; q=$3
for r in $(seq 1 $rounds); do
  if [ $((r % 2)) = 1 ]; then order="new base"; else order="base new"; fi
  for side in $order; do
    rm -rf run_$side.db run_$side.db-wal run_$side.db-shm run_$side.db.vectors; cp bench.db run_$side.db; cp -r bench.db.vectors run_$side.db.vectors
    cat run_$side.db run_$side.db.vectors/*/* > /dev/null
    if [ $side = base ]; then src=/tmp/wt-453f1c1-fl27/src; else src=${NEW_SRC:-/work/wt-fl27/src}; fi
    l0=$(cut -d' ' -f1 /proc/loadavg)
    PYTHONPATH=$src $PY $K recall run_$side.db --queries $q > ${tag}_${side}$r.json 2>>${tag}.err
    echo "$r $side load_start=$l0 $(tr -d '\n ' < ${tag}_${side}$r.json)" >> ${tag}.log
  done
done
echo done >> ${tag}.log
