#!/bin/bash
# dev sets on this branch (fl28) and on a3c941b, one after the other, JSON per side: compare them
# usage: fl28_dev_sets.sh [new|base ...]   (default: new base; outputs in /tmp/fl28/dev)
mkdir -p /tmp/fl28/dev && cd /tmp/fl28/dev
S=/work/wt-fl28/.venv/bin/shitsuji
D=/work/shared/data
for side in ${@:-new base}; do
  if [ $side = base ]; then src=/tmp/wt-a3c941b/src; else src=${NEW_SRC:-/work/wt-fl28/src}; fi
  while read -r name args; do
    PYTHONPATH=$src $S bench $args --json > ${name}_$side.json 2> ${name}_$side.err
    echo "$name $side rc=$? $(date -u +%T) $(cut -d' ' -f1 /proc/loadavg)" >> dev.log
  done <<LIST
locomo locomo $D/locomo/locomo-dev.json
lme_s longmemeval $D/longmemeval/lme-s-dev.json
japanese japanese $D/ja
LIST
done
echo done >> dev.log
