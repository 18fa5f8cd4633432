/*
 * transformer.h — the Llama-style decoder that transformer.c runs, as its
 * two loaders fill it: llama2c.c (llama2.c's float32 checkpoints) and
 * gguf_model.c (GGUF files: llama and qwen2).  The weights are views into
 * the loaded file wherever its bytes can be read in place (sp_qmat: F32,
 * F16, BF16 or ggml blocks); what a loader had to make (a copy, the norms
 * dequantized) it owns through the fields at the end.
 */
#ifndef SP_TRANSFORMER_H
#define SP_TRANSFORMER_H

#include "internal.h"
#include "kernels/quant.h"

struct sp_gguf;

typedef struct {
    int dim, hidden_dim, n_layers, n_heads, n_kv_heads, vocab, seq_len;
    int head_size, kv_dim, kv_mul;
    int rope_dims;  /* the dimensions of a head that RoPE rotates (even) */
    int rope_neox;  /* 0: the pairs (2i, 2i + 1), llama.cpp's "norm" RoPE
                     * (llama2.c, llama); 1: (i, i + rope_dims / 2), "neox"
                     * (qwen2) */
    float rms_eps;  /* added to the mean square before the square root */
} sp_tconfig;

typedef struct {
    sp_qmat wq, wk, wv, wo;       /* [dim][dim], [kv][dim] x 2, [dim][dim] */
    sp_qmat w1, w2, w3;           /* gate [hidden][dim], down [dim][hidden],
                                   * up [hidden][dim] */
    const float *rms_att, *rms_ffn; /* [dim] */
    const float *bq, *bk, *bv;    /* biases [dim], [kv], [kv], or NULL */
} sp_tlayer;

struct sp_transformer {
    sp_tconfig c;
    sp_qmat emb;            /* the token embedding, [vocab][dim] */
    sp_qmat cls;            /* the classifier [vocab][dim]: emb when tied */
    const float *rms_final; /* [dim] */
    sp_tlayer *layers;      /* [n_layers] */
    float *freq;            /* [rope_dims / 2]: pair i's angle per position */
    int quantized;          /* some matrix is not F32: the state needs
                             * scratch for the converted inputs */
    /* what the model owns */
    uint8_t *owned;         /* the file image to free(), or NULL */
    float *copy;            /* weights copied out of the file, or NULL */
    float *vectors;         /* the 1-D weights as floats, or NULL */
    struct sp_gguf *gguf;   /* the GGUF index, or NULL */
    char arch[16];          /* "llama2.c", "llama", "qwen2" */
    char types[48];         /* the weights' types, e.g. "q4_K, q6_K" */
};

/* transformer.c: the RoPE angles of cfg (freq[rope_dims / 2], base^(-2i /
 * rope_dims) as llama2.c's run.c computes them, in float), each divided by
 * factor[i] when factor is not NULL, times scale. */
void sp_rope_freqs(const sp_tconfig *cfg, double base, const float *factor,
                   float scale, float *freq);
/* The state's bytes for a config (KV cache, activations; the batch rows
 * not included). */
uint64_t sp_transformer_state_bytes(const sp_tconfig *cfg, int quantized);

/* gguf_model.c */
int sp_gguf_model_load(sp_model *m, uint8_t *data, size_t size,
                       int take_ownership, char *err);

#endif /* SP_TRANSFORMER_H */
