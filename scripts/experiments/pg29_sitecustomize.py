# pg29: each Python thread's name as its OS thread name (15 bytes), so /proc/PID/task/*/comm tells them apart
import ctypes, threading
try:
    _libc = ctypes.CDLL(None)
    _orig = threading.Thread._bootstrap_inner
    def _inner(self):
        try:
            _libc.prctl(15, self.name[:15].encode(), 0, 0, 0)
        except Exception:
            pass
        return _orig(self)
    threading.Thread._bootstrap_inner = _inner
except Exception:
    pass

# pg29: yappi (CPU clock) started on SIGUSR1, stopped and saved on SIGUSR2 (per thread name) when PG29_YAPPI is set
import os, signal, sys
if os.environ.get("PG29_YAPPI") and sys.argv and (sys.argv[0] == "-m" or sys.argv[0].endswith("scale.py")):
    def _start(*_):
        import yappi
        yappi.set_clock_type("cpu")
        yappi.clear_stats()
        yappi.start(builtins=True, profile_threads=True)
    def _stop(*_):
        import yappi
        yappi.stop()
        out = os.environ["PG29_YAPPI"]
        names = {}
        for t in yappi.get_thread_stats():
            key = "main" if t.name == "_MainThread" else t.name.split("-")[0].split("(")[0]
            names.setdefault(key, []).append(t.id)
        for key, ids in names.items():
            stats = None
            for i in ids:
                s = yappi.get_func_stats(filter={"ctx_id": i})
                if stats is None:
                    stats = s
                else:
                    stats.add(s) if False else None
                try:
                    s.save(f"{out}-{key}-{i}.pstat", type="pstat")
                except Exception as e:
                    print("pg29 yappi save", key, e, file=sys.stderr)
        yappi.clear_stats()
    signal.signal(signal.SIGUSR1, _start)
    signal.signal(signal.SIGUSR2, _stop)

# pg29: thread CPU inside each PostgreSQL statement (_database._run), between SIGUSR1 and SIGUSR2 when PG29_STMT is set
if os.environ.get("PG29_STMT") and sys.argv and (sys.argv[0] == "-m" or sys.argv[0].endswith("scale.py")):
    import time as _t, json as _j
    _acc = {"n": 0, "cpu": 0.0, "wall": 0.0, "on": False}
    def _patch():
        from shitsuji.store import _database as d
        if getattr(d._run, "pg29", False):
            return
        orig = d._run
        def _run(conn, sql, params, where):
            if not _acc["on"]:
                return orig(conn, sql, params, where)
            c0 = _t.thread_time(); w0 = _t.perf_counter()
            try:
                return orig(conn, sql, params, where)
            finally:
                _acc["cpu"] += _t.thread_time() - c0; _acc["wall"] += _t.perf_counter() - w0; _acc["n"] += 1
        _run.pg29 = True
        d._run = _run
    def _on(*_):
        _patch()
        _acc.update(n=0, cpu=0.0, wall=0.0, on=True)
    def _off(*_):
        _acc["on"] = False
        _j.dump(_acc, open(os.environ["PG29_STMT"] + f"-{os.getpid()}.json", "w"))
    signal.signal(signal.SIGUSR1, _on)
    signal.signal(signal.SIGUSR2, _off)
