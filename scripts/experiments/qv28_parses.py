"""Sudachi parses per recall (tokenize calls, exact), in a fresh process: the Japanese sets' questions
(each once), then the chat bench's lines with a new number each, on the side PYTHONPATH gives."""
import glob, json, os, tempfile
from shitsuji.memory import HashEmbedder, MemoryEngine, open_store
from shitsuji.memory import _readings
from shitsuji.bench.web import CHAT_LINES
tok = _readings._tokenizer()
count = [0]
class Counting:
    def tokenize(self, *a, **k):
        count[0] += 1
        return tok.tokenize(*a, **k)
_readings._local.tokenizer = Counting()
engine = MemoryEngine(open_store(os.path.join(tempfile.mkdtemp(), "m.db")), HashEmbedder())
engine.remember("牛乳は成城石井で買う", "household/h/user/u")
qs = []
for f in sorted(glob.glob("/work/wt-ja27/src/shitsuji/bench/data/ja-*/queries-dev.jsonl") + ["/work/shared/data/ja/queries-dev.jsonl"]):
    qs += [json.loads(l)["query"] for l in open(f)]
qs = list(dict.fromkeys(qs))
def run(texts):
    count[0] = 0
    for t in texts: engine.recall(t, "household/h/user/u", k=12)
    return count[0]
ja = [q for q in qs if any("\u3040" <= c <= "\u9fff" for c in q)]
n1 = run(ja)
lines = [f"{CHAT_LINES[i % 5]}（{i}）" for i in range(100, 400)]
n0 = run(lines[:5])  # the lines' runs seen once
n2 = run(lines[5:])
print(json.dumps({"japanese_questions": len(ja), "parses": n1, "per_recall": round(n1 / len(ja), 3),
  "chat_lines_after_first_five": len(lines) - 5, "parses_chat": n2, "per_recall_chat": round(n2 / (len(lines) - 5), 3)}))
