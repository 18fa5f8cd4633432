#!/usr/bin/python3
"""Train the character bigram of the King James Bible: a draft model for the
default transformer that speaks its vocabulary.

The corpus, the split by chapter and the tokenization are the transformer's
(models/kjv.py): one document per verse, each encoded as
<s>, " ", then one piece per character, documents concatenated; the bigram
counts every pair of consecutive tokens of the training stream (so it
learns P(" " | <s>), and P(<s> | ".") at the end of a verse).

The estimate is maximum likelihood with add-alpha smoothing,
P(b | a) = (count(a, b) + alpha) / (count(a) + alpha * V), stored as
natural-log probabilities (float32) in the engine's bigram format version 2
(c/engine/model/bigram.c): no pieces of its own, it takes the transformer's
tokenizer (models/transformer_tokenizer.bin).  No randomness: a re-run
writes the same bytes.

    /usr/bin/python3 models/train_bible_bigram.py [--alpha 0.1] [--out models/bible_bigram.bin]

Needs: apt-get install bible-kjv   (Python's standard library otherwise)
"""
import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import bigram_format as bf  # noqa: E402  (the estimate and the file)
import kjv  # noqa: E402  (the corpus, its vocabulary and streams)


def streams():
    pieces, stoi = kjv.build_vocab()
    train, val, _, _ = kjv.split_streams(kjv.read_kjv(), stoi)
    return pieces, train, val


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--alpha", type=float, default=0.1)
    ap.add_argument("--out", default=os.path.join(HERE, "bible_bigram.bin"))
    args = ap.parse_args()

    pieces, train, val = streams()
    v = len(pieces)
    counts = [[0] * v for _ in range(v)]
    for a, b in zip(train, train[1:]):
        counts[a][b] += 1
    rows = bf.smoothed_rows(counts, args.alpha)

    def nll(stream):
        return -sum(rows[a][b] for a, b in zip(stream, stream[1:])) / (len(stream) - 1)

    size = bf.write_bigram(args.out, rows)
    print(f"train_bible_bigram: vocab {v} (the transformer's), alpha {args.alpha}, "
          f"{v * v} parameters; NLL train {nll(train):.4f}, val {nll(val):.4f} "
          f"nats/token ({len(train) - 1} / {len(val) - 1} pairs); "
          f"wrote {args.out} ({size} bytes)")


if __name__ == "__main__":
    main()
