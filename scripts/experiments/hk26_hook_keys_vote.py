import pickle, re, json, sys
sys.path.insert(0,'/tmp/hk26')
from shitsuji.memory import terms
CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff]")
d=pickle.load(open(sys.argv[1] if len(sys.argv)>1 else '/tmp/hk26/dump_server.pkl','rb'))
KEYS=json.load(open('src/shitsuji/bench/data/hook_relevance_keys.json'))['keys']
kterms={l:set(terms(" ".join(ks),readings=False)) for l,ks in KEYS.items()}
SETS={'dev':'hook_relevance.json','held':'hook_relevance_heldout.json','fresh':'hook_relevance_fresh.json'}
def ja(s): return CJK.search(s) is not None
def nosk(ts): return {t for t in ts if len(t)>1 or t.isascii()}
def prep(name, keys):
    out=[]
    for r in d[name]:
        pj=ja(r['prompt']); pt=nosk(r['pterms'])
        cs=[]
        for c in r['cands']:
            if c['centred'] is None: continue
            f=c['centred']+2*c['second']
            words=c['excerpt_terms'] | (kterms.get(c['label'],set()) if keys else set())
            sh=pt&words
            speaks = any(ja(t)==pj for t in words)  # the note has words in the prompt's language
            cs.append((f, len(sh), bool(sh), not speaks, c['label']))
        cs.sort(key=lambda x:-x[0])
        out.append((r['expect'], r['chatter']>=0.5, cs, r['prompt']))
    return out
def score(cases, m, w, agree, minshared=2):
    need=none=right=noise=0
    for exp, chat, cs, _ in cases:
        shown=[] if chat else [l for f,s,sh,cr,l in cs if (f>=m or (f>=w and s>=minshared)) and (not agree or agree(sh,cr))][:5]
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
AGREE={'none':None,'words (note speaks the language)':lambda sh,cr: sh or cr}
for keys in (False, True):
  P={k:prep(v,keys) for k,v in SETS.items()}
  for an,ag in AGREE.items():
    print(f'== keys={keys} rule', an)
    print('  shipped 0.8/0.55:', {k:tuple(round(x,3) for x in score(P[k],0.8,0.55,ag)) for k in P})
    for left in P:
        train=[c for k in P if k!=left for c in P[k]]
        m,w=tune(train,ag)
        print(f'  LOSO left {left}: tuned {m}/{w} ->', tuple(round(x,3) for x in score(P[left],m,w,ag)))
    for k in P:
        need=[c for c in P[k] if c[0]]; none=[c for c in P[k] if not c[0]]
        folds=[need[0::2]+none[0::2], need[1::2]+none[1::2]]
        res=[]
        for i in (0,1):
            m,w=tune(folds[i],ag); res.append(score(folds[1-i],m,w,ag))
        print(f'  2-fold within {k}:', tuple(round(sum(x)/2,3) for x in zip(*res)))
print("=== variants with keys, shipped thresholds")
P={k:prep(v,True) for k,v in SETS.items()}
def sc(cases, rule):
    need=none=right=noise=0
    for exp, chat, cs, _ in cases:
        shown=[] if chat else [l for f,s,sh,cr,l in cs if rule(f,s,sh,cr)][:5]
        if exp: need+=1; right+=bool(set(shown)&exp)
        else: none+=1; noise+=bool(shown)
    return round(right/need,3), round(noise/none,3)
V={'A shipped+keys':lambda f,s,sh,cr: f>=0.8 or (f>=0.55 and s>=2),
   "A' rescue at any score":lambda f,s,sh,cr: f>=0.8 or s>=2,
   'A + 1 shared term suffices at 0.55':lambda f,s,sh,cr: f>=0.8 or (f>=0.55 and s>=1),
   'B agreement veto':lambda f,s,sh,cr: (f>=0.8 or (f>=0.55 and s>=2)) and (sh or cr),
   'B2 agreement veto only above top?':lambda f,s,sh,cr: (f>=0.8 and (sh or cr)) or (f>=0.55 and s>=2)}
for n,v in V.items(): print(f'{n:40s}', {k:sc(P[k],v) for k in P})
