"""The engine's bigram file (format documented in c/engine/model/bigram.c)
as both bigram trainers estimate and write it: maximum likelihood with
add-alpha smoothing, P(b | a) = (count(a, b) + alpha) / (count(a) +
alpha * V), stored as natural-log probabilities (float32).
"""

import math
import struct


def smoothed_rows(counts, alpha):
    """ln P(b | a) for the V x V pair counts, row a by row."""
    v = len(counts)
    rows = []
    for a in range(v):
        total = sum(counts[a]) + alpha * v
        rows.append([math.log((counts[a][b] + alpha) / total) for b in range(v)])
    return rows


def write_bigram(path, rows, pieces=None):
    """Magic SPBG, then version 1 with its own pieces (boundary id 0), or
    version 2 without (it takes the transformer's tokenizer); then the
    table.  Returns the file's size."""
    v = len(rows)
    out = bytearray(b"SPBG")
    out += struct.pack("<III", 1 if pieces else 2, v, 0)
    if pieces:
        for piece in pieces:
            data = piece.encode("utf-8")
            out += struct.pack("<B", len(data)) + data
        out += b"\0" * (-len(out) % 4)
    for row in rows:
        out += struct.pack(f"<{v}f", *row)
    with open(path, "wb") as f:
        f.write(out)
    return len(out)
