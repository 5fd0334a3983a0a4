"""Chooses a retrieval setting on folds from RetrievalQuality --dump files.

Usage: retrieval-folds.py scifact|locomo DIR NAME... (reads DIR/NAME.tsv: model, mode, group, category, value).
SciFact: five folds of the judged queries (every fifth in id order), each fold measured with the variant whose hybrid
nDCG@10 is best on the other four. LoCoMo: leave one conversation out, the variant chosen by the memory README's rule
(every category's hybrid recall@10 at least BM25's, then the best overall). Prints each variant and the pooled figure.
"""
import sys, collections
kind = sys.argv[1]; base = sys.argv[2]; names = sys.argv[3:]
def load(n):
    rows = collections.defaultdict(list)
    for line in open(f'{base}/{n}.tsv'):
        model, mode, group, cat, v = line.rstrip('\n').split('\t')
        rows[mode].append((group, int(cat), float(v)))
    return rows
data = {n: load(n) for n in names}
def mean(xs): xs=list(xs); return sum(xs)/len(xs) if xs else float('nan')
if kind == 'scifact':
    groups = sorted({r[0] for r in data[names[0]]['HYBRID']}, key=lambda g: int(g))
    fold = {g: i % 5 for i, g in enumerate(groups)}
    print('variant'.ljust(24), 'hybrid  bm25   vector')
    for n in names:
        d = data[n]
        print(n.ljust(24), ' '.join('%.4f' % mean(r[2] for r in d[m]) for m in ('HYBRID','BM25','VECTOR')))
    pooled = []; chosen = []
    for f in range(5):
        best = max(names, key=lambda n: mean(r[2] for r in data[n]['HYBRID'] if fold[r[0]] != f))
        chosen.append(best); pooled += [r[2] for r in data[best]['HYBRID'] if fold[r[0]] == f]
    print('5-fold CV chose', chosen, 'pooled nDCG@10 %.4f' % mean(pooled))
else:
    convs = sorted({r[0] for r in data[names[0]]['HYBRID']})
    cats = sorted({r[1] for r in data[names[0]]['HYBRID']})
    def bycat(rows, keep): return {c: mean(r[2] for r in rows if keep(r) and r[1]==c) for c in cats}
    print('variant'.ljust(24), 'hybrid  bm25   vector |', ' '.join(f'c{c} hyb/bm25' for c in cats))
    for n in names:
        d = data[n]; hc = bycat(d['HYBRID'], lambda r: True); bc = bycat(d['BM25'], lambda r: True)
        print(n.ljust(24), ' '.join('%.4f' % mean(r[2] for r in d[m]) for m in ('HYBRID','BM25','VECTOR')), '|',
              ' '.join(f'{hc[c]:.3f}/{bc[c]:.3f}' for c in cats), all(hc[c] >= bc[c]-1e-9 for c in cats))
    pooled = []; chosen = []
    for held in convs:
        tr = lambda r: r[0] != held
        def key(n):
            d = data[n]; hc = bycat(d['HYBRID'], tr); bc = bycat(d['BM25'], tr)
            return (all(hc[c] >= bc[c]-1e-9 for c in cats), mean(r[2] for r in d['HYBRID'] if tr(r)))
        best = max(names, key=key); chosen.append(best)
        pooled += [r for r in data[best]['HYBRID'] if r[0] == held]
    print('LOCO CV chose', chosen, 'pooled recall@10 %.4f' % mean(r[2] for r in pooled),
          {c: round(mean(r[2] for r in pooled if r[1]==c), 4) for c in cats})
