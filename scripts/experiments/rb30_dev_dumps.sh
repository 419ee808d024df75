#!/bin/bash
# the dev sets on this branch (rb30) and on the base f01a51a (/tmp/rb30/base/src: `git archive f01a51a src`),
# alternating per set, every recall dumped with its rows read (rb30_dump_recalls.py); compare with
# rb30_compare_dumps.py. usage: rb30_dev_dumps.sh [NAME...]  (outputs in /tmp/rb30/dev; dump.log: rc, time, load)
mkdir -p /tmp/rb30/dev && cd /tmp/rb30/dev
PY=/work/wt-rb30/.venv/bin/python
W=/work/wt-rb30/scripts/experiments/rb30_dump_recalls.py
D=/work/shared/data
B=/work/wt-rb30/src/shitsuji/bench/data
export FIXED_CLOCK=2026-12-03T00:00:00+00:00
while read -r name args; do
  if [ $# -gt 0 ] && [[ " $* " != *" $name "* ]]; then continue; fi
  for side in base new; do
    if [ $side = base ]; then src=/tmp/rb30/base/src; else src=/work/wt-rb30/src; fi
    s=$(date +%s)
    PYTHONPATH=$src $PY $W ${name}_$side.jsonl bench $args --json > ${name}_$side.json 2> ${name}_$side.err
    echo "$name $side rc=$? $(( $(date +%s) - s ))s $(date -u +%T) load $(cut -d' ' -f1 /proc/loadavg)" >> dump.log
  done
done <<LIST
ja japanese $D/ja
time time
ja_held japanese $B/ja-held --distractors 200
ja_fresh japanese $B/ja-fresh --distractors 200
ja_recall japanese $B/ja-recall --distractors 200
ja_unread japanese $B/ja-unread --distractors 200
ja_blind japanese $B/ja-blind --distractors 200
ja_mixed japanese $B/ja-mixed --distractors 200
lme_s longmemeval $D/longmemeval/lme-s-dev.json
pooled longmemeval $D/longmemeval/lme-oracle-dev.json --pooled
locomo locomo $D/locomo/locomo-dev.json
LIST
echo done >> dump.log
