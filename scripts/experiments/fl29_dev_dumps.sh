#!/bin/bash
# the dev sets on a copy of this branch's src (NEW_SRC) and on 9a2da6b with every recall's answer dumped
# (fl28_dump_recalls.py, on a fixed clock) and the benches' JSON kept
# usage: fl29_dev_dumps.sh TAG [new|base ...]   (outputs in /tmp/fl29/dev/TAG: NAME_SIDE.json, NAME_SIDE.jsonl)
mkdir -p /tmp/fl29/dev/$1 && cd /tmp/fl29/dev/$1 && shift
PY=/work/wt-fl28/.venv/bin/python
W=/work/wt-fl28/scripts/experiments/fl28_dump_recalls.py
D=/work/shared/data
export FIXED_CLOCK=2026-12-03T00:00:00+00:00
for side in ${@:-new base}; do
  if [ $side = base ]; then src=/tmp/wt-9a2da6b/src; else src=${NEW_SRC:-/work/wt-fl28/src}; fi
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
