#!/usr/bin/python3
"""Train the sampler playground's default tiny transformer.

A character-level Llama model (the architecture of llama2.c's model.py: RMSNorm,
rotary embeddings, grouped-query attention, SwiGLU, classifier tied to the
embedding) trained on the King James Bible as shipped by Debian's
bible-kjv-text package (printed with the `bible` program from bible-kjv).

Outputs (llama2.c formats, read by the C engine with the same code path as
llama2.c's own models):
  models/transformer.bin            legacy (version 0) float32 checkpoint
  models/transformer_tokenizer.bin  tokenizer.bin for the character vocabulary

Run (about 10-12 minutes on 2 idle CPU cores, far longer when other jobs
compete for them; deterministic for a given PyTorch, BLAS and thread count;
see models/MODELS.md):
  /usr/bin/python3 models/train_transformer.py
  /usr/bin/python3 models/train_transformer.py --quick   # smoke test, to /tmp

Needs:  apt-get install python3-torch bible-kjv
Fast:   apt-get install libopenblas0-openmp   (else netlib BLAS, ~20x slower)
"""

import argparse
import math
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)

# ----------------------------------------------------------------------------
# corpus

BIBLE_DATA = "/usr/lib/bible.data"
CORPUS_PACKAGE = "bible-kjv"   # the `bible` program; depends on bible-kjv-text


def read_kjv():
    """The whole KJV as printed by `bible`, one verse per line.

    Returns a list of chapters, each a list of verse strings (no numbers).
    """
    prog = shutil.which("bible") or ("/usr/bin/bible"
                                     if os.path.exists("/usr/bin/bible") else None)
    if prog is None or not os.path.exists(BIBLE_DATA):
        sys.exit(f"corpus missing: apt-get install {CORPUS_PACKAGE} "
                 f"(King James Bible text in {BIBLE_DATA} and the `bible` program)")
    # -l100000: no line wrapping, so every verse is on one line.
    out = subprocess.run([prog, "-l100000", "Gen1:1-Rev22:21"],
                         stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         check=True, env={"PATH": "/usr/bin:/bin", "LC_ALL": "C"}
                         ).stdout.decode("latin-1")
    chapters = []
    for line in out.split("\n"):
        if not line.strip():
            continue
        if not line.startswith(" "):          # chapter heading, e.g. "Genesis 1"
            chapters.append([])
            continue
        number, _, text = line.strip().partition(" ")
        if not number.isdigit() or not chapters:
            raise SystemExit(f"unexpected line in `bible` output: {line!r}")
        chapters[-1].append(text)
    return chapters


# Printable ASCII (32..126) plus newline: the whole character set.  Every such
# character gets a vocabulary entry, even if the corpus never uses it, so that
# any ASCII prompt encodes to real pieces (run.c's byte fallback, id = byte + 3,
# would otherwise land on an unrelated character of this small vocabulary).
CHARSET = "\n" + "".join(chr(c) for c in range(32, 127))


def normalize(text):
    """Tabs become spaces, CR is dropped, typographic quotes/dashes become
    ASCII, any other character outside printable ASCII + newline is dropped;
    runs of spaces collapse to one and the ends are trimmed."""
    table = {"\t": " ", "\r": None, "\u2018": "'", "\u2019": "'",
             "\u201c": '"', "\u201d": '"', "\u2013": "-", "\u2014": "-"}
    out = []
    for ch in text:
        ch = table.get(ch, ch)
        if ch is None or ch not in CHARSET:
            continue
        out.append(ch)
    return " ".join("".join(out).split(" ")).strip(" ") if out else ""


# ----------------------------------------------------------------------------
# tokenizer (llama2.c layout: 0 <unk>, 1 <s>, 2 </s>, then one piece per char)

UNK, BOS, EOS = 0, 1, 2
SPECIALS = ["<unk>", "<s>", "</s>"]


def build_vocab():
    pieces = SPECIALS + sorted(CHARSET)
    return pieces, {p: i for i, p in enumerate(pieces)}


def encode_document(text, stoi):
    """What llama2.c run.c's encode(text, bos=1, eos=0) gives for this vocab:
    BOS, the dummy-prefix piece " ", then one piece per character (there are
    no merges: every piece is a single character)."""
    ids = [BOS]
    if text:
        ids.append(stoi[" "])
        ids.extend(stoi[c] for c in text)
    return ids


def write_tokenizer(path, pieces):
    blobs = [p.encode("utf-8") for p in pieces]
    with open(path, "wb") as f:
        f.write(struct.pack("<i", max(len(b) for b in blobs)))
        for b in blobs:
            f.write(struct.pack("<fi", 0.0, len(b)))
            f.write(b)


# ----------------------------------------------------------------------------
# model (as llama2.c's model.py)

def build_model_classes(torch):
    nn = torch.nn
    F = torch.nn.functional

    class RMSNorm(nn.Module):
        def __init__(self, dim, eps=1e-5):
            super().__init__()
            self.eps = eps
            self.weight = nn.Parameter(torch.ones(dim))

        def forward(self, x):
            return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight

    def precompute_freqs(head_size, end, theta=10000.0):
        freqs = 1.0 / (theta ** (torch.arange(0, head_size, 2)[: head_size // 2].float()
                                 / head_size))
        t = torch.arange(end, dtype=torch.float32)
        freqs = torch.outer(t, freqs)
        return torch.cos(freqs), torch.sin(freqs)

    def apply_rotary(x, cos, sin):
        # x: (B, T, H, hs); rotate interleaved pairs (2i, 2i+1)
        xr, xi = x.reshape(x.shape[:-1] + (-1, 2)).unbind(-1)
        cos = cos[None, :, None, :]
        sin = sin[None, :, None, :]
        out = torch.stack((xr * cos - xi * sin, xr * sin + xi * cos), dim=-1)
        return out.flatten(3)

    class Attention(nn.Module):
        def __init__(self, cfg):
            super().__init__()
            self.n_heads, self.n_kv_heads = cfg["n_heads"], cfg["n_kv_heads"]
            self.head_size = cfg["dim"] // cfg["n_heads"]
            kv_dim = self.n_kv_heads * self.head_size
            self.wq = nn.Linear(cfg["dim"], cfg["dim"], bias=False)
            self.wk = nn.Linear(cfg["dim"], kv_dim, bias=False)
            self.wv = nn.Linear(cfg["dim"], kv_dim, bias=False)
            self.wo = nn.Linear(cfg["dim"], cfg["dim"], bias=False)

        def forward(self, x, cos, sin, mask):
            B, T, _ = x.shape
            hs = self.head_size
            q = self.wq(x).view(B, T, self.n_heads, hs)
            k = self.wk(x).view(B, T, self.n_kv_heads, hs)
            v = self.wv(x).view(B, T, self.n_kv_heads, hs)
            q, k = apply_rotary(q, cos, sin), apply_rotary(k, cos, sin)
            rep = self.n_heads // self.n_kv_heads
            k = k.repeat_interleave(rep, dim=2)   # head h uses kv head h // rep
            v = v.repeat_interleave(rep, dim=2)
            q, k, v = (t.transpose(1, 2) for t in (q, k, v))
            att = (q @ k.transpose(-2, -1)) / math.sqrt(hs) + mask[:T, :T]
            att = F.softmax(att, dim=-1)
            y = (att @ v).transpose(1, 2).reshape(B, T, -1)
            return self.wo(y)

    class FeedForward(nn.Module):
        def __init__(self, cfg):
            super().__init__()
            self.w1 = nn.Linear(cfg["dim"], cfg["hidden_dim"], bias=False)
            self.w2 = nn.Linear(cfg["hidden_dim"], cfg["dim"], bias=False)
            self.w3 = nn.Linear(cfg["dim"], cfg["hidden_dim"], bias=False)

        def forward(self, x):
            return self.w2(F.silu(self.w1(x)) * self.w3(x))

    class Block(nn.Module):
        def __init__(self, cfg):
            super().__init__()
            self.attention = Attention(cfg)
            self.feed_forward = FeedForward(cfg)
            self.attention_norm = RMSNorm(cfg["dim"])
            self.ffn_norm = RMSNorm(cfg["dim"])

        def forward(self, x, cos, sin, mask):
            h = x + self.attention(self.attention_norm(x), cos, sin, mask)
            return h + self.feed_forward(self.ffn_norm(h))

    class Transformer(nn.Module):
        def __init__(self, cfg):
            super().__init__()
            self.cfg = dict(cfg)
            self.tok_embeddings = nn.Embedding(cfg["vocab_size"], cfg["dim"])
            self.layers = nn.ModuleList(Block(cfg) for _ in range(cfg["n_layers"]))
            self.norm = RMSNorm(cfg["dim"])
            self.output = nn.Linear(cfg["dim"], cfg["vocab_size"], bias=False)
            self.output.weight = self.tok_embeddings.weight      # tied
            cos, sin = precompute_freqs(cfg["dim"] // cfg["n_heads"], cfg["seq_len"])
            self.register_buffer("freqs_cos", cos, persistent=False)
            self.register_buffer("freqs_sin", sin, persistent=False)
            mask = torch.full((cfg["seq_len"], cfg["seq_len"]), float("-inf")).triu(1)
            self.register_buffer("mask", mask, persistent=False)
            # llama2.c's init: N(0, 0.02), residual projections scaled down
            for name, p in self.named_parameters():
                if p.dim() == 2:
                    std = 0.02
                    if name.endswith("w3.weight") or name.endswith("wo.weight"):
                        std = 0.02 / math.sqrt(2 * cfg["n_layers"])
                    torch.nn.init.normal_(p, mean=0.0, std=std)

        def forward(self, tokens):
            T = tokens.shape[1]
            h = self.tok_embeddings(tokens)
            cos, sin = self.freqs_cos[:T], self.freqs_sin[:T]
            for layer in self.layers:
                h = layer(h, cos, sin, self.mask)
            return self.output(self.norm(h))

    return Transformer


def blas_library(torch):
    """Which BLAS this process has mapped (Debian's python3-torch uses the
    system libblas.so.3 alternative: netlib's reference BLAS makes a training
    step ~20x slower than OpenBLAS here)."""
    torch.ones(64, 64) @ torch.ones(64, 64)
    try:
        with open("/proc/self/maps") as f:
            libs = sorted({line.split()[-1] for line in f if "blas" in line.lower()})
    except OSError:
        return "unknown"
    return ", ".join(libs) or "unknown"


def n_params(model):
    return sum(p.numel() for p in model.parameters())   # tied weight counted once


# ----------------------------------------------------------------------------
# llama2.c legacy export (version 0)

def export_legacy(model, path):
    import numpy as np
    cfg = model.cfg
    shared = model.output.weight is model.tok_embeddings.weight
    vocab = cfg["vocab_size"] if shared else -cfg["vocab_size"]
    with open(path, "wb") as f:
        f.write(struct.pack("<7i", cfg["dim"], cfg["hidden_dim"], cfg["n_layers"],
                            cfg["n_heads"], cfg["n_kv_heads"], vocab, cfg["seq_len"]))

        def put(t):
            f.write(t.detach().cpu().contiguous().numpy().astype("<f4").tobytes())

        put(model.tok_embeddings.weight)
        layers = model.layers
        for attr in ("attention_norm", ):
            for L in layers:
                put(getattr(L, attr).weight)
        for w in ("wq", "wk", "wv", "wo"):
            for L in layers:
                put(getattr(L.attention, w).weight)
        for L in layers:
            put(L.ffn_norm.weight)
        for w in ("w1", "w2", "w3"):
            for L in layers:
                put(getattr(L.feed_forward, w).weight)
        put(model.norm.weight)
        put(model.freqs_cos[: cfg["seq_len"]])
        put(model.freqs_sin[: cfg["seq_len"]])
        if not shared:
            put(model.output.weight)
    hs = cfg["dim"] // cfg["n_heads"]
    kv = cfg["dim"] * cfg["n_kv_heads"] // cfg["n_heads"]
    d, h, nl, v = cfg["dim"], cfg["hidden_dim"], cfg["n_layers"], cfg["vocab_size"]
    floats = (v * d + nl * d + nl * d * d + 2 * nl * kv * d + nl * d * d + nl * d
              + 3 * nl * h * d + d + 2 * cfg["seq_len"] * (hs // 2)
              + (0 if shared else v * d))
    size = os.path.getsize(path)
    assert size == 28 + 4 * floats, (size, 28 + 4 * floats)
    return size


# ----------------------------------------------------------------------------

def optimizer(torch, model, args):
    """AdamW as in llama2.c (weight decay on matrices only) and its learning
    rate at each step: linear warm-up, then a cosine down to a tenth."""
    decay = [p for p in model.parameters() if p.dim() >= 2]
    no_decay = [p for p in model.parameters() if p.dim() < 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.1},
                             {"params": no_decay, "weight_decay": 0.0}],
                            lr=args.lr, betas=(0.9, 0.95))
    min_lr = args.lr / 10

    def lr_at(step):
        if step < args.warmup:
            return args.lr * (step + 1) / args.warmup
        frac = (step - args.warmup) / max(1, args.steps - args.warmup)
        return min_lr + 0.5 * (args.lr - min_lr) * (1 + math.cos(math.pi * frac))

    return opt, lr_at


def windows_of(torch, T):
    """batch(data, offsets): inputs and next-token targets of the windows of
    T tokens at the offsets; fixed_offsets(data, n): up to n offsets evenly
    spread over data (the evaluation's windows)."""
    def batch(data, offsets):
        idx = offsets[:, None] + torch.arange(T + 1)[None, :]
        w = data[idx]
        return w[:, :-1], w[:, 1:]

    def fixed_offsets(data, n):
        last = len(data) - T - 1
        count = min(n, last // T + 1)
        return torch.linspace(0, last, count).long()

    return batch, fixed_offsets


def export_check(torch, model, path, sample):
    """The export read back by the reference reader (tests/py/llama2c_ref.py,
    a re-implementation of run.c): its logits on `sample` against the
    trained model's; exits when they differ by more than 1e-4."""
    sys.path.insert(0, os.path.join(REPO, "tests", "py"))
    import llama2c_ref
    with torch.no_grad():
        model.eval()
        ours = model(torch.tensor([sample]))[0]
    theirs = llama2c_ref.logits_for_tokens(path, sample)
    max_diff = (ours - theirs).abs().max().item()
    if max_diff > 1e-4:
        sys.exit(f"export check FAILED: reader vs trained model max diff {max_diff}")
    return max_diff


def main():
    ap = argparse.ArgumentParser(description="Train the tiny character-level "
                                 "Llama model and export it for llama2.c.")
    ap.add_argument("--steps", type=int, default=2000)
    ap.add_argument("--batch-size", type=int, default=16)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--warmup", type=int, default=100)
    ap.add_argument("--eval-every", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1337)
    ap.add_argument("--dim", type=int, default=128)
    ap.add_argument("--hidden-dim", type=int, default=384)
    ap.add_argument("--n-layers", type=int, default=4)
    ap.add_argument("--n-heads", type=int, default=4)
    ap.add_argument("--n-kv-heads", type=int, default=2)
    ap.add_argument("--seq-len", type=int, default=256)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--quick", action="store_true",
                    help="smoke test: 60 steps, outputs go to the temp dir")
    ap.add_argument("--out", default=None,
                    help="checkpoint path (default models/transformer.bin)")
    ap.add_argument("--tokenizer-out", default=None,
                    help="tokenizer path (default models/transformer_tokenizer.bin)")
    args = ap.parse_args()
    if args.quick:
        args.steps, args.eval_every, args.warmup = 60, 30, 10
        out_dir = tempfile.gettempdir()
        args.out = args.out or os.path.join(out_dir, "transformer_quick.bin")
        args.tokenizer_out = args.tokenizer_out or os.path.join(
            out_dir, "transformer_quick_tokenizer.bin")
    args.out = args.out or os.path.join(HERE, "transformer.bin")
    args.tokenizer_out = args.tokenizer_out or os.path.join(
        HERE, "transformer_tokenizer.bin")

    chapters = read_kjv()          # exits with an apt-get hint if missing

    try:
        import torch
    except ImportError:
        sys.exit("PyTorch missing: apt-get install python3-torch "
                 "(and run with /usr/bin/python3)")
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    blas = blas_library(torch)
    print(f"torch {torch.__version__}, {args.threads} threads, BLAS: {blas}")
    if "openblas" not in blas and "mkl" not in blas:
        print("note: slow reference BLAS; apt-get install libopenblas0-openmp "
              "makes training ~20x faster", file=sys.stderr)
    t_start = time.time()

    # -- data: one document per verse; split by chapter (every 20th -> val)
    pieces, stoi = build_vocab()
    train_ids, val_ids = [], []
    n_docs = [0, 0]
    n_chars = 0
    for ci, chapter in enumerate(chapters):
        is_val = ci % 20 == 19
        dest = val_ids if is_val else train_ids
        for verse in chapter:
            text = normalize(verse)
            if not text:
                continue
            n_chars += len(text)
            n_docs[is_val] += 1
            dest.extend(encode_document(text, stoi))
    used = sorted({c for ch in chapters for v in ch for c in normalize(v)})
    print(f"corpus: KJV Bible, {len(chapters)} chapters, {sum(n_docs)} verses "
          f"(documents), {n_chars} characters, {len(used)} distinct characters")
    print(f"split by chapter: train {n_docs[0]} docs / {len(train_ids)} tokens, "
          f"val {n_docs[1]} docs / {len(val_ids)} tokens")
    train_t = torch.tensor(train_ids, dtype=torch.long)
    val_t = torch.tensor(val_ids, dtype=torch.long)

    cfg = dict(dim=args.dim, hidden_dim=args.hidden_dim, n_layers=args.n_layers,
               n_heads=args.n_heads, n_kv_heads=args.n_kv_heads,
               vocab_size=len(pieces), seq_len=args.seq_len)
    Transformer = build_model_classes(torch)
    model = Transformer(cfg)
    print("config:", cfg)
    print(f"parameters: {n_params(model)} (classifier tied to the embedding)")

    opt, lr_at = optimizer(torch, model, args)
    T = args.seq_len
    gen = torch.Generator().manual_seed(args.seed)
    batch, fixed_offsets = windows_of(torch, T)

    @torch.no_grad()
    def evaluate(data, offsets, bs=32):
        model.eval()
        total, count = 0.0, 0
        for i in range(0, len(offsets), bs):
            x, y = batch(data, offsets[i:i + bs])
            logits = model(x)
            loss = torch.nn.functional.cross_entropy(
                logits.reshape(-1, logits.shape[-1]), y.reshape(-1), reduction="sum")
            total += loss.item()
            count += y.numel()
        model.train()
        return total / count

    val_probe = fixed_offsets(val_t, 64)
    last = len(train_t) - T - 1
    running = None
    t_train = time.time()
    for step in range(args.steps):
        for g in opt.param_groups:
            g["lr"] = lr_at(step)
        offsets = torch.randint(0, last + 1, (args.batch_size,), generator=gen)
        x, y = batch(train_t, offsets)
        logits = model(x)
        loss = torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]),
                                                 y.reshape(-1))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        running = loss.item() if running is None else 0.95 * running + 0.05 * loss.item()
        if (step + 1) % args.eval_every == 0 or step == 0:
            vl = evaluate(val_t, val_probe)
            el = time.time() - t_train
            print(f"step {step + 1:5d}/{args.steps}  lr {lr_at(step):.2e}  "
                  f"train {running:.4f}  val(probe) {vl:.4f}  nats/char  "
                  f"[{el:.0f} s]", flush=True)
    train_time = time.time() - t_train

    # -- final losses: all of val (windows tiling it), same count from train
    val_offsets = fixed_offsets(val_t, 10 ** 9)
    train_offsets = fixed_offsets(train_t, len(val_offsets))
    final_val = evaluate(val_t, val_offsets)
    final_train = evaluate(train_t, train_offsets)

    # -- export
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    size = export_legacy(model, args.out)
    write_tokenizer(args.tokenizer_out, pieces)

    # -- check the export: the reference reader (tests/py/llama2c_ref.py, a
    # re-implementation of run.c) must give the trained model's logits
    ref_dir = os.path.join(REPO, "tests", "py")
    max_diff = None
    if os.path.exists(os.path.join(ref_dir, "llama2c_ref.py")):
        max_diff = export_check(torch, model, args.out, val_ids[:200])
        import llama2c_ref
        ck = llama2c_ref.Llama2cCheckpoint(args.out)
        assert ck.n_params() == n_params(model)
        _, tok_pieces = llama2c_ref.read_tokenizer(args.tokenizer_out, len(pieces))
        assert [p.decode() for p, _ in tok_pieces] == pieces

    print(f"final train loss {final_train:.4f} nats/char "
          f"({len(train_offsets)} windows of {T})")
    print(f"final val   loss {final_val:.4f} nats/char "
          f"({len(val_offsets)} windows of {T}, all of val)")
    print(f"parameters {n_params(model)}; training {train_time:.0f} s, "
          f"total {time.time() - t_start:.0f} s on {args.threads} threads")
    print(f"wrote {args.out} ({size} bytes) and {args.tokenizer_out} "
          f"({os.path.getsize(args.tokenizer_out)} bytes, {len(pieces)} pieces)")
    if max_diff is not None:
        print(f"export check: llama2c_ref.py logits vs trained model, "
              f"max |diff| {max_diff:.3g}")


if __name__ == "__main__":
    main()
