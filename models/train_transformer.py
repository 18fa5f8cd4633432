#!/usr/bin/python3
"""Train the sampler playground's default tiny transformer.

A character-level Llama model (the architecture of llama2.c's model.py: RMSNorm,
rotary embeddings, grouped-query attention, SwiGLU, classifier tied to the
embedding) trained on the King James Bible as shipped by Debian's
bible-kjv-text package (printed with the `bible` program from bible-kjv).

The corpus and its vocabulary are kjv.py's, the model, its training pieces
and the export tiny_llama.py's (shared with train_draft.py).

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
import os
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, HERE)

import kjv  # noqa: E402  (the corpus, its vocabulary and streams)
import tiny_llama as tl  # noqa: E402  (the model, its training, the export)


def main():
    ap = argparse.ArgumentParser(description="Train the tiny character-level "
                                 "Llama model and export it for llama2.c.")
    tl.add_model_args(ap, dim=128, hidden_dim=384, n_layers=4, n_heads=4,
                      n_kv_heads=2, steps=2000, lr=3e-3, eval_every=200,
                      threads=2, quick="60 steps, outputs go to the temp dir",
                      out="models/transformer.bin")
    ap.add_argument("--seq-len", type=int, default=256)
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

    chapters = kjv.read_kjv()      # exits with an apt-get hint if missing

    torch = tl.import_torch(args.threads, args.seed)
    blas = tl.blas_library(torch)
    print(f"torch {torch.__version__}, {args.threads} threads, BLAS: {blas}")
    if "openblas" not in blas and "mkl" not in blas:
        print("note: slow reference BLAS; apt-get install libopenblas0-openmp "
              "makes training ~20x faster", file=sys.stderr)
    t_start = time.time()

    # -- data: one document per verse; split by chapter (every 20th -> val)
    pieces, stoi = kjv.build_vocab()
    train_ids, val_ids, n_docs, n_chars = kjv.split_streams(chapters, stoi)
    used = sorted({c for ch in chapters for v in ch for c in kjv.normalize(v)})
    print(f"corpus: KJV Bible, {len(chapters)} chapters, {sum(n_docs)} verses "
          f"(documents), {n_chars} characters, {len(used)} distinct characters")
    print(f"split by chapter: train {n_docs[0]} docs / {len(train_ids)} tokens, "
          f"val {n_docs[1]} docs / {len(val_ids)} tokens")
    train_t = torch.tensor(train_ids, dtype=torch.long)
    val_t = torch.tensor(val_ids, dtype=torch.long)

    cfg = dict(dim=args.dim, hidden_dim=args.hidden_dim, n_layers=args.n_layers,
               n_heads=args.n_heads, n_kv_heads=args.n_kv_heads,
               vocab_size=len(pieces), seq_len=args.seq_len)
    Transformer = tl.build_model_classes(torch)
    model = Transformer(cfg)
    print("config:", cfg)
    print(f"parameters: {tl.n_params(model)} (classifier tied to the embedding)")

    opt, lr_at = tl.optimizer(torch, model, args)
    T = args.seq_len
    gen = torch.Generator().manual_seed(args.seed)
    batch, fixed_offsets = tl.windows_of(torch, T)

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
        running = tl.optimize(torch, opt, model, loss, running)
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
    size = tl.export_legacy(model, args.out)
    kjv.write_tokenizer(args.tokenizer_out, pieces)

    # -- check the export: the reference reader (tests/py/llama2c_ref.py, a
    # re-implementation of run.c) must give the trained model's logits
    ref_dir = os.path.join(REPO, "tests", "py")
    max_diff = None
    if os.path.exists(os.path.join(ref_dir, "llama2c_ref.py")):
        max_diff = tl.export_check(torch, model, args.out, val_ids[:200])
        import llama2c_ref
        ck = llama2c_ref.Llama2cCheckpoint(args.out)
        assert ck.n_params() == tl.n_params(model)
        _, tok_pieces = llama2c_ref.read_tokenizer(args.tokenizer_out, len(pieces))
        assert [p.decode() for p, _ in tok_pieces] == pieces

    print(f"final train loss {final_train:.4f} nats/char "
          f"({len(train_offsets)} windows of {T})")
    print(f"final val   loss {final_val:.4f} nats/char "
          f"({len(val_offsets)} windows of {T}, all of val)")
    print(f"parameters {tl.n_params(model)}; training {train_time:.0f} s, "
          f"total {time.time() - t_start:.0f} s on {args.threads} threads")
    print(f"wrote {args.out} ({size} bytes) and {args.tokenizer_out} "
          f"({os.path.getsize(args.tokenizer_out)} bytes, {len(pieces)} pieces)")
    if max_diff is not None:
        print(f"export check: llama2c_ref.py logits vs trained model, "
              f"max |diff| {max_diff:.3g}")


if __name__ == "__main__":
    main()
