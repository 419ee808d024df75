#!/bin/bash
# dt29_span_latency.py on the base 9a2da6b and this branch, alternating, ROUNDS rounds of 3 passes a question;
# each side on its own copy of tm28's pooled haystack file (the branch's filled once: --fill). /tmp/dt29/span/ab.log
cd /tmp/dt29/span
S=/work/wt-pa27/scripts/experiments/dt29_span_latency.py
D=/work/shared/data/longmemeval/lme-oracle-dev.json
for round in $(seq ${ROUNDS:-2}); do
  for side in base new; do
    if [ $side = base ]; then src=/tmp/wt-9a2da6b/src; else src=/work/wt-pa27/src; fi
    load=$(cut -d' ' -f1 /proc/loadavg)
    out=$(PYTHONPATH=$src /work/wt-pa27/.venv/bin/python $S $D $side.db 3)
    echo "$side $round load $load → $(cut -d' ' -f1 /proc/loadavg) $out" >> ab.log
  done
done
