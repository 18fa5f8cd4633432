#!/usr/bin/python3
"""Parity: the engine's look inside (`sampler inspect`) against a plain
reference forward pass (llama_ref.py, numpy, float64).

  /usr/bin/python3 tests/py/test_inspect_parity.py [SAMPLER]

For each model, a few token sequences and positions (the last, the middle
and the first), it runs

  SAMPLER inspect --model MODEL --tokens IDS --position P --top 5

and requires every attention weight within 1e-5 of the reference's and
every lens probability the engine reports within 1e-4 of the reference's
probability of that token, its top 5 being the reference's top 5 (up to
ties within the tolerance).  The models: the shipped transformer (grouped
heads 4 / 2), llama2.c's stories260K (8 / 4; ../shared/fixtures/llama2c, or
$LLAMA2C_FIXTURES), and GGUF files the tests write (tests/helpers/
gguf-files.js, through node): tiny-qwen2-f32 (qwen2: Q/K/V biases, the
"neox" RoPE, a 151 669-token vocabulary) and stories260K-f32.
A missing fixture skips its models with a message (under CI=true it fails).
The step record's fields are the CLI's, bit for bit (tests/js/inspect.test.js).

Exit status: 0 pass, 1 mismatch or failure, 77 skipped (no numpy / torch,
or no CLI binary).
"""

import json
import os
import random
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
ATT_TOL = 1e-5
LENS_TOL = 1e-4
TOP = 5


def in_ci():
    return os.environ.get("CI", "").lower() in ("1", "true", "yes")


def inspect_cli(sampler, model, tokens, position):
    cmd = [sampler, "inspect", "--model", model, "--tokens",
           ",".join(str(t) for t in tokens), "--position", str(position),
           "--top", str(TOP)]
    proc = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, timeout=300)
    if proc.returncode != 0:
        raise RuntimeError(f"`{' '.join(cmd[:4])} ...` exited {proc.returncode}: "
                           f"{proc.stderr.decode(errors='replace')[-400:]}")
    return json.loads(proc.stdout)


def gguf_file(name):
    """The path of a test GGUF (written by tests/helpers/gguf-files.js)."""
    script = ("import(process.argv[1]).then((m) => { const why = m.ggufMissing(process.argv[2]);"
              " console.log(why ? 'MISSING ' + why : m.ggufPath(process.argv[2])); })")
    helper = "file://" + os.path.join(REPO, "tests", "helpers", "gguf-files.js")
    proc = subprocess.run(["node", "-e", script, helper, name], capture_output=True,
                          cwd=REPO, timeout=600)
    out = proc.stdout.decode().strip()
    if proc.returncode != 0 or not out:
        raise RuntimeError(f"writing {name}.gguf: {proc.stderr.decode(errors='replace')[-400:]}")
    return None if out.startswith("MISSING") else out


def check(sampler, label, model, cfg, weights, sequences):
    """Returns (ok, worst attention difference, worst lens difference)."""
    import numpy as np
    import llama_ref
    worst_att = worst_lens = 0.0
    ok = True
    checked = 0
    for seq in sequences:
        ref = llama_ref.Reference(cfg, weights)
        per_pos = [ref.forward(t, p) for p, t in enumerate(seq)]
        for pos in sorted({len(seq) - 1, len(seq) // 2, 0}):
            got = inspect_cli(sampler, model, seq, pos)
            att, resid = per_pos[pos]
            g = np.asarray(got["attention"], dtype=np.float64)
            r = np.asarray(att, dtype=np.float64)
            if g.shape != r.shape:
                print(f"FAIL [{label}]: attention of shape {g.shape}, the reference's {r.shape}")
                return False, None, None
            d = float(np.abs(g - r).max())
            worst_att = max(worst_att, d)
            if d > ATT_TOL:
                ok = False
                print(f"FAIL [{label}]: position {pos}: attention differs by {d:.3g}")
            for l, layer in enumerate(got["lens"]):
                probs = ref.lens(resid[l])
                ids = [e["id"] for e in layer]
                ps = np.asarray([e["p"] for e in layer])
                dl = float(np.abs(ps - probs[ids]).max())
                # its top 5 is the reference's, up to ties within the tolerance
                kth = np.sort(probs)[-TOP]
                if dl > LENS_TOL or min(probs[ids]) < kth - LENS_TOL:
                    ok = False
                    print(f"FAIL [{label}]: position {pos}, layer {l}: lens differs by "
                          f"{dl:.3g} (or its tokens are not the top {TOP})")
                worst_lens = max(worst_lens, dl)
            checked += 1
    print(f"{label}: {checked} positions in {len(sequences)} sequences "
          f"({cfg['n_layers']} layers, {cfg['n_heads']}/{cfg['n_kv_heads']} heads): "
          f"attention max |diff| {worst_att:.3g} (tolerance {ATT_TOL:g}), lens max |diff| "
          f"{worst_lens:.3g} (tolerance {LENS_TOL:g}) -> {'ok' if ok else 'MISMATCH'}")
    return ok, worst_att, worst_lens


def main(argv):
    sampler = argv[0] if argv else os.environ.get("SAMPLER") or os.path.join(REPO, "build", "sampler")
    try:
        import numpy  # noqa: F401
        import torch  # noqa: F401  (llama2c_ref reads checkpoints with it)
    except ImportError:
        print("skipped: numpy and torch are not importable (run with /usr/bin/python3; "
              "apt-get install python3-torch)")
        return 77
    if not (os.path.isfile(sampler) and os.access(sampler, os.X_OK)):
        print(f"skipped: engine CLI not found at {sampler}")
        return 77
    sys.path.insert(0, HERE)
    import llama2c_ref
    import llama_ref
    import gguf_ref
    rng = random.Random(34)
    results = []

    # the shipped transformer: its own texts
    model = os.path.join(REPO, "models", "transformer.bin")
    ck = llama2c_ref.Llama2cCheckpoint(model)
    _, pieces = llama2c_ref.read_tokenizer(os.path.join(REPO, "models", "transformer_tokenizer.bin"),
                                           ck.config["vocab_size"])
    texts = ["And God said, Let there be light: and there was light.",
             "In the beginning God created the heaven and the earth. And the earth was "
             "without form, and void; and darkness was upon the face of the deep."]
    seqs = [llama2c_ref.encode(pieces, t) for t in texts]
    cfg, w = llama_ref.from_llama2c(ck)
    results.append(check(sampler, "transformer.bin", model, cfg, w, seqs)[0])

    # llama2.c's stories260K, as its checkpoint and as a GGUF file
    fx = os.environ.get("LLAMA2C_FIXTURES", os.path.join(REPO, "..", "shared", "fixtures", "llama2c"))
    stories = os.path.join(fx, "stories260K.bin")
    if os.path.exists(stories):
        with open(os.path.join(fx, "stories260K.golden.json")) as f:
            greedy = json.load(f)["greedy_next_tokens"]
        seqs = [[1] + greedy[:119], [1] + [rng.randrange(3, 512) for _ in range(30)]]
        cfg, w = llama_ref.from_llama2c(llama2c_ref.Llama2cCheckpoint(stories))
        results.append(check(sampler, "stories260K.bin", stories, cfg, w, seqs)[0])
        path = gguf_file("stories260K-f32")
        cfg, w = gguf_ref.llama_model(path)
        results.append(check(sampler, "stories260K-f32.gguf", path, cfg, w, seqs[:1])[0])
    elif in_ci():
        print(f"stories260K: FAILED: no fixture at {fx}, and CI is set")
        results.append(False)
    else:
        print(f"stories260K: skipped (no fixture at {fx})")

    # qwen2, a large vocabulary
    path = gguf_file("tiny-qwen2-f32")
    cfg, w = gguf_ref.llama_model(path)
    seqs = [[rng.randrange(0, 20000) for _ in range(40)]]
    results.append(check(sampler, "tiny-qwen2-f32.gguf", path, cfg, w, seqs)[0])

    passed = sum(results)
    print(f"{passed} passed, {len(results) - passed} failed")
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
