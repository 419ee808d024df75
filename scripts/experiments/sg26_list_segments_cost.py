"""list_segments(query) cost: 100 archived segments x 20 facts each (2,000 facts), SQLite, hash embedder."""
import asyncio, statistics, sys, tempfile, time
from dataclasses import dataclass
from pathlib import Path
from shitsuji.agent import ToolContext, list_segments
from shitsuji.context import Segments
from shitsuji.memory import HashEmbedder, MemoryEngine, NewMemory, open_store
from shitsuji.store import database
tmp = Path(tempfile.mkdtemp())
segments = Segments(database(str(tmp / "app.db")))
store = open_store(str(tmp / "mem.db")); memory = MemoryEngine(store, HashEmbedder())
words = "plumber kitchen sink tea milk train school doctor garden paint bike rent movie cake dog cat piano rice fish car".split()
items = []
for n in range(100):
    c = f"c{n}"
    asyncio.run(segments.open_segment(c, "futari", "wife", "chat", []))
    asyncio.run(segments.close_segment(c, [{"role": "user", "content": f"talk {n}"}]))
    for t in range(20):
        items.append(NewMemory(content=f"fact {n}-{t} about {words[(n + t) % 20]} and {words[(n * t) % 20]}", scope="h/u/wife",
                               category="event", source="imported", provenance={"conversation": c, "segment": "chat"}))
memory.add_many(items); memory.index_pending()
@dataclass(frozen=True)
class Deps:
    segments: Segments
    memory: MemoryEngine
@dataclass(frozen=True)
class Plain:
    segments: Segments
for name, deps in (("summaries only", Plain(segments)), ("with facts", Deps(segments, memory))):
    ctx = ToolContext(deps=deps, user="wife", scope="h/u/wife", channel="app", household="futari")
    times = []
    for q in words * 2:
        t = time.perf_counter(); asyncio.run(list_segments.run(ctx, {"query": f"the {q}"})); times.append(time.perf_counter() - t)
    times.sort(); print(name, "p50 %.1f ms p95 %.1f ms" % (1000 * statistics.median(times), 1000 * times[int(0.95 * len(times))]))
