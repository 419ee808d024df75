#!/bin/bash
# rb30_span_latency.py on the base f01a51a (/tmp/rb30/base/src) and this branch, alternating, ROUNDS rounds of 3
# passes a question; each side on its own copy of the pooled haystack's SQLite file (/tmp/rb30/span/lme_pooled.db,
# written by `run_longmemeval(..., pooled=True, database=...)` on this branch: every row's `about` stored).
# Output: /tmp/rb30/span/ab.log
cd /tmp/rb30/span
S=/work/wt-rb30/scripts/experiments/rb30_span_latency.py
D=/work/shared/data/longmemeval/lme-oracle-dev.json
for side in base new; do [ -f $side.db ] || cp lme_pooled.db $side.db; done
for round in $(seq ${ROUNDS:-2}); do
  for side in base new; do
    if [ $side = base ]; then src=/tmp/rb30/base/src; else src=/work/wt-rb30/src; fi
    load=$(cut -d' ' -f1 /proc/loadavg)
    out=$(PYTHONPATH=$src /work/wt-rb30/.venv/bin/python $S $D $side.db 3)
    echo "$side $round load $load → $(cut -d' ' -f1 /proc/loadavg) $out" >> ab.log
  done
done
