"""A pooled SciFact subset, for measuring a costly embedding on a few hundred documents instead of 5,183.

Usage: retrieval-pool.py CANDIDATES.tsv SCIFACT_DIR QUERIES K OUT_DIR [SKIP]
CANDIDATES.tsv is a RetrievalQuality --dump-candidates file of SciFact (train queries). QUERIES train queries are drawn at
random (seed 18; SKIP, default 0, passes over the first SKIP drawn, for a second pool of other queries); the corpus is
the pool of each one's relevant documents and its top K BM25 and top K vector hits, the other queries' pools being its
distractors. Writes OUT_DIR/scifact/{corpus.jsonl,queries.jsonl,qrels/train.tsv}: pass OUT_DIR as --data. nDCG@10 over
a pool is an estimate for comparing embedders, not the set's figure.
"""
import json, random, sys, os, collections
if len(sys.argv) not in (6, 7):
    sys.exit(__doc__)
cand, src, nq, k, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
skip = int(sys.argv[6]) if len(sys.argv) == 7 else 0
qs = collections.OrderedDict(); cur = None
for line in open(cand):
    p = line.rstrip('\n').split('\t')
    if p[0] == 'Q':
        cur = p[2]; qs[cur] = {'rel': [x.split('=')[0] for x in p[4:]], 'B': [], 'V': []}
    elif int(p[1]) <= k:
        qs[cur][p[0]].append(p[2])
ids = sorted(qs, key=int); random.Random(18).shuffle(ids); chosen = set(ids[skip:skip + nq])
pool = set()
for q in chosen:
    pool |= set(qs[q]['rel']) | set(qs[q]['B']) | set(qs[q]['V'])
print(len(chosen), 'queries', len(pool), 'documents')
d = f'{out}/scifact'; os.makedirs(f'{d}/qrels', exist_ok=True)
with open(f'{d}/corpus.jsonl', 'w') as w:
    for line in open(f'{src}/corpus.jsonl'):
        if json.loads(line)['_id'] in pool: w.write(line)
with open(f'{d}/queries.jsonl', 'w') as w:
    for line in open(f'{src}/queries.jsonl'):
        if json.loads(line)['_id'] in chosen: w.write(line)
with open(f'{d}/qrels/train.tsv', 'w') as w:
    for i, line in enumerate(open(f'{src}/qrels/train.tsv')):
        if i == 0 or line.split('\t')[0] in chosen: w.write(line)
