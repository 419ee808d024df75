#!/bin/bash
# dev sets on this branch (fl27) and on 453f1c1, one after the other, JSON per side: compare them
# usage: fl27_dev_sets.sh [new|base ...]   (default: new base; outputs in /tmp/fl27/dev)
mkdir -p /tmp/fl27/dev && cd /tmp/fl27/dev
S=/work/wt-fl27/.venv/bin/shitsuji
D=/work/shared/data
for side in ${@:-new base}; do
  if [ $side = base ]; then src=/tmp/wt-453f1c1-fl27/src; else src=${NEW_SRC:-/work/wt-fl27/src}; fi
  while read -r name args; do
    PYTHONPATH=$src $S bench $args --json > ${name}_$side.json 2> ${name}_$side.err
    echo "$name $side rc=$? $(date -u +%T) $(cut -d' ' -f1 /proc/loadavg)" >> dev.log
  done <<LIST
locomo locomo $D/locomo/locomo-dev.json
japanese japanese $D/ja
lme_pooled longmemeval $D/longmemeval/lme-oracle-dev.json --pooled
LIST
done
echo done >> dev.log
