import pickle, re, sys
CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff]")
d=pickle.load(open(sys.argv[1] if len(sys.argv)>1 else '/tmp/hk26/dump_server.pkl','rb'))
df=d['df']
SETS={'dev':'hook_relevance.json','held':'hook_relevance_heldout.json','fresh':'hook_relevance_fresh.json'}
def ja(s): return CJK.search(s) is not None
def nosk(ts): return {t for t in ts if len(t)>1 or t.isascii()}
# precompute per prompt: list of (fused, shared(int), words_agree(bool)) sorted
def prep(name):
    out=[]
    for r in d[name]:
        pj=ja(r['prompt'])
        cs=[]
        for c in r['cands']:
            if c['centred'] is None: continue
            f=c['centred']+2*c['second']
            sh=nosk(r['pterms'])&c['excerpt_terms']
            cross = pj != ja(' '.join(c['excerpt_terms']))
            cs.append((f, c['shared'], bool(sh), cross, c['label']))
        cs.sort(key=lambda x:-x[0])
        out.append((r['expect'], r['chatter']>=0.5, cs))
    return out
P={k:prep(v) for k,v in SETS.items()}
def score(cases, m, w, agree):
    need=none=right=noise=0
    for exp, chat, cs in cases:
        shown=[] if chat else [l for f,s,sh,cr,l in cs if (f>=m or (f>=w and s>=2)) and (not agree or agree(sh,cr))][:5]
        if exp: need+=1; right+=bool(set(shown)&exp)
        else: none+=1; noise+=bool(shown)
    return right/need, noise/none
GRID=[round(0.05*i,2) for i in range(31)]
def tune(cases, agree):
    best=None
    for m in GRID:
        for w in (g for g in GRID if g<=m):
            r,n=score(cases,m,w,agree)
            if n>0.05: continue
            key=(r,-n,m,w)
            if best is None or key>best[0]: best=(key,(m,w))
    return best[1]
AGREE={'none':None,'words (same language)':lambda sh,cr: sh or cr,'words always':lambda sh,cr: sh}
for an,ag in AGREE.items():
    print('== rule', an)
    print('  shipped 0.8/0.55:', {k:tuple(round(x,3) for x in score(P[k],0.8,0.55,ag)) for k in P})
    for left in P:
        train=[c for k in P if k!=left for c in P[k]]
        m,w=tune(train,ag)
        print(f'  LOSO left {left}: tuned {m}/{w} on others ->', tuple(round(x,3) for x in score(P[left],m,w,ag)), ' train', tuple(round(x,3) for x in score(train,m,w,ag)))
    # within-set 2 folds
    for k in P:
        need=[c for c in P[k] if c[0]]; none=[c for c in P[k] if not c[0]]
        folds=[need[0::2]+none[0::2], need[1::2]+none[1::2]]
        res=[]
        for i in (0,1):
            m,w=tune(folds[i],ag); res.append(score(folds[1-i],m,w,ag))
        print(f'  2-fold within {k}:', tuple(round(sum(x)/2,3) for x in zip(*res)))
