"""Fusion variants computed from RetrievalQuality --dump-candidates files, chosen on folds.

Usage: retrieval-fusion.py scifact|locomo FILE[,FILE...] [VARIANT...]
FILE holds each question's BM25 and vector lists (CandidateDump). A variant is NAME or NAME:ARG=VALUE,...; without
variants a grid is measured. Several files (dumps of the same questions from indexes built otherwise: a title weight,
an embedded context) are compared in one run: a variant's `f=N` reads the Nth file's lists (0, the first, by default;
BM25 alone, the floor of LoCoMo's categories, is always the first file's); a grid then covers every file. The fusion the index computes (weighted min-max over each list's top `cand` candidates,
optionally with completion) is reproduced exactly, so that a variant's figure here is the index's figure.
Prints each variant's hybrid figure (nDCG@10 for SciFact, recall@10 for LoCoMo, with LoCoMo's categories) and the
figure of the variant chosen on folds (SciFact: five folds of the queries in id order; LoCoMo: leave one conversation
out, a variant eligible only if no category falls below BM25 alone on the training conversations).
"""
import sys, math, collections, itertools

def load(path):
    qs = []
    for line in open(path):
        p = line.rstrip('\n').split('\t')
        if p[0] == 'Q':
            rel = {}
            for kv in p[4].split(' ') if p[4] else []:
                k, v = kv.rsplit('=', 1); rel[k] = int(v)
            qs.append({'group': p[1], 'id': p[2], 'cat': int(p[3]), 'rel': rel, 'B': [], 'V': []})
        else:
            qs[-1][p[0]].append((p[2], float(p[3])))
    return qs

def ndcg10(ranked, rel):
    dcg = sum(rel.get(d, 0) / math.log2(i + 2) for i, d in enumerate(ranked[:10]) if rel.get(d, 0) > 0)
    ideal = sorted((g for g in rel.values() if g > 0), reverse=True)[:10]
    idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
    return dcg / idcg if idcg > 0 else 0.0

def recall10(ranked, rel):
    ev = [d for d, g in rel.items() if g > 0]
    return sum(1 for d in ranked[:10] if d in rel) / len(ev) if ev else 0.0

def neighbours(item, span):
    s, t = item[1:].split(':'); t = int(t)
    return ['D%s:%d' % (s, t + o) for o in range(-span, span + 1) if o != 0]

def fuse(q, wb=0.4, wv=0.6, f=0, cand=100, complete=0, norm='minmax', smooth=0.0, span=1, bsmooth=0.0, agg='max'):
    B = q['B']; V = q['V']
    bs = dict(B); vs = dict(V)
    if smooth or bsmooth:  # a message's score raised by its neighbours' (LoCoMo)
        if smooth:
            vs2 = {}
            for d, s in V:
                nb = [vs[n] for n in neighbours(d, span) if n in vs]
                vs2[d] = s + smooth * ((max(nb) if agg == 'max' else sum(nb) / len(nb)) if nb else 0)
            vs = vs2
            V = sorted(vs.items(), key=lambda x: -x[1])
        if bsmooth:
            bs2 = {}
            for d, s in B:
                nb = [bs[n] for n in neighbours(d, span) if n in bs]
                bs2[d] = s + bsmooth * ((max(nb) if agg == 'max' else sum(nb) / len(nb)) if nb else 0)
            bs = bs2
            B = sorted(bs.items(), key=lambda x: -x[1])
    lb = B[:cand]; lv = V[:cand]
    if complete:
        union = set(d for d, _ in lb) | set(d for d, _ in lv)
        lb = sorted(((d, bs.get(d, 0.0)) for d in union), key=lambda x: -x[1])
        lv = sorted(((d, vs[d]) for d in union if d in vs), key=lambda x: -x[1])
    fused = collections.defaultdict(float)
    for lst, w in ((lb, wb), (lv, wv)):
        if not lst:
            continue
        sc = [s for _, s in lst]
        if norm == 'minmax':
            mx, mn = sc[0], sc[-1]
            f = lambda s: 1.0 if mx == mn else (s - mn) / (mx - mn)
        elif norm == 'z':
            m = sum(sc) / len(sc); sd = math.sqrt(sum((s - m) ** 2 for s in sc) / len(sc)) or 1.0
            f = lambda s: (s - m) / sd
        elif norm == 'max':
            mx = sc[0] or 1.0
            f = lambda s: s / mx
        for d, s in lst:
            fused[d] += w * f(s)
    return [d for d, _ in sorted(fused.items(), key=lambda x: -x[1])]

def measure(qs, kind, **kw):
    metric = ndcg10 if kind == 'scifact' else recall10
    return [metric(fuse(q, **kw), q['rel']) for q in qs]

def single(qs, kind, which):
    metric = ndcg10 if kind == 'scifact' else recall10
    return [metric([d for d, _ in q[which]], q['rel']) for q in qs]

def mean(xs):
    xs = list(xs); return sum(xs) / len(xs) if xs else float('nan')

def parse(v):
    name, _, args = v.partition(':'); kw = {}
    for kv in args.split(',') if args else []:
        k, x = kv.split('='); kw[k] = x if k in ('norm', 'agg') else float(x) if '.' in x else int(x)
    return name, kw

def main():
    kind, paths = sys.argv[1], sys.argv[2].split(',')
    files = [load(p) for p in paths]
    qs = files[0]
    for other in files[1:]:
        if [q['id'] for q in other] != [q['id'] for q in qs]:
            sys.exit('the dumps hold other questions: ' + sys.argv[2])
    if len(sys.argv) > 3:
        variants = [parse(v) for v in sys.argv[3:]]
    else:
        variants = []
        for fi in range(len(files)):
            for c in (0, 1):
                for wb in (0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7):
                    variants.append(('f%d_c%d_%.2f' % (fi, c, wb), {'f': fi, 'complete': c, 'wb': wb, 'wv': round(1 - wb, 2)}))
    res = {n: measure(files[kw.get('f', 0)], kind, **kw) for n, kw in variants}
    bm = single(qs, kind, 'B'); vec = single(qs, kind, 'V')
    cats = sorted({q['cat'] for q in qs})
    def bycat(vals, keep): return {c: mean(v for v, q in zip(vals, qs) if q['cat'] == c and keep(q)) for c in cats}
    print('bm25 %.4f vector %.4f' % (mean(bm), mean(vec)), '' if kind == 'scifact' else
          ' '.join('c%d %.3f' % (c, v) for c, v in bycat(bm, lambda q: True).items()))
    for n, _ in variants:
        line = '%-28s %.4f' % (n, mean(res[n]))
        if kind == 'locomo':
            hc = bycat(res[n], lambda q: True); bc = bycat(bm, lambda q: True)
            line += '  ' + ' '.join('c%d %.3f' % (c, hc[c]) for c in cats) + ('  ok' if all(hc[c] >= bc[c] - 1e-9 for c in cats) else '  BELOW')
        print(line)
    pooled = [None] * len(qs); chosen = []
    if kind == 'scifact':
        order = sorted({q['id'] for q in qs}, key=int); fold = {g: i % 5 for i, g in enumerate(order)}
        groups = [(f, lambda q, f=f: fold[q['id']] == f) for f in range(5)]
    else:
        groups = [(g, lambda q, g=g: q['group'] == g) for g in sorted({q['group'] for q in qs})]
    for g, held in groups:
        def key(n):
            tr = lambda q: not held(q)
            ok = True
            if kind == 'locomo':
                hc = bycat(res[n], tr); bc = bycat(bm, tr); ok = all(hc[c] >= bc[c] - 1e-9 for c in cats)
            return (ok, mean(v for v, q in zip(res[n], qs) if tr(q)))
        best = max((n for n, _ in variants), key=key); chosen.append(best)
        for i, q in enumerate(qs):
            if held(q):
                pooled[i] = res[best][i]
    print('folds chose', chosen, 'pooled %.4f' % mean(pooled),
          '' if kind == 'scifact' else ' '.join('c%d %.3f' % (c, v) for c, v in bycat(pooled, lambda q: True).items()))

if __name__ == '__main__':
    main()
