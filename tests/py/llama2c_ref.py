#!/usr/bin/python3
"""Reference reader for llama2.c legacy (version 0) float32 checkpoints.

A float32 PyTorch re-implementation of llama2.c's run.c: it reads the same
file layout as run.c's read_checkpoint()/memory_map_weights() and computes the
same forward() one position at a time through a key/value cache.  It is the
oracle that the C engine's `logits` command is compared against.

File layout (little-endian):
  header: 7 x int32  dim, hidden_dim, n_layers, n_heads, n_kv_heads,
                     vocab_size (negative = classifier not shared), seq_len
  then float32 arrays, in this order:
    token_embedding_table (vocab, dim)
    rms_att_weight        (layers, dim)
    wq                    (layers, dim, dim)        PyTorch (out, in) layout
    wk                    (layers, kv_dim, dim)
    wv                    (layers, kv_dim, dim)
    wo                    (layers, dim, dim)
    rms_ffn_weight        (layers, dim)
    w1                    (layers, hidden, dim)
    w2                    (layers, dim, hidden)
    w3                    (layers, hidden, dim)
    rms_final_weight      (dim)
    freq_cis_real         (seq_len, head_size/2)    (unused, as in run.c)
    freq_cis_imag         (seq_len, head_size/2)    (unused, as in run.c)
    wcls                  (vocab, dim)              only if vocab_size < 0

Usage as a program:
  /usr/bin/python3 tests/py/llama2c_ref.py MODEL.bin --tokens 1,5,9
prints {"logits": [[...], ...]} like the engine's `logits` command.
"""

import json
import os
import struct
import sys

import numpy as np
import torch

HEADER = struct.Struct("<7i")
CONFIG_KEYS = ("dim", "hidden_dim", "n_layers", "n_heads", "n_kv_heads",
               "vocab_size", "seq_len")


class Llama2cCheckpoint:
    """Weights and configuration of one legacy llama2.c checkpoint."""

    def __init__(self, path):
        with open(path, "rb") as f:
            data = f.read()
        if len(data) < HEADER.size:
            raise ValueError(f"{path}: too short for a llama2.c header")
        values = HEADER.unpack_from(data, 0)
        cfg = dict(zip(CONFIG_KEYS, values))
        self.shared_classifier = cfg["vocab_size"] > 0
        cfg["vocab_size"] = abs(cfg["vocab_size"])
        self.config = cfg
        dim, hidden, n_layers = cfg["dim"], cfg["hidden_dim"], cfg["n_layers"]
        n_heads, n_kv_heads = cfg["n_heads"], cfg["n_kv_heads"]
        vocab, seq_len = cfg["vocab_size"], cfg["seq_len"]
        if min(dim, hidden, n_layers, n_heads, n_kv_heads, vocab, seq_len) <= 0:
            raise ValueError(f"{path}: bad header {values}")
        if dim % n_heads or n_heads % n_kv_heads:
            raise ValueError(f"{path}: heads do not divide dim {values}")
        head_size = dim // n_heads
        kv_dim = dim * n_kv_heads // n_heads
        self.head_size, self.kv_dim = head_size, kv_dim

        shapes = [
            ("token_embedding_table", (vocab, dim)),
            ("rms_att_weight", (n_layers, dim)),
            ("wq", (n_layers, dim, dim)),
            ("wk", (n_layers, kv_dim, dim)),
            ("wv", (n_layers, kv_dim, dim)),
            ("wo", (n_layers, dim, dim)),
            ("rms_ffn_weight", (n_layers, dim)),
            ("w1", (n_layers, hidden, dim)),
            ("w2", (n_layers, dim, hidden)),
            ("w3", (n_layers, hidden, dim)),
            ("rms_final_weight", (dim,)),
            ("freq_cis_real", (seq_len, head_size // 2)),
            ("freq_cis_imag", (seq_len, head_size // 2)),
        ]
        if not self.shared_classifier:
            shapes.append(("wcls", (vocab, dim)))
        n_floats = sum(int(np.prod(s)) for _, s in shapes)
        expected = HEADER.size + 4 * n_floats
        if len(data) != expected:
            raise ValueError(f"{path}: size {len(data)} bytes, the header "
                             f"implies {expected}")
        floats = np.frombuffer(data, dtype="<f4", offset=HEADER.size)
        self.weights = {}
        offset = 0
        for name, shape in shapes:
            n = int(np.prod(shape))
            arr = floats[offset:offset + n].reshape(shape).astype(np.float32)
            self.weights[name] = torch.from_numpy(arr.copy())
            offset += n
        if self.shared_classifier:
            self.weights["wcls"] = self.weights["token_embedding_table"]

    def n_params(self):
        """Trainable parameters (no freq tables; a shared classifier counted once)."""
        skip = {"freq_cis_real", "freq_cis_imag"}
        total = sum(t.numel() for k, t in self.weights.items()
                    if k not in skip and k != "wcls")
        if not self.shared_classifier:
            total += self.weights["wcls"].numel()
        return total


def _rmsnorm(x, weight):
    # run.c: ss = sum(x^2)/n + 1e-5; ss = 1/sqrtf(ss); o = weight * (ss * x)
    ss = torch.sum(x * x) / x.numel() + 1e-5
    ss = 1.0 / torch.sqrt(ss)
    return weight * (ss * x)


class Llama2cRunner:
    """run.c's forward(): one token at a time through a key/value cache."""

    def __init__(self, ckpt):
        self.ckpt = ckpt
        cfg = ckpt.config
        self.cfg = cfg
        hs = ckpt.head_size
        # run.c recomputes RoPE on the fly (ignores the file's freq tables):
        # head_dim = i % head_size; freq = 1 / powf(10000, head_dim / head_size)
        head_dims = torch.arange(0, hs, 2, dtype=torch.float32)
        self.freq = 1.0 / torch.pow(torch.tensor(10000.0, dtype=torch.float32),
                                    head_dims / float(hs))
        self.reset()

    def reset(self):
        cfg, ck = self.cfg, self.ckpt
        self.key_cache = torch.zeros(cfg["n_layers"], cfg["seq_len"], ck.kv_dim)
        self.value_cache = torch.zeros(cfg["n_layers"], cfg["seq_len"], ck.kv_dim)

    def _rope(self, vec, pos):
        # rotate interleaved pairs (2i, 2i+1) of each head
        hs = self.ckpt.head_size
        val = float(pos) * self.freq           # float32, like pos * freq in C
        fcr, fci = torch.cos(val), torch.sin(val)
        v = vec.view(-1, hs // 2, 2)
        v0, v1 = v[..., 0], v[..., 1]
        out = torch.stack((v0 * fcr - v1 * fci, v0 * fci + v1 * fcr), dim=-1)
        return out.reshape(-1)

    @torch.no_grad()
    def forward(self, token, pos):
        w, cfg, ck = self.ckpt.weights, self.cfg, self.ckpt
        if not 0 <= token < cfg["vocab_size"]:
            raise ValueError(f"token {token} out of range")
        if not 0 <= pos < cfg["seq_len"]:
            raise ValueError(f"position {pos} out of range")
        n_heads, hs = cfg["n_heads"], ck.head_size
        kv_mul = cfg["n_heads"] // cfg["n_kv_heads"]
        x = w["token_embedding_table"][token].clone()
        for layer in range(cfg["n_layers"]):
            xb = _rmsnorm(x, w["rms_att_weight"][layer])
            q = w["wq"][layer] @ xb
            k = w["wk"][layer] @ xb
            v = w["wv"][layer] @ xb
            q = self._rope(q, pos)
            k = self._rope(k, pos)
            self.key_cache[layer, pos] = k
            self.value_cache[layer, pos] = v
            keys = self.key_cache[layer, :pos + 1].view(pos + 1, -1, hs)
            values = self.value_cache[layer, :pos + 1].view(pos + 1, -1, hs)
            heads = []
            for h in range(n_heads):
                kvh = h // kv_mul
                qh = q[h * hs:(h + 1) * hs]
                scores = (keys[:, kvh, :] @ qh) / float(np.sqrt(np.float32(hs)))
                att = torch.softmax(scores, dim=0)
                heads.append(att @ values[:, kvh, :])
            xb = torch.cat(heads)
            x = x + w["wo"][layer] @ xb
            xb = _rmsnorm(x, w["rms_ffn_weight"][layer])
            hb = w["w1"][layer] @ xb
            hb2 = w["w3"][layer] @ xb
            hb = (hb * torch.sigmoid(hb)) * hb2
            x = x + w["w2"][layer] @ hb
        x = _rmsnorm(x, w["rms_final_weight"])
        return w["wcls"] @ x


def logits_for_tokens(ckpt_or_path, tokens):
    """Logits (len(tokens), vocab) float32 tensor: token i fed at position i."""
    ckpt = ckpt_or_path
    if not isinstance(ckpt, Llama2cCheckpoint):
        ckpt = Llama2cCheckpoint(ckpt_or_path)
    runner = Llama2cRunner(ckpt)
    return torch.stack([runner.forward(int(t), pos) for pos, t in enumerate(tokens)])


def read_tokenizer(path, vocab_size):
    """llama2.c tokenizer.bin: (max_token_length, [(piece bytes, score)])."""
    with open(path, "rb") as f:
        data = f.read()
    (max_len,) = struct.unpack_from("<i", data, 0)
    off = 4
    pieces = []
    for _ in range(vocab_size):
        score, n = struct.unpack_from("<fi", data, off)
        off += 8
        pieces.append((data[off:off + n], score))
        off += n
    if off != len(data):
        raise ValueError(f"{path}: {len(data) - off} trailing bytes")
    return max_len, pieces


def encode(pieces, text, bos=True, eos=False):
    """llama2.c run.c's encode(): `pieces` as returned by read_tokenizer()."""
    lookup = {}
    for i, (p, _) in enumerate(pieces):
        lookup.setdefault(p, i)
    scores = [s for _, s in pieces]
    data = text.encode("utf-8") if isinstance(text, str) else bytes(text)
    tokens = [1] if bos else []
    if data:
        tokens.append(lookup[b" "])          # the dummy prefix
    buf = b""
    for i, c in enumerate(data):
        if c & 0xC0 != 0x80:
            buf = b""
        buf += bytes([c])
        if i + 1 < len(data) and data[i + 1] & 0xC0 == 0x80 and len(buf) < 4:
            continue
        if buf in lookup:
            tokens.append(lookup[buf])
        else:
            tokens.extend(b + 3 for b in buf)  # byte fallback
        buf = b""
    while True:                              # merge the best-scoring pair
        best = (-1e10, -1, -1)
        for i in range(len(tokens) - 1):
            merged = pieces[tokens[i]][0] + pieces[tokens[i + 1]][0]
            j = lookup.get(merged)
            if j is not None and scores[j] > best[0]:
                best = (scores[j], j, i)
        if best[2] == -1:
            break
        tokens[best[2]:best[2] + 2] = [best[1]]
    if eos:
        tokens.append(2)
    return tokens


def main(argv):
    import argparse
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("model")
    ap.add_argument("--tokens", required=True, help="comma-separated token ids")
    args = ap.parse_args(argv)
    torch.set_num_threads(min(2, os.cpu_count() or 1))
    tokens = [int(t) for t in args.tokens.split(",") if t.strip()]
    logits = logits_for_tokens(args.model, tokens)
    json.dump({"logits": [[float(f"{v:.9g}") for v in row]
                          for row in logits.tolist()]}, sys.stdout)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
