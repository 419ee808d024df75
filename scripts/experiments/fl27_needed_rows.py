"""How many candidates the bounds cannot leave unread (bound >= the window-th score of the full ranking) beside
what ``top_hits``' first read takes, on the first N ``bench latency`` queries of a kept fill.

    PYTHONPATH=/work/wt-fl27/src python scripts/experiments/fl27_needed_rows.py COPY_OF_BENCH.db 200
"""
import statistics, sys
sys.argv = [*sys.argv[:3], "0"]
exec(open("/work/wt-fl27/scripts/experiments/fl27_rank_ab.py").read().split("cpu = {")[0])
from shitsuji.memory._rank import Bounds, Question
need, first, total = [], [], []
for query, asked, ranked in lists:
    ids = list({x.memory_id for matches in ranked.values() for x in matches})
    memories, vectors = read(ids)
    hits = rank_candidates(Candidates(query, asked, ranked, memories, vectors, chain), now, weights)
    cut = hits[9].score
    b = Bounds.of(Question.of(query, now, weights), ranked, chain)
    need.append(sum(v >= cut for v in b.most.values()))
    c0 = b.first_cut(10)
    first.append(sum(v >= c0 for v in b.most.values()))
    total.append(len(ids))
print("need", statistics.median(need), max(need), "first", statistics.median(first), max(first), "total", statistics.median(total))
