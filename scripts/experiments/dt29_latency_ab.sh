#!/bin/bash
# bench latency (N memories in one scope, 20,000 by default) on the base 9a2da6b and this branch (dt29), alternating
# A/B/A/B; each run's JSON with the load before it in /tmp/dt29/lat/ (NAME_ROUND.json, lat.log)
cd /tmp/dt29/lat
for round in 1 2; do
  for side in base new; do
    if [ $side = base ]; then src=/tmp/wt-9a2da6b/src; else src=/work/wt-pa27/src; fi
    load=$(cut -d' ' -f1 /proc/loadavg)
    PYTHONPATH=$src /work/wt-pa27/.venv/bin/shitsuji bench latency --n ${N:-20000} --queries ${Q:-20} --json > ${side}_$round.json 2> ${side}_$round.err
    echo "$side $round rc=$? load-before $load after $(cut -d' ' -f1 /proc/loadavg) $(date -u +%T)" >> lat.log
  done
done
echo done >> lat.log
