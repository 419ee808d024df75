"""CPU a plain SQLite chat turn in this process (bench scale's turn), optionally profiled."""
import cProfile, pstats, sys, tempfile, time, os
from shitsuji.bench.scale_turn import _butler, _turn, _let_go
turns = int(sys.argv[1]); prof = sys.argv[2] if len(sys.argv) > 2 else None
d = tempfile.mkdtemp(prefix="qv28-")
butler = _butler(os.path.join(d, "turn.db"), "hash")
for i in range(10): _turn(butler, i)
p = cProfile.Profile() if prof else None
cpu0 = time.process_time()
if p: p.enable()
for i in range(10, 10 + turns): _turn(butler, i)
if p: p.disable()
cpu = time.process_time() - cpu0
print(f"app_cpu_ms_per_turn {cpu / turns * 1000:.3f}")
if p: p.dump_stats(prof)
butler.close(); _let_go()
