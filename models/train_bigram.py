#!/usr/bin/env python3
"""Trains the playground's character bigram model on a names list.

Corpus: /usr/share/dict/propernames(.gz) from Debian's `miscfiles` package
(1516 first names; see models/MODELS.md for the licence).  Every name is one
"word" framed by the boundary token "\\n": the model learns P(first letter),
P(next letter | letter) and P(end | letter).

The estimate is the maximum-likelihood bigram with add-alpha smoothing:
P(next | prev) = (count(prev, next) + alpha) / (count(prev) + alpha * V),
stored as natural-log probabilities (float32) in the engine's bigram format
(documented in c/engine/model/bigram.c).  No randomness: a re-run writes the same bytes.

    /usr/bin/python3 models/train_bigram.py [--alpha 0.1] [--out models/bigram.bin]
"""
import argparse
import gzip
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bigram_format as bf  # noqa: E402  (the estimate and the file)

CORPUS = "/usr/share/dict/propernames"
BOUNDARY = "\n"


def read_names(path):
    for candidate in (path, path + ".gz"):
        if os.path.exists(candidate):
            opener = gzip.open if candidate.endswith(".gz") else open
            with opener(candidate, "rt", encoding="utf-8") as f:
                return [line.strip() for line in f if line.strip()]
    sys.exit(f"train_bigram: {path} not found: apt-get install miscfiles")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", default=CORPUS)
    ap.add_argument("--alpha", type=float, default=0.1)
    ap.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "bigram.bin"))
    args = ap.parse_args()

    names = read_names(args.corpus)
    chars = sorted(set("".join(names)))
    vocab = [BOUNDARY] + chars  # the boundary token is id 0
    index = {c: i for i, c in enumerate(vocab)}
    v = len(vocab)

    counts = [[0] * v for _ in range(v)]
    for name in names:
        seq = [0] + [index[c] for c in name] + [0]
        for a, b in zip(seq, seq[1:]):
            counts[a][b] += 1

    rows = bf.smoothed_rows(counts, args.alpha)
    nll, n = 0.0, 0
    for a in range(v):
        for b in range(v):
            nll -= counts[a][b] * rows[a][b]
            n += counts[a][b]
    size = bf.write_bigram(args.out, rows, vocab)
    print(f"train_bigram: {len(names)} names, vocab {v}, alpha {args.alpha}, "
          f"{v * v} parameters, train NLL {nll / n:.4f} nats/char over {n} "
          f"bigrams, wrote {args.out} ({size} bytes)")


if __name__ == "__main__":
    main()
