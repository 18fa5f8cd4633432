#!/usr/bin/python3
"""The engine's trainer (`sampler train`) against PyTorch.

  /usr/bin/python3 tests/py/test_train_torch.py [SAMPLER]

From the same initial weights (the engine's, written with --steps 0) and
the same batch (the windows the engine draws, drawn here again: PCG32 and
its bounded draw, re-implemented below), PyTorch in float64 computes the
mean cross-entropy's gradients with models/tiny_llama.py's Llama (the
architecture of llama2.c's model.py, the classifier untied where the
engine's is): every weight's gradient must be within 1e-4 of the engine's
(the largest difference in a tensor, relative to its largest gradient).
Then 50 steps of torch.optim.AdamW with the engine's schedule and clipping
(torch.nn.utils.clip_grad_norm_): every step's loss within 1e-4 of the
engine's; and the model those steps made, read by tests/py/llama2c_ref.py
(run.c's forward pass re-implemented), gives the engine's logits within
1e-4.  The text: the names list (/usr/share/dict/propernames(.gz),
package miscfiles) when present, else models/MODELS.md.

Exit status: 0 pass, 1 mismatch or failure, 77 skipped (no torch, no CLI).
"""

import math
import os
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "models"))
TOL = 1e-4
MASK64 = (1 << 64) - 1


class PCG32:
    """The engine's PCG32 (c/engine/sampler/prng.c) and the trainer's
    bounded draw (c/engine/train/step.c)."""

    def __init__(self, seed):
        self.state = 0
        self.next()
        self.state = (self.state + seed) & MASK64
        self.next()

    def next(self):
        old = self.state
        self.state = (old * 6364136223846793005 + ((54 << 1) | 1)) & MASK64
        xorshifted = (((old >> 18) ^ old) >> 27) & 0xFFFFFFFF
        rot = old >> 59
        return ((xorshifted >> rot) | (xorshifted << ((-rot) & 31))) & 0xFFFFFFFF

    def below(self, n):
        threshold = ((1 << 32) - n) % n
        while True:
            x = self.next()
            if x >= threshold:
                return x % n


def read_pieces(path):
    """A llama2.c tokenizer.bin's pieces, as text."""
    with open(path, "rb") as f:
        data = f.read()
    at, pieces = 4, []
    while at < len(data):
        _, n = struct.unpack_from("<fi", data, at)
        pieces.append(data[at + 8:at + 8 + n].decode("utf-8"))
        at += 8 + n
    return pieces


def streams(text, pieces, holdout):
    """The engine's two streams (c/engine/train/data.c): each non-blank line
    a document, BOS, the dummy-prefix space, one piece per character; every
    holdout-th document held out."""
    ids = {p: i for i, p in enumerate(pieces)}
    train, held = [], []
    docs = 0
    for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        if not line.strip(" \t"):
            continue
        side = held if holdout and docs % holdout == holdout - 1 else train
        side += [1, ids[" "]] + [ids[c] for c in line]
        docs += 1
    return train, held


def read_checkpoint(torch, path):
    """A llama2.c checkpoint's header and its weights in order (the
    classifier last when it is its own)."""
    import numpy as np
    with open(path, "rb") as f:
        data = f.read()
    dim, hidden, layers, heads, kv_heads, vocab, seq = struct.unpack("<7i", data[:28])
    floats = np.frombuffer(data, dtype="<f4", offset=28)
    cfg = dict(dim=dim, hidden_dim=hidden, n_layers=layers, n_heads=heads,
               n_kv_heads=kv_heads, vocab_size=abs(vocab), seq_len=seq)
    return cfg, vocab > 0, torch.from_numpy(floats.copy()).double()


def build_model(torch, tl, cfg, tied, flat):
    """tiny_llama's Transformer in float64 with the checkpoint's weights;
    the classifier untied when the checkpoint's is its own."""
    model = tl.build_model_classes(torch)(cfg).double()
    if not tied:
        model.output.weight = torch.nn.Parameter(torch.zeros(cfg["vocab_size"], cfg["dim"],
                                                             dtype=torch.float64))
    at = 0
    for w in tl.legacy_weights(model):
        n = w.numel()
        w.data.copy_(flat[at:at + n].view_as(w))
        at += n
    hs = cfg["dim"] // cfg["n_heads"]
    if not tied:
        at += cfg["seq_len"] * hs        # the RoPE tables
        w = model.output.weight
        w.data.copy_(flat[at:at + w.numel()].view_as(w))
    return model


def params_in_order(tl, model, tied):
    """The parameters in the engine's order of weights (and gradients)."""
    out = list(tl.legacy_weights(model))
    if not tied:
        out.append(model.output.weight)
    return out


def batch(torch, train, offsets, T):
    x = torch.tensor([train[o:o + T] for o in offsets])
    y = torch.tensor([train[o + 1:o + T + 1] for o in offsets])
    return x, y


def run(sampler, *args):
    proc = subprocess.run([sampler, "train", *args], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, timeout=600)
    if proc.returncode != 0:
        raise RuntimeError(f"sampler train {' '.join(args)} exited {proc.returncode}: "
                           f"{proc.stderr.decode(errors='replace')[-400:]}")
    import json
    return [json.loads(line) for line in proc.stdout.decode().splitlines()]


def shape_args(shape):
    out = []
    for k, v in shape.items():
        out += [f"--{k}", str(v)]
    return out


def check_gradients(torch, tl, sampler, text_path, text, tmp, shape, seed, label):
    args = ["--text", text_path, "--seed", str(seed), *shape_args(shape)]
    run(sampler, *args, "--steps", "0", "-o", os.path.join(tmp, "init"))
    run(sampler, *args, "--steps", "1", "--grads", os.path.join(tmp, "g.bin"),
        "-o", os.path.join(tmp, "one"))
    cfg, tied, flat = read_checkpoint(torch, os.path.join(tmp, "init.bin"))
    pieces = read_pieces(os.path.join(tmp, "init.tokenizer.bin"))
    train, _ = streams(text, pieces, shape.get("holdout", 10))
    T, B = cfg["seq_len"], shape["batch"]
    rng = PCG32(seed ^ 0x9E3779B97F4A7C15)
    offsets = [rng.below(len(train) - T) for _ in range(B)]
    model = build_model(torch, tl, cfg, tied, flat)
    x, y = batch(torch, train, offsets, T)
    logits = model(x)
    loss = torch.nn.functional.cross_entropy(logits.reshape(-1, cfg["vocab_size"]), y.reshape(-1))
    loss.backward()
    import numpy as np
    ours = torch.from_numpy(np.fromfile(os.path.join(tmp, "g.bin"), dtype="<f4").copy()).double()
    at, worst, ok = 0, 0.0, True
    names = ["embedding"] + [f"{w}" for w in ("rms_att", "wq", "wk", "wv", "wo", "rms_ffn",
                                                "w1", "w2", "w3")] + ["rms_final", "classifier"]
    groups = [[p] for p in params_in_order(tl, model, tied)]
    # legacy_weights lists each layer's tensor of a kind together: group them
    L = cfg["n_layers"]
    flat_groups, i = [groups[0]], 1
    for _ in range(9):
        flat_groups.append([g[0] for g in groups[i:i + L]])
        i += L
    flat_groups += groups[i:]
    for name, group in zip(names, flat_groups):
        ref = torch.cat([p.grad.reshape(-1) for p in group])
        got = ours[at:at + ref.numel()]
        at += ref.numel()
        rel = ((got - ref).abs().max() / ref.abs().max()).item()
        worst = max(worst, rel)
        if not rel <= TOL:
            ok = False
            print(f"FAIL [{label}]: {name}: largest difference {rel:.3g} of the largest gradient")
    if at != ours.numel():
        print(f"FAIL [{label}]: {ours.numel()} gradients from the engine, {at} weights here")
        ok = False
    print(f"{label}: loss {loss.item():.6f}; every tensor's gradient within {worst:.2g} "
          f"of PyTorch's (float64; tolerance {TOL:g}) -> {'ok' if ok else 'MISMATCH'}")
    return ok


def check_steps(torch, tl, sampler, text_path, text, tmp, shape, seed, steps, label):
    args = ["--text", text_path, "--seed", str(seed), *shape_args(shape)]
    run(sampler, *args, "--steps", "0", "-o", os.path.join(tmp, "init"))
    lines = run(sampler, *args, "--steps", str(steps), "--log-every", "1",
                "-o", os.path.join(tmp, "trained"))
    ours = [l["loss"] for l in lines if "loss" in l]
    cfg, tied, flat = read_checkpoint(torch, os.path.join(tmp, "init.bin"))
    pieces = read_pieces(os.path.join(tmp, "init.tokenizer.bin"))
    train, _ = streams(text, pieces, shape.get("holdout", 10))
    T, B = cfg["seq_len"], shape["batch"]
    model = build_model(torch, tl, cfg, tied, flat)
    lr, warmup, final = shape["lr"], shape["warmup"], 0.1
    decay = [p for p in model.parameters() if p.dim() >= 2]
    no_decay = [p for p in model.parameters() if p.dim() < 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.1},
                             {"params": no_decay, "weight_decay": 0.0}],
                            lr=lr, betas=(0.9, 0.95), eps=1e-8)

    def lr_at(step):
        if step < warmup:
            return lr * (step + 1) / warmup
        frac = min(1.0, (step - warmup) / max(1, steps - warmup))
        return lr * final + 0.5 * (lr - lr * final) * (1 + math.cos(math.pi * frac))

    rng = PCG32(seed ^ 0x9E3779B97F4A7C15)
    theirs = []
    for step in range(steps):
        offsets = [rng.below(len(train) - T) for _ in range(B)]
        for g in opt.param_groups:
            g["lr"] = lr_at(step)
        x, y = batch(torch, train, offsets, T)
        logits = model(x)
        loss = torch.nn.functional.cross_entropy(logits.reshape(-1, cfg["vocab_size"]), y.reshape(-1))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        theirs.append(loss.item())
    worst = max(abs(a - b) for a, b in zip(ours, theirs))
    ok = len(ours) == steps and worst <= TOL
    print(f"{label}: {steps} AdamW steps, losses {ours[0]:.5f} .. {ours[-1]:.5f}; largest "
          f"difference from PyTorch's {worst:.2g} (tolerance {TOL:g}) -> {'ok' if ok else 'MISMATCH'}")
    if not ok:
        for i, (a, b) in enumerate(zip(ours, theirs)):
            if abs(a - b) > TOL:
                print(f"  step {i + 1}: engine {a:.7f}, PyTorch {b:.7f}")
                break
    return ok


def check_reference(sampler, tmp, label):
    """The model check_steps trained, read by tests/py/llama2c_ref.py (a
    plain re-implementation of llama2.c's run.c forward pass): its logits
    are the engine's (`sampler logits`) within 1e-4."""
    import json
    sys.path.insert(0, HERE)
    import llama2c_ref
    path = os.path.join(tmp, "trained.bin")
    ckpt = llama2c_ref.Llama2cCheckpoint(path)
    vocab = ckpt.config["vocab_size"]
    tokens = [1, 4] + [(7 * i + 5) % (vocab - 5) + 5 for i in range(22)]
    proc = subprocess.run([sampler, "logits", "--model", path, "--tokens",
                           ",".join(map(str, tokens))], stdout=subprocess.PIPE, check=True)
    import torch
    ours = torch.tensor(json.loads(proc.stdout)["logits"], dtype=torch.float64)
    ref = llama2c_ref.logits_for_tokens(ckpt, tokens).double()
    worst = (ours - ref).abs().max().item()
    ok = worst <= TOL
    print(f"{label}: the trained checkpoint read by llama2c_ref.py (run.c's forward pass): "
          f"{len(tokens)} positions, max |logit difference| {worst:.2g} (tolerance {TOL:g}) "
          f"-> {'ok' if ok else 'MISMATCH'}")
    return ok


def main(argv):
    sampler = argv[0] if argv else os.environ.get("SAMPLER") or os.path.join(REPO, "build", "sampler")
    try:
        import torch
    except ImportError:
        print("skipped: torch is not importable (run with /usr/bin/python3; "
              "apt-get install python3-torch)")
        return 77
    if not (os.path.isfile(sampler) and os.access(sampler, os.X_OK)):
        print(f"skipped: engine CLI not found at {sampler}")
        return 77
    import tiny_llama as tl
    torch.set_num_threads(1)
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        text_path = os.path.join(tmp, "text.txt")
        names = "/usr/share/dict/propernames"
        if os.path.exists(names + ".gz"):
            import gzip
            with gzip.open(names + ".gz", "rt", encoding="utf-8") as f:
                text = f.read()
        else:
            with open(names if os.path.exists(names)
                      else os.path.join(REPO, "models", "MODELS.md"), encoding="utf-8") as f:
                text = f.read()
        with open(text_path, "w", encoding="utf-8", newline="") as f:
            f.write(text)
        small = dict(dim=32, hidden=48, layers=2, heads=4, **{"kv-heads": 2}, context=24,
                     batch=4, lr=3e-3, warmup=5)
        results.append(check_gradients(torch, tl, sampler, text_path, text, tmp,
                                        {**small, "tied": 0}, 7, "gradients (untied, GQA)"))
        results.append(check_gradients(torch, tl, sampler, text_path, text, tmp,
                                        {**small, "tied": 1, "kv-heads": 4, "layers": 1}, 8,
                                        "gradients (tied, 1 layer, MHA)"))
        results.append(check_steps(torch, tl, sampler, text_path, text, tmp,
                                   {**small, "tied": 1}, 9, 50, "AdamW"))
        results.append(check_reference(sampler, tmp, "reference forward pass"))
    passed = sum(results)
    print(f"{passed} passed, {len(results) - passed} failed")
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
