#!/usr/bin/python3
"""A plain reference forward pass of a Llama-style decoder in numpy, in
float64, that records what the engine's look inside reports: every layer's
and head's attention weights (softmax of q.k / sqrt(head_size) over the
positions 0..pos) and the logit lens (after each layer, the residual stream
through the final RMSNorm and the classifier, softmaxed).

It covers what the engine reads (model/transformer.c): llama2.c
checkpoints (llama2c_ref.py reads them) and GGUF files of the llama and
qwen2 architectures (gguf_ref.py): grouped-query attention, RoPE on the
pairs (2i, 2i + 1) or (i, i + rope_dims / 2), Q/K/V biases, any RMS
epsilon, RoPE factors.  Written from the architecture, not from the
engine's code: only the RoPE angles are computed in float32 as llama2.c's
run.c computes them (freq = 1 / base^(2i / d), angle = pos * freq), since
the model's positions are defined by those numbers; everything else is
float64.

config: dim, n_layers, n_heads, n_kv_heads, eps, rope_base, rope_dims,
        rope_neox, rope_factors (None or [rope_dims / 2])
weights: embed (V, dim), norm (dim), output (V, dim), layers[l]: attn_norm,
         wq (dim, dim), wk, wv (kv_dim, dim), wo, ffn_norm, w1, w3
         (hidden, dim), w2 (dim, hidden), bq, bk, bv (optional)
"""

import numpy as np


def rope_angles(cfg, pos):
    """cos and sin of the rotation of each pair at pos (float32 angles)."""
    d = cfg["rope_dims"]
    i = np.arange(d // 2)
    e = (2 * i).astype(np.float32) / np.float32(d)
    freq = np.float32(1.0) / np.power(float(cfg["rope_base"]), e.astype(np.float64)).astype(np.float32)
    if cfg.get("rope_factors") is not None:
        freq = (freq / np.asarray(cfg["rope_factors"], dtype=np.float32)).astype(np.float32)
    val = (np.float32(pos) * freq).astype(np.float32).astype(np.float64)
    return np.cos(val), np.sin(val)


def rope(vec, n_heads, cfg, cos, sin):
    hs = cfg["dim"] // cfg["n_heads"]
    half = cfg["rope_dims"] // 2
    v = vec.reshape(n_heads, hs).copy()
    if cfg["rope_neox"]:
        a, b = v[:, :half].copy(), v[:, half:2 * half].copy()
        v[:, :half] = a * cos - b * sin
        v[:, half:2 * half] = a * sin + b * cos
    else:
        a, b = v[:, 0:2 * half:2].copy(), v[:, 1:2 * half:2].copy()
        v[:, 0:2 * half:2] = a * cos - b * sin
        v[:, 1:2 * half:2] = a * sin + b * cos
    return v.reshape(-1)


def rmsnorm(x, w, eps):
    return w * (x / np.sqrt(np.mean(x * x) + eps))


def softmax(x):
    e = np.exp(x - np.max(x))
    return e / e.sum()


class Reference:
    """Feeds tokens one position at a time through a key/value cache."""

    def __init__(self, cfg, weights):
        self.cfg = cfg
        f64 = lambda a: np.asarray(a, dtype=np.float64)  # noqa: E731
        self.w = {k: f64(v) for k, v in weights.items() if k != "layers"}
        self.layers = [{k: f64(v) for k, v in L.items()} for L in weights["layers"]]
        self.keys = [[] for _ in self.layers]
        self.values = [[] for _ in self.layers]

    def forward(self, token, pos):
        """Returns (attention [L][H][pos + 1], residuals [L][dim])."""
        cfg = self.cfg
        H, KV = cfg["n_heads"], cfg["n_kv_heads"]
        hs = cfg["dim"] // H
        cos, sin = rope_angles(cfg, pos)
        x = self.w["embed"][token].copy()
        attention, residuals = [], []
        for l, L in enumerate(self.layers):
            xb = rmsnorm(x, L["attn_norm"], cfg["eps"])
            q, k, v = L["wq"] @ xb, L["wk"] @ xb, L["wv"] @ xb
            if "bq" in L:
                q, k, v = q + L["bq"], k + L["bk"], v + L["bv"]
            q, k = rope(q, H, cfg, cos, sin), rope(k, KV, cfg, cos, sin)
            self.keys[l].append(k.reshape(KV, hs))
            self.values[l].append(v.reshape(KV, hs))
            K, V = np.stack(self.keys[l]), np.stack(self.values[l])
            heads, weights = [], []
            for h in range(H):
                g = h // (H // KV)
                att = softmax(K[:, g, :] @ q[h * hs:(h + 1) * hs] / np.sqrt(hs))
                weights.append(att)
                heads.append(att @ V[:, g, :])
            x = x + L["wo"] @ np.concatenate(heads)
            xb = rmsnorm(x, L["ffn_norm"], cfg["eps"])
            a, b = L["w1"] @ xb, L["w3"] @ xb
            x = x + L["w2"] @ (a / (1 + np.exp(-a)) * b)
            attention.append(weights)
            residuals.append(x.copy())
        return attention, residuals

    def lens(self, residual):
        """The distribution after a layer: final norm, classifier, softmax."""
        return softmax(self.w["output"] @ rmsnorm(residual, self.w["norm"], self.cfg["eps"]))


def from_llama2c(ckpt):
    """llama2c_ref.Llama2cCheckpoint as (config, weights)."""
    c, w = ckpt.config, ckpt.weights
    n = lambda t: t.numpy()  # noqa: E731
    cfg = {"dim": c["dim"], "n_layers": c["n_layers"], "n_heads": c["n_heads"],
           "n_kv_heads": c["n_kv_heads"], "eps": float(np.float32(1e-5)),
           "rope_base": 10000.0, "rope_dims": c["dim"] // c["n_heads"],
           "rope_neox": False, "rope_factors": None}
    weights = {"embed": n(w["token_embedding_table"]), "norm": n(w["rms_final_weight"]),
               "output": n(w["wcls"]), "layers": []}
    for l in range(c["n_layers"]):
        weights["layers"].append({
            "attn_norm": n(w["rms_att_weight"][l]), "wq": n(w["wq"][l]), "wk": n(w["wk"][l]),
            "wv": n(w["wv"][l]), "wo": n(w["wo"][l]), "ffn_norm": n(w["rms_ffn_weight"][l]),
            "w1": n(w["w1"][l]), "w2": n(w["w2"][l]), "w3": n(w["w3"][l])})
    return cfg, weights
