import os, sys, tempfile, time
from shitsuji.bench.scale_turn import _butler, _turn, _let_go, HOUSEHOLD, MEMBER
from shitsuji.bench.web import CHAT_LINES
import shitsuji.memory._embedding as E
spent = [0.0, 0]
orig = E.kanji_spelling
def timed(t):
    s = time.thread_time(); r = orig(t); spent[0] += time.thread_time() - s; spent[1] += 1; return r
E.kanji_spelling = timed
butler = _butler(os.path.join(tempfile.mkdtemp(), "t.db"), "hash")
for i in range(20): _turn(butler, i)
scope = f"household/{HOUSEHOLD}/user/{MEMBER}"
s = time.process_time()
for i in range(1000, 1600): butler.memory.recall(f"{CHAT_LINES[i % 5]}（{i}）", scope, k=12)
tot = time.process_time() - s
print(f"recall {tot/600*1000:.3f} ms, kanji_spelling {spent[0]/spent[1]*1000:.3f} ms ({spent[1]} calls)")
s = time.process_time()
for i in range(2000, 2600): orig(f"{CHAT_LINES[i % 5]}（{i}）")
print(f"kanji_spelling in a loop {(time.process_time()-s)/600*1000:.3f} ms")
