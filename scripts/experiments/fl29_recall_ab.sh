#!/bin/bash
# rounds over several trees on fresh copies of the kept 100k fill (/tmp/fl29/base.db + .vectors), the order
# rotated each round; each run is `bench_sqlite_recall_kept.py recall COPY --queries Q` (issue 23, fl29)
# usage: fl29_recall_ab.sh TAG ROUNDS Q NAME=SRC [NAME=SRC ...]   (log: /tmp/fl29/TAG.log)
cd /tmp/fl29 && tag=$1 rounds=$2 q=$3 && shift 3
sides=("$@")
for r in $(seq 1 "$rounds"); do
  for i in $(seq 0 $((${#sides[@]} - 1))); do
    side=${sides[$(( (i + r - 1) % ${#sides[@]} ))]}
    name=${side%%=*} src=${side#*=}
    rm -rf "run_$name.db"* && cp base.db "run_$name.db" && cp -r base.db.vectors "run_$name.db.vectors"
    cat "run_$name.db" "run_$name.db.vectors"/*/* > /dev/null
    l0=$(cut -d' ' -f1 /proc/loadavg)
    PYTHONPATH=$src /work/wt-fl28/.venv/bin/python /work/wt-fl28/scripts/bench_sqlite_recall_kept.py recall \
      "run_$name.db" --queries "$q" > "${tag}_$name$r.json" 2>> "$tag.err"
    echo "$r $name load=$l0-$(cut -d' ' -f1 /proc/loadavg) $(tr -d '\n ' < "${tag}_$name$r.json")" >> "$tag.log"
    rm -rf "run_$name.db"*
  done
done
echo done >> "$tag.log"
