#!/usr/bin/python3
"""A minimal GGUF reader for the reference checks: the header, the metadata
and the tensors of the types a reference needs (F32, F16, BF16: each exactly
a float32), as numpy arrays in PyTorch's (out, in) layout.  (A float64
reference of an F16 model would not meet the look inside's tolerances:
llama.cpp's kernels, and the engine's, round a product's inputs to F16,
where a pass in other precision lands on the other side of a rounding now
and then; the checks read F32 files.)

Layout (little-endian; the GGUF specification, version 2 and 3):
  magic "GGUF", version u32, tensor count u64, metadata count u64;
  metadata: key (u64 length + bytes), value type u32, value;
  tensor infos: name, n_dims u32, dims u64 x n_dims (ggml order: the
  fastest-varying first, so a weight of `out` rows of `in` values is
  [in, out]), type u32, offset u64 (from the data's start);
  the data at the next multiple of general.alignment (default 32).
"""

import struct

import numpy as np

# metadata value types
U8, I8, U16, I16, U32, I32, F32, BOOL, STRING, ARRAY, U64, I64, F64 = range(13)
SCALARS = {U8: "<B", I8: "<b", U16: "<H", I16: "<h", U32: "<I", I32: "<i",
           F32: "<f", BOOL: "<?", U64: "<Q", I64: "<q", F64: "<d"}
# tensor types this reader converts (ggml's numbering)
GGML_F32, GGML_F16, GGML_BF16 = 0, 1, 30


class Gguf:
    """metadata: {key: value}; tensor(name) -> float32 array (out, in)."""

    def __init__(self, path):
        with open(path, "rb") as f:
            self.data = f.read()
        self.at = 0
        if self.data[:4] != b"GGUF":
            raise ValueError(f"{path}: not a GGUF file")
        self.at = 4
        version, n_tensors, n_kv = self._unpack("<IQQ")
        if version not in (2, 3):
            raise ValueError(f"{path}: GGUF version {version}")
        self.metadata = {}
        for _ in range(n_kv):
            key = self._string()
            (kind,) = self._unpack("<I")
            self.metadata[key] = self._value(kind)
        self.tensors = {}
        for _ in range(n_tensors):
            name = self._string()
            (n_dims,) = self._unpack("<I")
            dims = self._unpack("<" + "Q" * n_dims)
            kind, offset = self._unpack("<IQ")
            self.tensors[name] = (dims, kind, offset)
        align = self.metadata.get("general.alignment", 32)
        self.base = (self.at + align - 1) // align * align

    def _unpack(self, fmt):
        values = struct.unpack_from(fmt, self.data, self.at)
        self.at += struct.calcsize(fmt)
        return values

    def _string(self):
        (n,) = self._unpack("<Q")
        s = self.data[self.at:self.at + n].decode("utf-8", errors="replace")
        self.at += n
        return s

    def _value(self, kind):
        if kind == STRING:
            return self._string()
        if kind == ARRAY:
            elem, n = self._unpack("<IQ")
            if elem in SCALARS and elem != BOOL:
                fmt = SCALARS[elem]
                size = struct.calcsize(fmt)
                arr = np.frombuffer(self.data, dtype=fmt, count=n, offset=self.at)
                self.at += size * n
                return arr
            return [self._value(elem) for _ in range(n)]
        return self._unpack(SCALARS[kind])[0]

    def has(self, name):
        return name in self.tensors

    def tensor(self, name):
        """The tensor as float32, rows of the fastest-varying dimension."""
        dims, kind, offset = self.tensors[name]
        n = int(np.prod(dims))
        at = self.base + offset
        if kind == GGML_F32:
            x = np.frombuffer(self.data, dtype="<f4", count=n, offset=at)
        elif kind == GGML_F16:
            x = np.frombuffer(self.data, dtype="<f2", count=n, offset=at).astype(np.float32)
        elif kind == GGML_BF16:
            h = np.frombuffer(self.data, dtype="<u2", count=n, offset=at).astype(np.uint32)
            x = (h << 16).view(np.float32)
        else:
            raise ValueError(f"{name}: tensor type {kind} is not one this "
                             "reader converts (F32, F16, BF16)")
        shape = tuple(reversed(dims))  # ggml [in, out] -> (out, in)
        return np.array(x, dtype=np.float32).reshape(shape)


def llama_model(path):
    """A llama or qwen2 GGUF file as llama_ref's config and weights."""
    g = Gguf(path)
    arch = g.metadata["general.architecture"]
    key = lambda k: g.metadata[f"{arch}.{k}"]  # noqa: E731
    dim, n_heads = int(key("embedding_length")), int(key("attention.head_count"))
    head_size = dim // n_heads
    cfg = {
        "dim": dim,
        "n_layers": int(key("block_count")),
        "n_heads": n_heads,
        "n_kv_heads": int(g.metadata.get(f"{arch}.attention.head_count_kv", n_heads)),
        "eps": float(np.float32(key("attention.layer_norm_rms_epsilon"))),
        "rope_base": float(np.float32(g.metadata.get(f"{arch}.rope.freq_base", 10000.0))),
        "rope_dims": int(g.metadata.get(f"{arch}.rope.dimension_count", head_size)),
        "rope_neox": arch == "qwen2",
        "rope_factors": g.tensor("rope_freqs.weight") if g.has("rope_freqs.weight") else None,
    }
    w = {
        "embed": g.tensor("token_embd.weight"),
        "norm": g.tensor("output_norm.weight"),
        "layers": [],
    }
    w["output"] = g.tensor("output.weight") if g.has("output.weight") else w["embed"]
    for l in range(cfg["n_layers"]):
        p = f"blk.{l}."
        layer = {
            "attn_norm": g.tensor(p + "attn_norm.weight"),
            "wq": g.tensor(p + "attn_q.weight"), "wk": g.tensor(p + "attn_k.weight"),
            "wv": g.tensor(p + "attn_v.weight"), "wo": g.tensor(p + "attn_output.weight"),
            "ffn_norm": g.tensor(p + "ffn_norm.weight"),
            "w1": g.tensor(p + "ffn_gate.weight"), "w2": g.tensor(p + "ffn_down.weight"),
            "w3": g.tensor(p + "ffn_up.weight"),
        }
        for b in ("q", "k", "v"):
            if g.has(p + f"attn_{b}.bias"):
                layer["b" + b] = g.tensor(p + f"attn_{b}.bias")
        w["layers"].append(layer)
    return cfg, w
