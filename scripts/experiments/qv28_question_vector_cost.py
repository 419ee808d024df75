import time, sys
from shitsuji.memory._embedders import HashEmbedder
from shitsuji.memory._embedding import question_vector
from shitsuji.memory import _readings
_readings.kanji_spelling("いぬ")  # load the dictionary first
from shitsuji.memory._asked import asked_vector
e = HashEmbedder()
msgs = [sys.argv[1] + f"（{i}）" for i in range(2000)]
for f in ['embed', 'question', 'asked']:
    t = time.process_time()
    for m in msgs:
        if f == 'embed': e.embed_query(m)
        elif f == 'question': question_vector(e, m)
        else: asked_vector(e, m)
    print(f, round((time.process_time() - t) / len(msgs) * 1000, 3), 'ms')
