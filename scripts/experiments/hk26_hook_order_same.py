import pickle
a=pickle.load(open('/tmp/hk26/dump_bench.pkl','rb')); b=pickle.load(open('/tmp/hk26/dump_server.pkl','rb'))
mx=0
for name in ('hook_relevance.json','hook_relevance_heldout.json','hook_relevance_fresh.json'):
    for ra, rb in zip(a[name], b[name]):
        for ca, cb in zip(ra['cands'], rb['cands']):
            assert ca['label']==cb['label']
            for k in ('cosine','centred','second'):
                if ca[k] is not None: mx=max(mx, abs(ca[k]-cb[k]))
print('max diff', mx)
