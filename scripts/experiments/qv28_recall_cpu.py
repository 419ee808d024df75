"""Recall CPU per question on the bench's chat turn (SQLite, hash embedder, the turn's own butler),
the side given by PYTHONPATH; messages as the chat bench sends them (a new number each)."""
import os, statistics, sys, tempfile, time
from shitsuji.bench.scale_turn import _butler, _turn, _let_go, HOUSEHOLD, MEMBER
from shitsuji.bench.web import CHAT_LINES
from shitsuji.memory import _readings
from shitsuji.household._butler import RECALLED_MEMORIES as RECALLED
n = int(sys.argv[1]); rounds = int(sys.argv[2]); variant = sys.argv[3] if len(sys.argv) > 3 else "as-is"
if variant == "no-spelling":
    import shitsuji.memory._embedding as E
    E.kanji_spelling = lambda text: None
d = tempfile.mkdtemp(prefix="qv28-")
butler = _butler(os.path.join(d, "turn.db"), "hash")
for i in range(20): _turn(butler, i)  # a conversation as the bench's turn has
engine = butler.memory if hasattr(butler, "memory") else None
scope = f"household/{HOUSEHOLD}/user/{MEMBER}"
counter = {"parses": 0}
tok = _readings._tokenizer()
class Counting:
    def tokenize(self, *a, **k):
        counter["parses"] += 1
        return tok.tokenize(*a, **k)
_readings._local.tokenizer = Counting()
per = []
j = 1000
for r in range(rounds):
    msgs = [f"{CHAT_LINES[i % len(CHAT_LINES)]}（{j + i}）" for i in range(n)]; j += n
    counter["parses"] = 0
    t = time.process_time()
    for m in msgs:
        engine.recall(m, scope, k=RECALLED)
    per.append((time.process_time() - t) / n * 1000)
print(f"recall_cpu_ms {statistics.median(per):.4f} rounds {' '.join(f'{x:.4f}' for x in per)} parses_per_recall {counter['parses'] / n:.2f}")
butler.close(); _let_go()
