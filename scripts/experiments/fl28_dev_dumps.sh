#!/bin/bash
# the dev sets on this branch and on a base tree with every recall's answer dumped (fl28_dump_recalls.py)
# usage: fl28_dev_dumps.sh [new|base ...]   (outputs in $OUT: NAME_SIDE.json, NAME_SIDE.jsonl)
# fl28: OUT=/tmp/fl28/dev, base a3c941b; fl29 (issue 23): OUT=/tmp/fl29/dev/TAG BASE_SRC=/tmp/wt-9a2da6b/src
# NEW_SRC=<a copy of src> FIXED_CLOCK=2026-12-03T00:00:00+00:00 (the pooled and ja-fresh sets were added then)
OUT=${OUT:-/tmp/fl28/dev}
mkdir -p "$OUT" && cd "$OUT"
PY=/work/wt-fl28/.venv/bin/python
W=/work/wt-fl28/scripts/experiments/fl28_dump_recalls.py
D=/work/shared/data
for side in ${@:-new base}; do
  if [ $side = base ]; then src=${BASE_SRC:-/tmp/wt-a3c941b/src}; else src=${NEW_SRC:-/work/wt-fl28/src}; fi
  while read -r name args; do
    PYTHONPATH=$src $PY $W ${name}_$side.jsonl bench $args --json > ${name}_$side.json 2> ${name}_$side.err
    echo "$name $side rc=$? $(date -u +%T) $(cut -d' ' -f1 /proc/loadavg)" >> dump.log
  done <<LIST
locomo locomo $D/locomo/locomo-dev.json
pooled longmemeval $D/longmemeval/lme-oracle-dev.json --pooled
lme_s longmemeval $D/longmemeval/lme-s-dev.json
japanese japanese $D/ja
jafresh japanese /work/wt-fl28/src/shitsuji/bench/data/ja-fresh --distractors 200
LIST
done
echo done >> dump.log
