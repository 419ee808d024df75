#!/usr/bin/env bash
# usage: abscale.sh ROUNDS OUT — bench scale --no-memory --processes 1 --sessions 8 --requests 40, base then pg29
rounds=$1; out=$2
cd /work/wt-ja27
for r in $(seq ${FIRST:-1} $rounds); do
  for side in base new; do
    src=/tmp/wt-9a2da6b/src; [ $side = new ] && src=/work/wt-ja27/src
    l0=$(cut -d' ' -f1 /proc/loadavg)
    PYTHONPATH=$src .venv/bin/shitsuji bench scale --no-memory --processes 1 --sessions 8 --requests 40 --json > $out-$r-$side.json 2> $out-$r-$side.err
    echo "$r $side load $l0 $(cut -d' ' -f1 /proc/loadavg)" >> $out.log
  done
done
