#!/bin/bash
# the dev sets on this branch (dt29) and on the base 9a2da6b, alternating per set, with every recall's answer
# dumped (fl28_dump_recalls.py: query, hits' contents and score reprs); compare with fl28_compare_dumps.py.
# usage: dt29_dev_dumps.sh   (outputs in /tmp/dt29/dev: NAME_SIDE.json, NAME_SIDE.jsonl; dump.log: rc, time, load)
mkdir -p /tmp/dt29/dev && cd /tmp/dt29/dev
PY=/work/wt-pa27/.venv/bin/python
W=/work/wt-pa27/scripts/experiments/fl28_dump_recalls.py
D=/work/shared/data
B=/work/wt-pa27/src/shitsuji/bench/data
export FIXED_CLOCK=2026-12-03T00:00:00+00:00
while read -r name args; do
  for side in base new; do
    if [ $side = base ]; then src=/tmp/wt-9a2da6b/src; else src=/work/wt-pa27/src; fi
    s=$(date +%s)
    PYTHONPATH=$src $PY $W ${name}_$side.jsonl bench $args --json > ${name}_$side.json 2> ${name}_$side.err
    echo "$name $side rc=$? $(( $(date +%s) - s ))s $(date -u +%T) load $(cut -d' ' -f1 /proc/loadavg)" >> dump.log
  done
done <<LIST
pooled longmemeval $D/longmemeval/lme-oracle-dev.json --pooled
locomo locomo $D/locomo/locomo-dev.json
lme_s longmemeval $D/longmemeval/lme-s-dev.json
ja japanese $D/ja
ja_held japanese $B/ja-held --distractors 200
ja_fresh japanese $B/ja-fresh --distractors 200
ja_recall japanese $B/ja-recall --distractors 200
ja_unread japanese $B/ja-unread --distractors 200
ja_blind japanese $B/ja-blind --distractors 200
LIST
echo done >> dump.log
