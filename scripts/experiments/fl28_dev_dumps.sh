#!/bin/bash
# the dev sets on this branch (fl28) and on a3c941b with every recall's answer dumped (fl28_dump_recalls.py)
# usage: fl28_dev_dumps.sh [new|base ...]   (outputs in /tmp/fl28/dev: NAME_SIDE.json, NAME_SIDE.jsonl)
mkdir -p /tmp/fl28/dev && cd /tmp/fl28/dev
PY=/work/wt-fl28/.venv/bin/python
W=/work/wt-fl28/scripts/experiments/fl28_dump_recalls.py
D=/work/shared/data
for side in ${@:-new base}; do
  if [ $side = base ]; then src=/tmp/wt-a3c941b/src; else src=${NEW_SRC:-/work/wt-fl28/src}; fi
  while read -r name args; do
    PYTHONPATH=$src $PY $W ${name}_$side.jsonl bench $args --json > ${name}_$side.json 2> ${name}_$side.err
    echo "$name $side rc=$? $(date -u +%T) $(cut -d' ' -f1 /proc/loadavg)" >> dump.log
  done <<LIST
locomo locomo $D/locomo/locomo-dev.json
lme_s longmemeval $D/longmemeval/lme-s-dev.json
japanese japanese $D/ja
LIST
done
echo done >> dump.log
