#!/bin/bash
# alternating rounds: this branch, then main 0279fba, on fresh copies of the kept 100k fill
cd /tmp/fl23
PY=/work/wt-platform/.venv/bin/python
K=/work/wt-platform/scripts/bench_sqlite_recall_kept.py
tag=$1; rounds=$2; q=$3
for r in $(seq 1 $rounds); do
  for side in new main; do
    rm -rf run.db run.db-wal run.db-shm run.db.vectors; cp bench.db run.db; cp -r bench.db.vectors run.db.vectors
    cat run.db run.db.vectors/*/* > /dev/null
    if [ $side = main ]; then PYTHONPATH=/tmp/wt-0279fba/src $PY $K recall run.db --queries $q > ${tag}_${side}$r.json 2>>${tag}.err
    else PYTHONPATH=/work/wt-platform/src $PY $K recall run.db --queries $q > ${tag}_${side}$r.json 2>>${tag}.err; fi
  done
done
echo done > ${tag}.done
