"""LoCoMo fusion variants with a session signal, deeper candidates and neighbours, from a RetrievalQuality
--dump-candidates file, chosen on folds (leave one conversation out; a variant is eligible only if no category falls
below BM25 alone on the training conversations).

Usage: retrieval-session.py FILE VARIANT...   (VARIANT is NAME or NAME:ARG=VALUE,...)
Arguments: wb, wv (weights, 0.5 / 0.5), cand (candidates per list, 100), complete (1), smooth (a message's vector score
plus smooth times its neighbours' best, span 1), sw (the session signal: a message's fused score plus sw times its
session's score), sagg (max: the session's best fused candidate; mean: the mean of its best `stop`), stop (3).
Example: retrieval-session.py cand-bge-small-locomo.tsv base c200n:cand=200,smooth=0.1 m03:sw=0.3,sagg=mean,stop=3
"""
import sys, importlib.util, collections, math
import os
spec = importlib.util.spec_from_file_location('rf', os.path.join(os.path.dirname(os.path.abspath(__file__)), 'retrieval-fusion.py')); rf = importlib.util.module_from_spec(spec); spec.loader.exec_module(rf)

def sess(d): return d.split(':')[0]

def fuse2(q, wb=0.5, wv=0.5, cand=100, complete=1, sw=0.0, sagg='max', stop=3, smooth=0.0, span=1, src='fused'):
    B = q['B']; V = q['V']; bs = dict(B); vs = dict(V)
    if smooth:
        vs2 = {}
        for d, s in V:
            nb = [vs[n] for n in rf.neighbours(d, span) if n in vs]
            vs2[d] = s + smooth * (max(nb) if nb else 0)
        vs = vs2; V = sorted(vs.items(), key=lambda x: -x[1])
    lb = B[:cand]; lv = V[:cand]
    if complete:
        union = set(d for d, _ in lb) | set(d for d, _ in lv)
        lb = sorted(((d, bs.get(d, 0.0)) for d in union), key=lambda x: -x[1])
        lv = sorted(((d, vs[d]) for d in union if d in vs), key=lambda x: -x[1])
    fused = collections.defaultdict(float)
    for lst, w in ((lb, wb), (lv, wv)):
        if not lst: continue
        mx, mn = lst[0][1], lst[-1][1]
        for d, s in lst: fused[d] += w * (1.0 if mx == mn else (s - mn) / (mx - mn))
    if sw:
        by = collections.defaultdict(list)
        for d, s in fused.items(): by[sess(d)].append(s)
        S = {}
        for k, v in by.items():
            v.sort(reverse=True)
            S[k] = v[0] if sagg == 'max' else sum(v[:stop]) / stop
        fused = {d: s + sw * S[sess(d)] for d, s in fused.items()}
    return [d for d, _ in sorted(fused.items(), key=lambda x: -x[1])]

def parse(v):
    name, _, args = v.partition(':'); kw = {}
    for kv in args.split(',') if args else []:
        k, x = kv.split('='); kw[k] = x if k in ('sagg', 'src') else float(x) if '.' in x else int(x)
    return name, kw

def run(qs, variants, kind='locomo'):
    metric = rf.recall10 if kind == 'locomo' else rf.ndcg10
    res = {n: [metric(fuse2(q, **kw), q['rel']) for q in qs] for n, kw in variants}
    bm = rf.single(qs, kind, 'B')
    cats = sorted({q['cat'] for q in qs})
    def bycat(vals, keep): return {c: rf.mean(v for v, q in zip(vals, qs) if q['cat'] == c and keep(q)) for c in cats}
    for n, _ in variants:
        hc = bycat(res[n], lambda q: True); bc = bycat(bm, lambda q: True)
        print('%-30s %.4f  ' % (n, rf.mean(res[n])) + ' '.join('c%d %.3f' % (c, hc[c]) for c in cats) + ('  ok' if all(hc[c] >= bc[c] - 1e-9 for c in cats) else '  BELOW'))
    pooled = [None]*len(qs); chosen = []
    for g in sorted({q['group'] for q in qs}):
        held = lambda q: q['group'] == g
        def key(n):
            tr = lambda q: not held(q)
            hc = bycat(res[n], tr); bc = bycat(bm, tr)
            return (all(hc[c] >= bc[c] - 1e-9 for c in cats), rf.mean(v for v, q in zip(res[n], qs) if tr(q)))
        best = max((n for n, _ in variants), key=key); chosen.append(best)
        for i, q in enumerate(qs):
            if held(q): pooled[i] = res[best][i]
    print('folds chose', chosen, 'pooled %.4f' % rf.mean(pooled), ' '.join('c%d %.3f' % (c, v) for c, v in bycat(pooled, lambda q: True).items()))
    return res

if __name__ == '__main__':
    qs = rf.load(sys.argv[1])
    variants = [parse(v) for v in sys.argv[2:]]
    run(qs, variants)
