#!/bin/sh
# PostgreSQL recall at 50k in one scope, this checkout against another, in turns on two copies of one fill.
#   scripts/bench_pg_side_by_side.sh MAIN_SRC MINE_DIR MAIN_DIR [ROUNDS] [PER_ROUND] > out.jsonl
# MINE_DIR and MAIN_DIR: kept servers made by `bench_pg_recall.py fill` (copy the folder, server stopped,
# before this checkout's migrations touch it), both running. Each round runs PER_ROUND queries on each
# side, the order of the two sides alternating; pool the rounds with scripts/bench_pg_pool.py.
set -eu
main_src=$1 mine=$2 main=$3 rounds=${4:-4} per=${5:-50}
py=.venv/bin/python
i=0
while [ "$i" -lt "$rounds" ]; do
    first=$((i * per))
    if [ $((i % 2)) -eq 0 ]; then
        printf '{"side": "mine", "out": %s}\n' "$($py scripts/bench_pg_recall.py times "$mine" "$per" "$first")"
        printf '{"side": "main", "out": %s}\n' "$(PYTHONDONTWRITEBYTECODE=1 PYTHONPATH=$main_src $py scripts/bench_pg_recall.py times "$main" "$per" "$first")"
    else
        printf '{"side": "main", "out": %s}\n' "$(PYTHONDONTWRITEBYTECODE=1 PYTHONPATH=$main_src $py scripts/bench_pg_recall.py times "$main" "$per" "$first")"
        printf '{"side": "mine", "out": %s}\n' "$($py scripts/bench_pg_recall.py times "$mine" "$per" "$first")"
    fi
    i=$((i + 1))
done
