"""ad30 (run from the repository): fill_about's scan when nothing is due, at N rows (SQLite).
usage: due1m.py build DB N   (20k rows through the engine, then copies by SQL)
       due1m.py time DB [runs]"""
import statistics, sqlite3, subprocess, sys, time
from shitsuji.memory import HashEmbedder, MemoryEngine, open_store

mode, db = sys.argv[1], sys.argv[2]
if mode == "build":
    n = int(sys.argv[3])
    subprocess.run([sys.executable, "scripts/experiments/ab29_about_fill.py", "build", db, "20000"], check=True)
    e = MemoryEngine(open_store(db), HashEmbedder()); e.fill_about(); e.store.close()
    c = sqlite3.connect(db)
    cols = [r[1] for r in c.execute("PRAGMA table_info(memories)") if r[1] != "rowid"]
    k = 1
    while c.execute("SELECT count(*) FROM memories").fetchone()[0] < n:
        sel = ", ".join(f"{x} || '-{k}'" if x in ("id", "content_hash") else x for x in cols)
        c.execute(f"INSERT INTO memories ({', '.join(cols)}) SELECT {sel} FROM memories WHERE rowid <= 20000")
        k += 1
    c.commit()
    print(c.execute("SELECT count(*), sum(about IS NULL), sum(about NOT LIKE '1:%') FROM memories").fetchone())
    c.execute("VACUUM"); c.close()
    sys.exit()
runs = int(sys.argv[3]) if len(sys.argv) > 3 else 5
e = MemoryEngine(open_store(db), HashEmbedder())
fill, cpu, count = [], [], []
for _ in range(runs):
    t, c = time.perf_counter(), time.process_time(); n = e.fill_about()
    fill.append(time.perf_counter() - t); cpu.append(time.process_time() - c)
    t = time.perf_counter(); due = e.store.count_about_due(); count.append(time.perf_counter() - t)
ms = lambda xs: [round(x * 1000, 2) for x in xs]
print(f"fill_about read {n} rows; wall ms {ms(fill)} median {statistics.median(fill)*1000:.2f}; cpu ms {ms(cpu)}; "
      f"count_about_due {due}: wall ms {ms(count)} median {statistics.median(count)*1000:.2f}")
