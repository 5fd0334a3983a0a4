"""Paired comparison of per-question figures: is a variant's difference from a baseline more than noise?

Usage: retrieval-paired.py BASE.tsv OTHER.tsv... [--mode HYBRID] (files as RetrievalQuality --dump or
ModelPrecisionQuality write them: model, mode, group, category, value; one set per file, the questions in the same order).
For each OTHER: the mean of the mode's figure in both, the mean difference with a 95 % bootstrap interval over the
questions (10,000 resamples, fixed seed), and how many questions it raised, lowered and left as they were.
"""
import random, sys
args = sys.argv[1:]
mode = 'HYBRID'
if '--mode' in args:
    i = args.index('--mode'); mode = args[i + 1]; del args[i:i + 2]
if len(args) < 2:
    sys.exit(__doc__)
def load(path):
    return [float(line.rstrip('\n').split('\t')[4]) for line in open(path) if line.split('\t')[1] == mode]
base = load(args[0])
print(f'{mode}, baseline {args[0]}: {len(base)} questions, mean {sum(base) / len(base):.4f}')
for path in args[1:]:
    other = load(path)
    if len(other) != len(base):
        sys.exit(f'{path} has {len(other)} questions of mode {mode}, the baseline {len(base)}')
    d = [o - b for o, b in zip(other, base)]
    rng = random.Random(17); n = len(d)
    means = sorted(sum(d[rng.randrange(n)] for _ in range(n)) / n for _ in range(10_000))
    up = sum(x > 1e-12 for x in d); down = sum(x < -1e-12 for x in d)
    print(f'{path}: mean {sum(other) / n:.4f}, difference {sum(d) / n:+.4f} '
          f'(95 % bootstrap {means[249]:+.4f} .. {means[9749]:+.4f}); raised {up}, lowered {down}, same {n - up - down}')
