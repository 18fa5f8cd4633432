"""The tiny Llama of the playground's transformer and its draft, in
PyTorch: the model as llama2.c's model.py builds it, its training pieces
(AdamW and its learning rate, the windows of a stream), and llama2.c's
legacy (version 0) checkpoint format, written and read back
(models/MODELS.md).
"""

import math
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)


def import_torch(threads, seed):
    """PyTorch, on `threads` threads, its generator seeded with `seed`
    (before any weight is drawn); exits with the apt-get line without it."""
    try:
        import torch
    except ImportError:
        sys.exit("PyTorch missing: apt-get install python3-torch "
                 "(and run with /usr/bin/python3)")
    torch.set_num_threads(threads)
    torch.manual_seed(seed)
    return torch


def add_model_args(ap, dim, hidden_dim, n_layers, n_heads, n_kv_heads,
                   steps, lr, eval_every, threads, quick, out):
    """The options both trainers take, with each one's defaults (quick:
    what --quick does; out: the checkpoint's default path)."""
    ap.add_argument("--steps", type=int, default=steps)
    ap.add_argument("--batch-size", type=int, default=16)
    ap.add_argument("--lr", type=float, default=lr)
    ap.add_argument("--warmup", type=int, default=100)
    ap.add_argument("--eval-every", type=int, default=eval_every)
    ap.add_argument("--seed", type=int, default=1337)
    ap.add_argument("--dim", type=int, default=dim)
    ap.add_argument("--hidden-dim", type=int, default=hidden_dim)
    ap.add_argument("--n-layers", type=int, default=n_layers)
    ap.add_argument("--n-heads", type=int, default=n_heads)
    ap.add_argument("--n-kv-heads", type=int, default=n_kv_heads)
    ap.add_argument("--threads", type=int, default=threads)
    ap.add_argument("--quick", action="store_true", help=f"smoke test: {quick}")
    ap.add_argument("--out", default=None, help=f"checkpoint path (default {out})")


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
# llama2.c legacy checkpoint (version 0): 7 int32, then the weights

def legacy_weights(model):
    """The weights in the order a legacy checkpoint stores them, up to the
    final norm (the RoPE tables, and an unshared classifier, follow)."""
    layers = model.layers
    out = [model.tok_embeddings.weight]
    out += [L.attention_norm.weight for L in layers]
    for w in ("wq", "wk", "wv", "wo"):
        out += [getattr(L.attention, w).weight for L in layers]
    out += [L.ffn_norm.weight for L in layers]
    for w in ("w1", "w2", "w3"):
        out += [getattr(L.feed_forward, w).weight for L in layers]
    out.append(model.norm.weight)
    return out


def export_legacy(model, path):
    cfg = model.cfg
    shared = model.output.weight is model.tok_embeddings.weight
    vocab = cfg["vocab_size"] if shared else -cfg["vocab_size"]
    with open(path, "wb") as f:
        f.write(struct.pack("<7i", cfg["dim"], cfg["hidden_dim"], cfg["n_layers"],
                            cfg["n_heads"], cfg["n_kv_heads"], vocab, cfg["seq_len"]))

        def put(t):
            f.write(t.detach().cpu().contiguous().numpy().astype("<f4").tobytes())

        for w in legacy_weights(model):
            put(w)
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


def load_legacy(torch, Transformer, path):
    """The inverse of export_legacy: a llama2.c legacy checkpoint as the
    PyTorch model (the draft's teacher)."""
    import numpy as np
    with open(path, "rb") as f:
        data = f.read()
    dim, hidden, n_layers, n_heads, n_kv_heads, vocab, seq_len = struct.unpack(
        "<7i", data[:28])
    cfg = dict(dim=dim, hidden_dim=hidden, n_layers=n_layers, n_heads=n_heads,
               n_kv_heads=n_kv_heads, vocab_size=abs(vocab), seq_len=seq_len)
    model = Transformer(cfg)
    floats = np.frombuffer(data, dtype="<f4", offset=28)
    at = 0

    def take(param):
        nonlocal at
        n = param.numel()
        param.data.copy_(torch.from_numpy(floats[at:at + n].copy()).view_as(param))
        at += n

    for w in legacy_weights(model):
        take(w)
    if vocab < 0:
        at += seq_len * (dim // n_heads)      # the unused RoPE tables
        take(model.output.weight)
    model.eval()
    return model


# ----------------------------------------------------------------------------
# training

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


def optimize(torch, opt, model, loss, running):
    """One step of opt on loss (gradients clipped to norm 1.0, as
    llama2.c's train.py); returns the running loss, 0.95 of the last
    running one and 0.05 of this (this alone at the first step)."""
    opt.zero_grad(set_to_none=True)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    return loss.item() if running is None else 0.95 * running + 0.05 * loss.item()


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

