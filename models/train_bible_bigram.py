#!/usr/bin/python3
"""Train the character bigram of the King James Bible: a draft model for the
default transformer that speaks its vocabulary.

The corpus, the split by chapter and the tokenization are the transformer's
(models/train_transformer.py): one document per verse, each encoded as
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
import math
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import train_transformer as tt  # noqa: E402  (corpus, vocabulary, encoding)


def streams():
    pieces, stoi = tt.build_vocab()
    train, val = [], []
    for ci, chapter in enumerate(tt.read_kjv()):
        dest = val if ci % 20 == 19 else train
        for verse in chapter:
            text = tt.normalize(verse)
            if text:
                dest.extend(tt.encode_document(text, stoi))
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
    rows = []
    for a in range(v):
        total = sum(counts[a]) + args.alpha * v
        rows.append([math.log((counts[a][b] + args.alpha) / total)
                     for b in range(v)])

    def nll(stream):
        return -sum(rows[a][b] for a, b in zip(stream, stream[1:])) / (len(stream) - 1)

    out = bytearray(b"SPBG")
    out += struct.pack("<III", 2, v, 0)
    for row in rows:
        out += struct.pack(f"<{v}f", *row)
    with open(args.out, "wb") as f:
        f.write(out)
    print(f"train_bible_bigram: vocab {v} (the transformer's), alpha {args.alpha}, "
          f"{v * v} parameters; NLL train {nll(train):.4f}, val {nll(val):.4f} "
          f"nats/token ({len(train) - 1} / {len(val) - 1} pairs); "
          f"wrote {args.out} ({len(out)} bytes)")


if __name__ == "__main__":
    main()
