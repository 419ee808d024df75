#!/usr/bin/env bash
# usage: benches.sh SRC OUTDIR — the dev benches on the side SRC, JSON per bench
src=$1; out=$2; mkdir -p $out; S="/work/wt-ja27/.venv/bin/shitsuji"; D=/work/wt-ja27/src/shitsuji/bench/data
cd /tmp/qv28
for s in /work/shared/data/ja $D/ja-held $D/ja-fresh $D/ja-recall $D/ja-unread $D/ja-blind; do
  echo "$(date +%T) $s $(cut -d' ' -f1 /proc/loadavg)" >> $out/log
  PYTHONPATH=$src nice $S bench japanese $s --distractors 200 --json > $out/ja-$(basename $s).json 2>> $out/err
done
echo "$(date +%T) locomo" >> $out/log
PYTHONPATH=$src nice $S bench locomo /work/shared/data/locomo/locomo-dev.json --json > $out/locomo.json 2>> $out/err
echo "$(date +%T) lme-s" >> $out/log
PYTHONPATH=$src nice $S bench longmemeval /work/shared/data/longmemeval/lme-s-dev.json --json > $out/lme-s.json 2>> $out/err
echo "$(date +%T) done" >> $out/log
