#!/usr/bin/python3
"""Train the draft model for speculative decoding with the default transformer.

A much smaller character-level Llama (1 layer, dim 64) on the same corpus
(the King James Bible, split by chapter as in train_transformer.py) with the
same tokenizer (models/transformer_tokenizer.bin), distilled from the
shipped transformer: at every position of a training window the draft learns
the transformer's whole next-token distribution (cross-entropy against its
softmax, i.e. KL(p_target || q_draft) up to a constant) rather than only the
character that came next.  Speculative sampling accepts a drafted token with
probability min(1, p/q), so the closer q is to p, the more tokens are
accepted: distilling aims the draft at exactly that.

Output (llama2.c legacy float32 format, read by the engine like any
llama2.c checkpoint; it uses transformer_tokenizer.bin):
  models/bible_tiny.bin

Run (deterministic for a given PyTorch, BLAS and thread count; see
models/MODELS.md for the time it took):
  /usr/bin/python3 models/train_draft.py
  /usr/bin/python3 models/train_draft.py --quick   # smoke test, to /tmp

Needs: apt-get install python3-torch bible-kjv libopenblas0-openmp
"""

import argparse
import math
import os
import struct
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, HERE)

import train_transformer as tt  # noqa: E402  (corpus, vocabulary, model, export)


def load_legacy(torch, Transformer, path):
    """The inverse of train_transformer.export_legacy: a llama2.c legacy
    checkpoint as the PyTorch model (the teacher)."""
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

    take(model.tok_embeddings.weight)
    for L in model.layers:
        take(L.attention_norm.weight)
    for w in ("wq", "wk", "wv", "wo"):
        for L in model.layers:
            take(getattr(L.attention, w).weight)
    for L in model.layers:
        take(L.ffn_norm.weight)
    for w in ("w1", "w2", "w3"):
        for L in model.layers:
            take(getattr(L.feed_forward, w).weight)
    take(model.norm.weight)
    if vocab < 0:
        at += seq_len * (dim // n_heads)      # the unused RoPE tables
        take(model.output.weight)
    model.eval()
    return model


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=800)
    ap.add_argument("--batch-size", type=int, default=16)
    ap.add_argument("--lr", type=float, default=5e-3)
    ap.add_argument("--warmup", type=int, default=100)
    ap.add_argument("--eval-every", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1337)
    ap.add_argument("--dim", type=int, default=64)
    ap.add_argument("--hidden-dim", type=int, default=192)
    ap.add_argument("--n-layers", type=int, default=1)
    ap.add_argument("--n-heads", type=int, default=4)
    ap.add_argument("--n-kv-heads", type=int, default=2)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--teacher", default=os.path.join(HERE, "transformer.bin"))
    ap.add_argument("--quick", action="store_true",
                    help="smoke test: 40 steps, output to the temp dir")
    ap.add_argument("--out", default=None,
                    help="checkpoint path (default models/bible_tiny.bin)")
    args = ap.parse_args()
    if args.quick:
        args.steps, args.eval_every, args.warmup = 40, 20, 10
        args.out = args.out or os.path.join(tempfile.gettempdir(),
                                            "bible_tiny_quick.bin")
    args.out = args.out or os.path.join(HERE, "bible_tiny.bin")

    chapters = tt.read_kjv()
    try:
        import torch
    except ImportError:
        sys.exit("PyTorch missing: apt-get install python3-torch "
                 "(and run with /usr/bin/python3)")
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    print(f"torch {torch.__version__}, {args.threads} threads, "
          f"BLAS: {tt.blas_library(torch)}")
    t_start = time.time()

    pieces, stoi = tt.build_vocab()
    train_ids, val_ids = [], []
    for ci, chapter in enumerate(chapters):
        dest = val_ids if ci % 20 == 19 else train_ids
        for verse in chapter:
            text = tt.normalize(verse)
            if text:
                dest.extend(tt.encode_document(text, stoi))
    train_t = torch.tensor(train_ids, dtype=torch.long)
    val_t = torch.tensor(val_ids, dtype=torch.long)
    print(f"train {len(train_ids)} tokens, val {len(val_ids)} tokens")

    Transformer = tt.build_model_classes(torch)
    teacher = load_legacy(torch, Transformer, args.teacher)
    for p in teacher.parameters():
        p.requires_grad_(False)
    T = teacher.cfg["seq_len"]
    cfg = dict(dim=args.dim, hidden_dim=args.hidden_dim, n_layers=args.n_layers,
               n_heads=args.n_heads, n_kv_heads=args.n_kv_heads,
               vocab_size=len(pieces), seq_len=T)
    assert teacher.cfg["vocab_size"] == len(pieces)
    model = Transformer(cfg)
    print("teacher:", teacher.cfg, f"{tt.n_params(teacher)} parameters")
    print("draft:  ", cfg, f"{tt.n_params(model)} parameters")

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

    gen = torch.Generator().manual_seed(args.seed)
    F = torch.nn.functional

    def batch(data, offsets):
        idx = offsets[:, None] + torch.arange(T + 1)[None, :]
        w = data[idx]
        return w[:, :-1], w[:, 1:]

    def fixed_offsets(data, n):
        last = len(data) - T - 1
        count = min(n, last // T + 1)
        return torch.linspace(0, last, count).long()

    @torch.no_grad()
    def evaluate(data, offsets, bs=32):
        """Cross-entropy on the data (nats/char), the distillation loss
        (KL from the teacher, nats), and how often the draft's argmax is the
        teacher's (greedy agreement)."""
        model.eval()
        ce = kl = agree = 0.0
        count = 0
        for i in range(0, len(offsets), bs):
            x, y = batch(data, offsets[i:i + bs])
            logq = F.log_softmax(model(x), -1)
            logp = F.log_softmax(teacher(x), -1)
            ce += F.nll_loss(logq.reshape(-1, logq.shape[-1]), y.reshape(-1),
                             reduction="sum").item()
            kl += (logp.exp() * (logp - logq)).sum().item()
            agree += (logq.argmax(-1) == logp.argmax(-1)).sum().item()
            count += y.numel()
        model.train()
        return ce / count, kl / count, agree / count

    val_probe = fixed_offsets(val_t, 64)
    last = len(train_t) - T - 1
    t_train = time.time()
    running = None
    for step in range(args.steps):
        for g in opt.param_groups:
            g["lr"] = lr_at(step)
        offsets = torch.randint(0, last + 1, (args.batch_size,), generator=gen)
        x, _ = batch(train_t, offsets)
        with torch.no_grad():
            target = F.softmax(teacher(x), -1)
        logq = F.log_softmax(model(x), -1)
        loss = -(target * logq).sum(-1).mean()   # = KL(p || q) + H(p)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        running = loss.item() if running is None else 0.95 * running + 0.05 * loss.item()
        if (step + 1) % args.eval_every == 0 or step == 0:
            ce, kl, agree = evaluate(val_t, val_probe)
            print(f"step {step + 1:5d}/{args.steps}  lr {lr_at(step):.2e}  "
                  f"distill {running:.4f}  val(probe) CE {ce:.4f} KL {kl:.4f} "
                  f"agree {agree:.3f}  [{time.time() - t_train:.0f} s]", flush=True)
    train_time = time.time() - t_train

    val_offsets = fixed_offsets(val_t, 10 ** 9)
    ce, kl, agree = evaluate(val_t, val_offsets)
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    size = tt.export_legacy(model, args.out)

    # the export, read back by the reference reader (tests/py/llama2c_ref.py)
    sys.path.insert(0, os.path.join(REPO, "tests", "py"))
    import llama2c_ref
    sample = val_ids[:200]
    with torch.no_grad():
        model.eval()
        ours = model(torch.tensor([sample]))[0]
    theirs = llama2c_ref.logits_for_tokens(args.out, sample)
    max_diff = (ours - theirs).abs().max().item()
    if max_diff > 1e-4:
        sys.exit(f"export check FAILED: reader vs trained model max diff {max_diff}")

    print(f"final val: CE {ce:.4f} nats/char, KL(teacher || draft) {kl:.4f} "
          f"nats, greedy agreement {agree:.4f} ({len(val_offsets)} windows of {T})")
    print(f"parameters {tt.n_params(model)}; training {train_time:.0f} s, total "
          f"{time.time() - t_start:.0f} s on {args.threads} threads")
    print(f"wrote {args.out} ({size} bytes); export check max |diff| {max_diff:.3g}")


if __name__ == "__main__":
    main()
