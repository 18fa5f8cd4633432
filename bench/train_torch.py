#!/usr/bin/python3
"""PyTorch's training speed on the CPU, for bench/train.mjs: the same model,
batch and context as the engine's trainer (models/tiny_llama.py's Llama:
llama2.c's model.py), the same text read the same way (each line a
document: BOS, the dummy-prefix space, one piece per character of
models/transformer_tokenizer.bin's vocabulary), the same step (forward,
mean cross-entropy, backward, clip_grad_norm_ 1.0, AdamW with weight decay
on the matrices), on `--threads` threads (1: torch.set_num_threads(1)).

  /usr/bin/python3 bench/train_torch.py --text FILE --dim 64 --hidden 192 \\
      --layers 1 --heads 4 --kv-heads 2 --context 128 --batch 16 \\
      --warmup 1 --steps 5

prints one JSON line: {"seconds", "cpu_seconds", "steps", "tokens",
"tokens_per_s", "tokens_per_cpu_s", "blas", "torch", "threads"}, the steps
timed by time.perf_counter() and time.process_time().
"""

import argparse
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(REPO, "models"))

import tiny_llama as tl  # noqa: E402


def stream(path):
    """The text's training tokens (held-out lines left in: speed only)."""
    pieces = ["<unk>", "<s>", "</s>"] + sorted("\n" + "".join(chr(c) for c in range(32, 127)))
    ids = {p: i for i, p in enumerate(pieces)}
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f.read().replace("\r\n", "\n").replace("\r", "\n").split("\n"):
            if line.strip(" \t"):
                out += [1, ids[" "]] + [ids.get(c, 0) for c in line]
    return out, len(pieces)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--text", required=True)
    for name, default in (("dim", 64), ("hidden", 192), ("layers", 1), ("heads", 4),
                          ("kv-heads", 2), ("context", 128), ("batch", 16),
                          ("warmup", 1), ("steps", 5), ("threads", 1)):
        ap.add_argument(f"--{name}", type=int, default=default)
    args = ap.parse_args()
    torch = tl.import_torch(args.threads, 1)
    ids, vocab = stream(args.text)
    data = torch.tensor(ids, dtype=torch.long)
    cfg = dict(dim=args.dim, hidden_dim=args.hidden, n_layers=args.layers,
               n_heads=args.heads, n_kv_heads=args.kv_heads, vocab_size=vocab,
               seq_len=args.context)
    model = tl.build_model_classes(torch)(cfg)
    decay = [p for p in model.parameters() if p.dim() >= 2]
    no_decay = [p for p in model.parameters() if p.dim() < 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.1},
                             {"params": no_decay, "weight_decay": 0.0}],
                            lr=3e-3, betas=(0.9, 0.95))
    T, B = args.context, args.batch
    gen = torch.Generator().manual_seed(1)
    batch, _ = tl.windows_of(torch, T)

    def step():
        offsets = torch.randint(0, len(data) - T - 1, (B,), generator=gen)
        x, y = batch(data, offsets)
        logits = model(x)
        loss = torch.nn.functional.cross_entropy(logits.reshape(-1, vocab), y.reshape(-1))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()

    for _ in range(args.warmup):
        step()
    t0, c0 = time.perf_counter(), time.process_time()
    for _ in range(args.steps):
        step()
    seconds = time.perf_counter() - t0
    cpu = time.process_time() - c0
    tokens = args.steps * B * T
    print(json.dumps({"seconds": round(seconds, 6), "cpu_seconds": round(cpu, 6),
                      "steps": args.steps, "tokens": tokens,
                      "tokens_per_s": round(tokens / seconds, 1),
                      "tokens_per_cpu_s": round(tokens / cpu, 1),
                      "blas": ", ".join("/".join(lib.split("/")[-2:])
                                        for lib in tl.blas_library(torch).split(", ")),
                      "torch": torch.__version__, "threads": torch.get_num_threads()}))


if __name__ == "__main__":
    main()
