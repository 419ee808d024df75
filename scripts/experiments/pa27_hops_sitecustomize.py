# pa27 diagnostics: each worker-thread hop's queue wait, wall and thread CPU; written at exit to /tmp/pa27/hops-<pid>.json
import atexit, json, os, threading, time
_hops = []
_lock = threading.Lock()
def _install():
    import anyio.to_thread as tt
    orig = tt.run_sync
    async def run_sync(func, *args, **kw):
        called = time.perf_counter()
        def wrapped(*a):
            start = time.perf_counter(); c0 = time.thread_time()
            try:
                return func(*a)
            finally:
                end = time.perf_counter()
                with _lock:
                    _hops.append((called, start, end, time.thread_time() - c0, getattr(func, "func", func).__qualname__ if hasattr(getattr(func, "func", func), "__qualname__") else "?"))
        return await orig(wrapped, *args, **kw)
    tt.run_sync = run_sync
def _dump():
    if _hops:
        json.dump(_hops, open(f"/tmp/pa27/hops-{os.getpid()}.json", "w"))
try:
    _install(); atexit.register(_dump)
except Exception:
    pass
def _every():
    while True:
        time.sleep(1.0)
        with _lock:
            n = len(_hops)
        if n:
            _dump()
threading.Thread(target=_every, daemon=True).start()
if os.environ.get("PA27_THREADS"):
    try:
        import shitsuji._offload as _o
        _o.use_threads(int(os.environ["PA27_THREADS"]))
    except Exception:
        pass
if os.environ.get("PA27_SWITCH"):
    import sys as _sys
    _sys.setswitchinterval(float(os.environ["PA27_SWITCH"]))
