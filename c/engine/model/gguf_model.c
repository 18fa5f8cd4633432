/*
 * gguf_model.c — a GGUF file (model/gguf.h) as the decoder of transformer.h:
 * the architectures llama (Llama 2 and 3, TinyLlama, SmolLM, SmolLM2) and
 * qwen2, their hyperparameters from the metadata, every tensor's shape
 * checked against them, the matrices read in place in the file's own
 * types (kernels/quant.h), the 1-D weights (norms, biases, RoPE factors)
 * converted to floats.  Anything else is refused by name: another
 * architecture, a tensor type the kernels do not run, a RoPE scaling other
 * than linear or Llama 3's factors.
 *
 * The names are llama.cpp's (src/llama-arch.cpp):
 *   token_embd.weight [dim, vocab]      output_norm.weight [dim]
 *   output.weight [dim, vocab] (none: tied to token_embd)
 *   rope_freqs.weight [rope_dims / 2] (Llama 3's scaled RoPE)
 *   blk.N.attn_norm.weight [dim]        blk.N.ffn_norm.weight [dim]
 *   blk.N.attn_q.weight [dim, dim]      blk.N.attn_k/v.weight [dim, kv]
 *   blk.N.attn_output.weight [dim, dim] blk.N.attn_q/k/v.bias (qwen2)
 *   blk.N.ffn_gate/up.weight [dim, hidden]  blk.N.ffn_down.weight [hidden, dim]
 * (a shape lists ne[0], the row length, first: [dim, vocab] is vocab rows
 * of dim weights.)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "model/gguf.h"
#include "model/gguf_vocab.h"
#include "model/transformer.h"

/* The context a GGUF model gets: its training context, at most this (a
 * session's KV cache holds every position; the playground's texts are
 * short), and less if the state would pass SP_GGUF_MAX_STATE. */
#define SP_GGUF_MAX_CONTEXT 2048
#define SP_GGUF_MAX_STATE ((uint64_t)512 << 20)
#define MAX_VOCAB 1000000
#define MAX_DIM 65536

typedef struct {
    const sp_gguf *g;
    sp_transformer *t;
    const char *arch;
    char *err;
    float *next_vector; /* where the next 1-D weight goes in t->vectors */
    uint32_t types_seen[SP_GGML_TYPE_COUNT];
} loader;

/* ---- metadata ------------------------------------------------------------ */

/* "<arch>.<name>" as an integer in [min, max]; def when absent and not
 * required */
static int arch_int(loader *L, const char *name, int required, int64_t def,
                    int64_t min, int64_t max, int *out) {
    char key[96];
    snprintf(key, sizeof key, "%s.%s", L->arch, name);
    int64_t v = def;
    int rc = sp_gguf_get_int(L->g, key, min, max, &v, L->err);
    if (rc == SP_GGUF_MISSING && !required) rc = SP_OK;
    if (rc == SP_GGUF_MISSING) rc = SP_ERR_FORMAT; /* the message is set */
    *out = (int)v;
    return rc;
}

static int arch_float(loader *L, const char *name, int required, double def,
                      double *out) {
    char key[96];
    snprintf(key, sizeof key, "%s.%s", L->arch, name);
    *out = def;
    int rc = sp_gguf_get_float(L->g, key, out, L->err);
    if (rc == SP_GGUF_MISSING && !required) return SP_OK;
    return rc == SP_GGUF_MISSING ? SP_ERR_FORMAT : rc;
}

static int read_config(loader *L, double *rope_base, float *rope_scale) {
    sp_tconfig *c = &L->t->c;
    int rc, experts, ctx, key_len, value_len;
    if ((rc = arch_int(L, "expert_count", 0, 0, 0, INT32_MAX, &experts)))
        return rc;
    if (experts > 0)
        return sp_fail(L->err, SP_ERR_FORMAT, "GGUF: this %s model is a "
                       "mixture of %d experts, which the engine does not run",
                       L->arch, experts);
    if ((rc = arch_int(L, "embedding_length", 1, 0, 1, MAX_DIM, &c->dim)) ||
        (rc = arch_int(L, "feed_forward_length", 1, 0, 1, 1 << 20,
                       &c->hidden_dim)) ||
        (rc = arch_int(L, "block_count", 1, 0, 1, 4096, &c->n_layers)) ||
        (rc = arch_int(L, "attention.head_count", 1, 0, 1, MAX_DIM,
                       &c->n_heads)) ||
        (rc = arch_int(L, "attention.head_count_kv", 0, c->n_heads, 1,
                       c->n_heads, &c->n_kv_heads)) ||
        (rc = arch_int(L, "context_length", 1, 0, 1, INT32_MAX, &ctx)))
        return rc;
    if (c->dim % c->n_heads)
        return sp_fail(L->err, SP_ERR_FORMAT, "GGUF: %s.attention.head_count "
                       "(%d) does not divide embedding_length (%d)", L->arch,
                       c->n_heads, c->dim);
    if (c->n_heads % c->n_kv_heads)
        return sp_fail(L->err, SP_ERR_FORMAT, "GGUF: %s.attention."
                       "head_count_kv (%d) does not divide head_count (%d)",
                       L->arch, c->n_kv_heads, c->n_heads);
    c->head_size = c->dim / c->n_heads;
    c->kv_dim = c->head_size * c->n_kv_heads;
    c->kv_mul = c->n_heads / c->n_kv_heads;
    if ((rc = arch_int(L, "attention.key_length", 0, c->head_size, 1, MAX_DIM,
                       &key_len)) ||
        (rc = arch_int(L, "attention.value_length", 0, c->head_size, 1,
                       MAX_DIM, &value_len)) ||
        (rc = arch_int(L, "rope.dimension_count", 0, c->head_size, 2,
                       c->head_size, &c->rope_dims)))
        return rc;
    if (key_len != c->head_size || value_len != c->head_size)
        return sp_fail(L->err, SP_ERR_FORMAT, "GGUF: heads of %d keys and %d "
                       "values differ from embedding_length / head_count "
                       "(%d), which the engine does not run", key_len,
                       value_len, c->head_size);
    if (c->rope_dims % 2)
        return sp_fail(L->err, SP_ERR_FORMAT, "GGUF: %s.rope.dimension_count "
                       "(%d) is odd; RoPE rotates pairs", L->arch,
                       c->rope_dims);
    double eps;
    if ((rc = arch_float(L, "attention.layer_norm_rms_epsilon", 1, 0, &eps)) ||
        (rc = arch_float(L, "rope.freq_base", 0, 10000.0, rope_base)))
        return rc;
    if (!(eps >= 0 && eps < 1) || !(*rope_base > 1 && *rope_base < 1e12))
        return sp_fail(L->err, SP_ERR_FORMAT, "GGUF: RMS epsilon %g or RoPE "
                       "base %g is out of range", eps, *rope_base);
    c->rms_eps = (float)eps;
    c->rope_neox = strcmp(L->arch, "qwen2") == 0; /* llama.cpp's rope type */

    /* RoPE scaling: none, or linear (positions divided by the factor);
     * Llama 3's is rope_freqs.weight, read with the tensors */
    sp_gguf_str type = {"none", 4};
    char key[96];
    snprintf(key, sizeof key, "%s.rope.scaling.type", L->arch);
    rc = sp_gguf_get_str(L->g, key, &type, L->err);
    if (rc != SP_OK && rc != SP_GGUF_MISSING) return rc;
    double factor = 1.0;
    if (sp_gguf_str_is(type, "linear")) {
        if ((rc = arch_float(L, "rope.scaling.factor", 1, 1.0, &factor)))
            return rc;
    } else if (!sp_gguf_str_is(type, "none")) {
        return sp_fail(L->err, SP_ERR_FORMAT, "GGUF: RoPE scaling '%.*s' is "
                       "not supported (none, linear and Llama 3's factors "
                       "are)", type.len > 32 ? 32 : (int)type.len, type.ptr);
    } else if ((rc = arch_float(L, "rope.scale_linear", 0, 1.0, &factor))) {
        return rc;
    }
    if (!(factor >= 1e-3 && factor <= 1e3))
        return sp_fail(L->err, SP_ERR_FORMAT, "GGUF: RoPE scaling factor %g "
                       "is out of range", factor);
    *rope_scale = (float)(1.0 / factor);
    c->seq_len = ctx < SP_GGUF_MAX_CONTEXT ? ctx : SP_GGUF_MAX_CONTEXT;
    return SP_OK;
}

/* ---- tensors ---------------------------------------------------------------- */

static const char *shape_text(const uint64_t *ne, uint32_t n_dims, char *buf,
                              size_t size) {
    int at = snprintf(buf, size, "[");
    for (uint32_t d = 0; d < n_dims && at < (int)size; d++)
        at += snprintf(buf + at, size - (size_t)at, "%s%llu", d ? ", " : "",
                       (unsigned long long)ne[d]);
    snprintf(buf + at, size - (size_t)at, "]");
    return buf;
}

/* The tensor called name with shape [ne0] (ne1 == 0) or [ne0, ne1];
 * NULL and SP_OK when it is absent and not required. */
static int tensor(loader *L, const char *name, int required, uint64_t ne0,
                  uint64_t ne1, const sp_gguf_tensor **out) {
    const sp_gguf_tensor *t = sp_gguf_tensor_find(L->g, name);
    *out = t;
    if (!t)
        return required ? sp_fail(L->err, SP_ERR_FORMAT, "GGUF: this %s model "
                                  "has no tensor '%s'", L->arch, name)
                        : SP_OK;
    uint64_t want[2] = {ne0, ne1};
    uint32_t dims = ne1 ? 2 : 1;
    /* the missing dimensions are 1s: [dim] is [dim, 1] */
    if (t->ne[0] != ne0 || t->ne[1] != (ne1 ? ne1 : 1) || t->ne[2] != 1 ||
        t->ne[3] != 1) {
        char got[96], exp[64];
        return sp_fail(L->err, SP_ERR_FORMAT, "GGUF: tensor '%s' has shape "
                       "%s; this %s model's metadata needs %s", name,
                       shape_text(t->ne, t->n_dims, got, sizeof got), L->arch,
                       shape_text(want, dims, exp, sizeof exp));
    }
    if (!sp_qtype_supported(t->type))
        return sp_fail(L->err, SP_ERR_FORMAT, "GGUF: tensor '%s' is of type "
                       "%s, which the engine does not run (it runs f32, "
                       "f16, bf16, q8_0, q4_0, q4_K and q6_K)", name,
                       sp_ggml_type_name(t->type));
    return SP_OK;
}

/* A matrix of rows x cols weights (GGUF shape [cols, rows]), in place. */
static int matrix(loader *L, const char *name, int rows, int cols,
                  sp_qmat *out) {
    const sp_gguf_tensor *t;
    int rc = tensor(L, name, 1, (uint64_t)cols, (uint64_t)rows, &t);
    if (rc) return rc;
    out->data = t->data;
    out->type = t->type;
    out->rows = rows;
    out->cols = cols;
    out->row_bytes = sp_qtype_row_bytes(t->type, cols);
    int bad;
    if (!sp_qmat_finite(out, &bad))
        return sp_fail(L->err, SP_ERR_FORMAT, "GGUF: tensor '%s' holds a "
                       "weight or scale that is not finite (row %d)", name,
                       bad);
    L->types_seen[t->type] = 1;
    if (t->type != SP_GGML_F32) L->t->quantized = 1;
    return SP_OK;
}

/* A vector of n weights, converted to floats (NULL when absent and not
 * required). */
static int vector(loader *L, const char *name, int required, int n,
                  const float **out) {
    const sp_gguf_tensor *t;
    int rc = tensor(L, name, required, (uint64_t)n, 0, &t);
    *out = NULL;
    if (rc || !t) return rc;
    sp_qmat m = {t->data, t->type, 1, n, sp_qtype_row_bytes(t->type, n)};
    if (!m.row_bytes)
        return sp_fail(L->err, SP_ERR_FORMAT, "GGUF: tensor '%s' (%d "
                       "weights of type %s) is no whole number of blocks",
                       name, n, sp_ggml_type_name(t->type));
    if (!sp_qmat_finite(&m, NULL))
        return sp_fail(L->err, SP_ERR_FORMAT, "GGUF: tensor '%s' holds a "
                       "weight that is not finite", name);
    sp_qrow(&m, 0, L->next_vector);
    *out = L->next_vector;
    L->next_vector += n;
    return SP_OK;
}

static int read_layer(loader *L, int l) {
    const sp_tconfig *c = &L->t->c;
    sp_tlayer *ly = &L->t->layers[l];
    int qwen2 = c->rope_neox, rc;
    char name[64];
#define SP_NAME(part) (snprintf(name, sizeof name, "blk.%d.%s", l, part), name)
    if ((rc = vector(L, SP_NAME("attn_norm.weight"), 1, c->dim, &ly->rms_att)) ||
        (rc = vector(L, SP_NAME("ffn_norm.weight"), 1, c->dim, &ly->rms_ffn)) ||
        (rc = matrix(L, SP_NAME("attn_q.weight"), c->dim, c->dim, &ly->wq)) ||
        (rc = matrix(L, SP_NAME("attn_k.weight"), c->kv_dim, c->dim, &ly->wk)) ||
        (rc = matrix(L, SP_NAME("attn_v.weight"), c->kv_dim, c->dim, &ly->wv)) ||
        (rc = matrix(L, SP_NAME("attn_output.weight"), c->dim, c->dim,
                     &ly->wo)) ||
        (rc = matrix(L, SP_NAME("ffn_gate.weight"), c->hidden_dim, c->dim,
                     &ly->w1)) ||
        (rc = matrix(L, SP_NAME("ffn_down.weight"), c->dim, c->hidden_dim,
                     &ly->w2)) ||
        (rc = matrix(L, SP_NAME("ffn_up.weight"), c->hidden_dim, c->dim,
                     &ly->w3)) ||
        /* biases: qwen2's always, a llama model's when it has them */
        (rc = vector(L, SP_NAME("attn_q.bias"), qwen2, c->dim, &ly->bq)) ||
        (rc = vector(L, SP_NAME("attn_k.bias"), qwen2, c->kv_dim, &ly->bk)) ||
        (rc = vector(L, SP_NAME("attn_v.bias"), qwen2, c->kv_dim, &ly->bv)))
        return rc;
#undef SP_NAME
    return SP_OK;
}

/* F32 matrices must be float-aligned in memory to be read as floats: a
 * file aligned to less than 4 may leave one unaligned, which is copied. */
static int align_f32(sp_transformer *t, char *err) {
    sp_qmat *all[8];
    size_t need = 0;
    for (int pass = 0; pass < 2; pass++) {
        float *at = t->copy;
        for (int l = -1; l < t->c.n_layers; l++) {
            int n = 0;
            if (l < 0) {
                all[n++] = &t->emb;
                if (t->cls.data != t->emb.data) all[n++] = &t->cls;
            } else {
                sp_tlayer *ly = &t->layers[l];
                sp_qmat *m[7] = {&ly->wq, &ly->wk, &ly->wv, &ly->wo, &ly->w1,
                                 &ly->w2, &ly->w3};
                for (int i = 0; i < 7; i++) all[n++] = m[i];
            }
            for (int i = 0; i < n; i++) {
                sp_qmat *m = all[i];
                if (m->type != SP_GGML_F32 || ((uintptr_t)m->data & 3u) == 0)
                    continue;
                size_t bytes = m->row_bytes * (size_t)m->rows;
                if (pass == 0) {
                    need += bytes / 4;
                } else {
                    int tied = m == &t->emb && t->cls.data == t->emb.data;
                    memcpy(at, m->data, bytes);
                    m->data = (const uint8_t *)at;
                    if (tied) t->cls.data = m->data;
                    at += bytes / 4;
                }
            }
        }
        if (pass == 0) {
            if (!need) return SP_OK;
            t->copy = malloc(need * sizeof(float));
            if (!t->copy)
                return sp_fail(err, SP_ERR_NOMEM, "GGUF: out of memory");
        }
    }
    return SP_OK;
}

/* The state's size, the context shortened until it fits SP_GGUF_MAX_STATE
 * (or refused when not even 16 positions do). */
static int fit_context(sp_transformer *t, char *err) {
    sp_tconfig *c = &t->c;
    while (sp_transformer_state_bytes(c, t->quantized) > SP_GGUF_MAX_STATE &&
           c->seq_len > 16)
        c->seq_len /= 2;
    if (sp_transformer_state_bytes(c, t->quantized) > SP_GGUF_MAX_STATE)
        return sp_fail(err, SP_ERR_FORMAT, "GGUF: the KV cache of %d "
                       "layers x %d values per position needs more than "
                       "the %d MiB a state may take", c->n_layers, 2 * c->kv_dim,
                       (int)(SP_GGUF_MAX_STATE >> 20));
    return SP_OK;
}

static int read_model(loader *L) {
    sp_transformer *t = L->t;
    sp_tconfig *c = &t->c;
    sp_gguf_str arch;
    int rc = sp_gguf_get_str(L->g, "general.architecture", &arch, L->err);
    if (rc) return rc == SP_GGUF_MISSING ? SP_ERR_FORMAT : rc;
    if (sp_gguf_str_is(arch, "llama")) L->arch = "llama";
    else if (sp_gguf_str_is(arch, "qwen2")) L->arch = "qwen2";
    else {
        char name[40];
        size_t n = arch.len < 32 ? arch.len : 32;
        for (size_t i = 0; i < n; i++)
            name[i] = arch.ptr[i] >= 0x20 && arch.ptr[i] < 0x7f ? arch.ptr[i] : '?';
        name[n] = 0;
        return sp_fail(L->err, SP_ERR_FORMAT, "GGUF: architecture %s is not "
                       "supported (the engine runs llama and qwen2)", name);
    }
    strcpy(t->arch, L->arch);
    double rope_base = 10000.0;
    float rope_scale = 1.0f;
    if ((rc = read_config(L, &rope_base, &rope_scale))) return rc;

    /* the vocabulary: token_embd's rows */
    const sp_gguf_tensor *emb = sp_gguf_tensor_find(L->g, "token_embd.weight");
    if (!emb)
        return sp_fail(L->err, SP_ERR_FORMAT, "GGUF: this %s model has no "
                       "tensor 'token_embd.weight'", L->arch);
    if (emb->n_dims < 2 || emb->ne[1] < 1 || emb->ne[1] > MAX_VOCAB)
        return sp_fail(L->err, SP_ERR_FORMAT, "GGUF: tensor "
                       "'token_embd.weight' must have 1..%d rows", MAX_VOCAB);
    c->vocab = (int)emb->ne[1];

    size_t floats = (size_t)c->n_layers * (2 * (size_t)c->dim +
                                           (size_t)c->dim + 2 * (size_t)c->kv_dim) +
                    (size_t)c->dim + (size_t)c->rope_dims / 2;
    t->vectors = malloc(floats * sizeof(float));
    t->layers = calloc((size_t)c->n_layers, sizeof *t->layers);
    t->freq = malloc(sizeof(float) * (size_t)(c->rope_dims / 2));
    if (!t->vectors || !t->layers || !t->freq)
        return sp_fail(L->err, SP_ERR_NOMEM, "GGUF: out of memory");
    L->next_vector = t->vectors;

    const float *factors;
    if ((rc = matrix(L, "token_embd.weight", c->vocab, c->dim, &t->emb)) ||
        (rc = vector(L, "output_norm.weight", 1, c->dim, &t->rms_final)) ||
        (rc = vector(L, "rope_freqs.weight", 0, c->rope_dims / 2, &factors)))
        return rc;
    if (sp_gguf_tensor_find(L->g, "output.weight")) {
        if ((rc = matrix(L, "output.weight", c->vocab, c->dim, &t->cls)))
            return rc;
    } else {
        t->cls = t->emb; /* tied embeddings */
    }
    for (int l = 0; l < c->n_layers; l++)
        if ((rc = read_layer(L, l))) return rc;
    if ((rc = align_f32(t, L->err)) || (rc = fit_context(t, L->err)))
        return rc;
    if (factors)
        for (int i = 0; i < c->rope_dims / 2; i++)
            if (!(factors[i] > 0))
                return sp_fail(L->err, SP_ERR_FORMAT, "GGUF: "
                               "rope_freqs.weight[%d] is %g; RoPE factors "
                               "must be positive", i, (double)factors[i]);
    sp_rope_freqs(c, rope_base, factors, rope_scale, t->freq);

    /* the weights' types, for people ("q4_K, q6_K") */
    int at = 0;
    for (uint32_t ty = 0; ty < SP_GGML_TYPE_COUNT; ty++)
        if (L->types_seen[ty] && at < (int)sizeof t->types - 8)
            at += snprintf(t->types + at, sizeof t->types - (size_t)at,
                           "%s%s", at ? ", " : "", sp_ggml_type_name(ty));
    return SP_OK;
}

int sp_gguf_model_load(sp_model *m, uint8_t *data, size_t size,
                       int take_ownership, char *err) {
    /* the weights are read in place: bytes that stay the caller's are
     * copied once (a front-end that can hand them over should) */
    uint8_t *image = data;
    if (!take_ownership) {
        image = malloc(size ? size : 1);
        if (!image) return sp_fail(err, SP_ERR_NOMEM, "GGUF: out of memory "
                                   "(%zu bytes for the file)", size);
        memcpy(image, data, size);
    }
    int code = SP_OK;
    sp_gguf *g = sp_gguf_open(image, size, &code, err);
    sp_transformer *t = g ? calloc(1, sizeof *t) : NULL;
    if (g && !t) code = sp_fail(err, SP_ERR_NOMEM, "GGUF: out of memory");
    if (t) {
        t->gguf = g;
        loader L = {g, t, NULL, err, NULL, {0}};
        code = read_model(&L);
    }
    if (code != SP_OK) {
        if (t) sp_transformer_free(t); /* closes g; t->owned is NULL */
        else sp_gguf_close(g);
        if (!take_ownership) free(image); /* data stays the caller's */
        return code;
    }
    /* the tokenizer the file carries (gguf_tokenizer.c), the model's own;
     * a file without one is a model of ids (tokenizer.ggml.model absent),
     * one whose tokenizer is refused is refused */
    sp_tokenizer *tok = NULL;
    if (sp_gguf_find(g, "tokenizer.ggml.model")) {
        tok = sp_tokenizer_from_gguf(g, err);
        if (tok && sp_tokenizer_vocab(tok) != t->c.vocab)
            code = sp_fail(err, SP_ERR_FORMAT, "GGUF: the tokenizer has %d "
                           "tokens; the model's output has %d",
                           sp_tokenizer_vocab(tok), t->c.vocab);
        else if (!tok)
            code = SP_ERR_FORMAT;
        if (code != SP_OK) {
            sp_tokenizer_free(tok);
            sp_transformer_free(t);
            if (!take_ownership) free(image);
            return code;
        }
    }
    t->owned = image;
    m->kind = SP_MODEL_TRANSFORMER;
    m->vocab = t->c.vocab;
    m->seq_len = t->c.seq_len;
    m->transformer = t;
    m->tokenizer = tok;
    return SP_OK;
}
