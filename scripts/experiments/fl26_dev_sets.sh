#!/bin/bash
# every dev set on this branch (fl26), then on 6e9f104, one after the other, JSON per side: compare them
# usage: fl26_dev_sets.sh [new|base ...]   (default: new base)
mkdir -p /tmp/fl26/dev && cd /tmp/fl26/dev
S=/work/wt-fl23c/.venv/bin/shitsuji
D=/work/shared/data
unset OPENBLAS_THREAD_TIMEOUT
for side in ${@:-new base}; do
  if [ $side = base ]; then src=/tmp/wt-6e9f104/src; else src=/work/wt-fl23c/src; fi
  while read -r name args; do
    PYTHONPATH=$src $S bench $args --json > ${name}_$side.json 2> ${name}_$side.err
    echo "$name $side rc=$? $(date -u +%T)" >> dev.log
  done <<LIST
locomo locomo $D/locomo/locomo-dev.json
lme_pooled longmemeval $D/longmemeval/lme-oracle-dev.json --pooled
lme_s longmemeval $D/longmemeval/lme-s-dev.json
japanese japanese $D/ja
LIST
done
echo done >> dev.log
