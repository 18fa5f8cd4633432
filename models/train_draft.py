#!/usr/bin/python3
"""Train the draft model for speculative decoding with the default transformer.

A much smaller character-level Llama (1 layer, dim 64) on the same corpus
(the King James Bible, split by chapter as kjv.py splits it) with the
same tokenizer (models/transformer_tokenizer.bin), distilled from the
shipped transformer: at every position of a training window the draft learns
the transformer's whole next-token distribution (KL(p_target || q_draft))
rather than only the character that came next.  Speculative sampling accepts
a drafted token with probability min(1, p/q), so the closer q is to p, the
more tokens are accepted: distilling aims the draft at exactly that.

The training stream is cut once into consecutive windows of 256 tokens and
the teacher's logits at every position of every window are computed once,
before training (float16, ~0.8 GB in memory): the teacher's forward pass
would otherwise cost more than the draft's forward and backward passes.
Each epoch then visits every window once, in an order drawn from the seeded
generator.  --teacher-cache FILE keeps those logits between runs (the
result is the same bytes with or without it).

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
import hashlib
import os
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import kjv  # noqa: E402  (the corpus, its vocabulary and streams)
import tiny_llama as tl  # noqa: E402  (the model, its training, the export)


def teacher_logits(torch, teacher, windows, bs=16):
    """The teacher's logits for every position of every window (float16)."""
    n, T = windows.shape
    out = torch.empty((n, T, teacher.cfg["vocab_size"]), dtype=torch.float16)
    with torch.no_grad():
        for i in range(0, n, bs):
            out[i:i + bs] = teacher(windows[i:i + bs]).to(torch.float16)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    tl.add_model_args(ap, dim=64, hidden_dim=192, n_layers=1, n_heads=4,
                      n_kv_heads=2, steps=6000, lr=5e-3, eval_every=500,
                      threads=1,
                      quick="40 steps on 64 windows, output to the temp dir",
                      out="models/bible_tiny.bin")
    ap.add_argument("--teacher", default=os.path.join(HERE, "transformer.bin"))
    ap.add_argument("--teacher-cache", default=None,
                    help="file to keep the teacher's logits in between runs "
                         "(~0.8 GB; reused when the teacher and windows match)")
    args = ap.parse_args()
    if args.quick:
        args.steps, args.eval_every, args.warmup = 40, 20, 10
        args.out = args.out or os.path.join(tempfile.gettempdir(),
                                            "bible_tiny_quick.bin")
    args.out = args.out or os.path.join(HERE, "bible_tiny.bin")

    chapters = kjv.read_kjv()
    torch = tl.import_torch(args.threads, args.seed)
    print(f"torch {torch.__version__}, {args.threads} threads, "
          f"BLAS: {tl.blas_library(torch)}")
    print("args:", vars(args))
    t_start = time.time()

    pieces, stoi = kjv.build_vocab()
    train_ids, val_ids, _, _ = kjv.split_streams(chapters, stoi)
    train_t = torch.tensor(train_ids, dtype=torch.long)
    val_t = torch.tensor(val_ids, dtype=torch.long)
    print(f"train {len(train_ids)} tokens, val {len(val_ids)} tokens")

    Transformer = tl.build_model_classes(torch)
    teacher = tl.load_legacy(torch, Transformer, args.teacher)
    for p in teacher.parameters():
        p.requires_grad_(False)
    T = teacher.cfg["seq_len"]
    cfg = dict(dim=args.dim, hidden_dim=args.hidden_dim, n_layers=args.n_layers,
               n_heads=args.n_heads, n_kv_heads=args.n_kv_heads,
               vocab_size=len(pieces), seq_len=T)
    assert teacher.cfg["vocab_size"] == len(pieces)
    model = Transformer(cfg)
    print("teacher:", teacher.cfg, f"{tl.n_params(teacher)} parameters")
    print("draft:  ", cfg, f"{tl.n_params(model)} parameters")

    # The training windows: the train stream cut into consecutive windows of
    # T tokens (the last, partial one dropped), and the teacher's logits at
    # every position of each, computed once (float16, ~0.8 GB) instead of at
    # every step: the teacher's forward pass cost more than the draft's
    # forward and backward passes together.
    n_win = (len(train_ids) - 1) // T
    if args.quick:
        n_win = 64
    windows = train_t[:n_win * T].view(n_win, T)
    t0 = time.time()
    with open(args.teacher, "rb") as f:
        key = (hashlib.sha256(f.read()).hexdigest(), n_win, T)
    targets = None
    if args.teacher_cache and os.path.exists(args.teacher_cache):
        saved = torch.load(args.teacher_cache)
        if saved["key"] == key:
            targets = saved["logits"]
            print(f"teacher logits from {args.teacher_cache}")
    if targets is None:
        targets = teacher_logits(torch, teacher, windows)
        if args.teacher_cache:
            torch.save({"key": key, "logits": targets}, args.teacher_cache)
    print(f"teacher logits for {n_win} windows of {T} tokens: "
          f"{time.time() - t0:.0f} s", flush=True)

    opt, lr_at = tl.optimizer(torch, model, args)
    gen = torch.Generator().manual_seed(args.seed)
    F = torch.nn.functional
    batch, fixed_offsets = tl.windows_of(torch, T)

    @torch.no_grad()
    def evaluate(data, offsets, bs=32):
        """Cross-entropy on the data (nats/char), the distillation loss
        (KL from the teacher, nats), how often the draft's argmax is the
        teacher's (greedy agreement), and the expected acceptance of one
        drafted token at T = 1, sum min(p, q)."""
        model.eval()
        ce = kl = agree = overlap = 0.0
        count = 0
        for i in range(0, len(offsets), bs):
            x, y = batch(data, offsets[i:i + bs])
            logq = F.log_softmax(model(x), -1)
            logp = F.log_softmax(teacher(x), -1)
            ce += F.nll_loss(logq.reshape(-1, logq.shape[-1]), y.reshape(-1),
                             reduction="sum").item()
            kl += (logp.exp() * (logp - logq)).sum().item()
            agree += (logq.argmax(-1) == logp.argmax(-1)).sum().item()
            overlap += torch.minimum(logp.exp(), logq.exp()).sum().item()
            count += y.numel()
        model.train()
        return ce / count, kl / count, agree / count, overlap / count

    val_probe = fixed_offsets(val_t, 64)
    t_train = time.time()
    running = None
    order = torch.empty(0, dtype=torch.long)
    epoch = 0
    for step in range(args.steps):
        for g in opt.param_groups:
            g["lr"] = lr_at(step)
        # fixed data order: each epoch visits every window once, in an order
        # drawn from the seeded generator
        if len(order) < args.batch_size:
            order = torch.cat([order, torch.randperm(n_win, generator=gen)])
            epoch += 1
        pick, order = order[:args.batch_size], order[args.batch_size:]
        x = windows[pick]
        logp = F.log_softmax(targets[pick].float(), -1)
        p = logp.exp()
        logq = F.log_softmax(model(x), -1)
        loss = (p * (logp - logq)).sum(-1).mean()   # KL(p || q)
        running = tl.optimize(torch, opt, model, loss, running)
        if (step + 1) % args.eval_every == 0 or step == 0:
            ce, kl, agree, overlap = evaluate(val_t, val_probe)
            print(f"step {step + 1:5d}/{args.steps} ep {epoch}  lr {lr_at(step):.2e}  "
                  f"loss {running:.4f}  val(probe) CE {ce:.4f} KL {kl:.4f} "
                  f"agree {agree:.4f} overlap {overlap:.4f}  "
                  f"[{time.time() - t_train:.0f} s]", flush=True)
    train_time = time.time() - t_train

    val_offsets = fixed_offsets(val_t, 10 ** 9)
    ce, kl, agree, overlap = evaluate(val_t, val_offsets)
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    size = tl.export_legacy(model, args.out)

    # the export, read back by the reference reader (tests/py/llama2c_ref.py)
    max_diff = tl.export_check(torch, model, args.out, val_ids[:200])

    print(f"final val: CE {ce:.4f} nats/char, KL(teacher || draft) {kl:.4f} "
          f"nats, greedy agreement {agree:.4f}, sum min(p, q) {overlap:.4f} "
          f"({len(val_offsets)} windows of {T})")
    print(f"parameters {tl.n_params(model)}; training {train_time:.0f} s, total "
          f"{time.time() - t_start:.0f} s on {args.threads} threads")
    print(f"wrote {args.out} ({size} bytes); export check max |diff| {max_diff:.3g}")


if __name__ == "__main__":
    main()
