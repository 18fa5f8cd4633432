/*
 * llama2c.c — llama2.c's legacy float32 checkpoints, checked and read into
 * the decoder of transformer.h (every matrix an F32 view into the file, or
 * into one copy of it when the bytes are not ours to keep or misaligned).
 * transformer.c runs it exactly as llama2.c's run.c forward() computes.
 *
 * File layout (all little-endian; x86-64 and WebAssembly both are):
 *   int32 dim, hidden_dim, n_layers, n_heads, n_kv_heads, vocab_size,
 *         seq_len              (vocab_size < 0: unshared classifier at end)
 *   float token_embedding_table[vocab][dim]
 *         rms_att_weight[L][dim]
 *         wq[L][dim][dim]  wk[L][kv_dim][dim]  wv[L][kv_dim][dim]
 *         wo[L][dim][dim]
 *         rms_ffn_weight[L][dim]
 *         w1[L][hidden][dim]  w2[L][dim][hidden]  w3[L][hidden][dim]
 *         rms_final_weight[dim]
 *         freq_cis_real[seq_len][head_size/2]   (unused, as in run.c)
 *         freq_cis_imag[seq_len][head_size/2]   (unused)
 *         [wcls[vocab][dim]]
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "model/gguf.h"
#include "model/transformer.h"

#define HEADER_BYTES 28
#define MAX_VOCAB 1000000
#define MAX_SEQ_LEN 1000000
#define MAX_STATE_BYTES ((uint64_t)1 << 30) /* see parse_config */

enum {
    W_EMB, W_RMS_ATT, W_Q, W_K, W_V, W_O, W_RMS_FFN, W_1, W_2, W_3,
    W_RMS_FINAL, W_FREQ, W_CLS, W_COUNT
};

static const char *const weight_names[W_COUNT] = {
    "token_embedding_table", "rms_att_weight", "wq", "wk", "wv", "wo",
    "rms_ffn_weight", "w1", "w2", "w3", "rms_final_weight", "freq_cis",
    "wcls"};

typedef struct {
    int dim, hidden_dim, n_layers, n_heads, n_kv_heads, vocab, seq_len;
    int shared_classifier;
    int head_size, kv_dim, kv_mul;
    uint64_t count[W_COUNT];  /* floats in each tensor */
    uint64_t offset[W_COUNT]; /* its first float, after the header */
} config;

/* ---- validation ---------------------------------------------------------- */

/* a * b, or 0 with *overflow set when it exceeds 2^60 (so that sums of a
 * few such terms, and their byte counts, still fit in 64 bits) */
static uint64_t mul_checked(uint64_t a, uint64_t b, int *overflow) {
    const uint64_t limit = (uint64_t)1 << 60;
    if (a != 0 && b > limit / a) {
        *overflow = 1;
        return 0;
    }
    return a * b;
}

static int32_t read_i32(const uint8_t *p) {
    int32_t v;
    memcpy(&v, p, 4);
    return v;
}

static int check_positive(const char *name, int value, char *err) {
    if (value > 0) return SP_OK;
    return sp_fail(err, SP_ERR_FORMAT, "checkpoint: %s must be > 0 (got %d)",
                   name, value);
}

/* Reads and checks the header, and the file size it implies. */
static int parse_config(config *c, const uint8_t *data, size_t size,
                        char *err) {
    if (size < HEADER_BYTES)
        return sp_fail(err, SP_ERR_FORMAT, "checkpoint: file has %zu bytes, "
                       "shorter than the %d-byte header", size, HEADER_BYTES);
    memset(c, 0, sizeof *c);
    c->dim = read_i32(data);
    c->hidden_dim = read_i32(data + 4);
    c->n_layers = read_i32(data + 8);
    c->n_heads = read_i32(data + 12);
    c->n_kv_heads = read_i32(data + 16);
    int32_t vocab = read_i32(data + 20);
    c->seq_len = read_i32(data + 24);

    int rc;
    if ((rc = check_positive("dim", c->dim, err)) ||
        (rc = check_positive("hidden_dim", c->hidden_dim, err)) ||
        (rc = check_positive("n_layers", c->n_layers, err)) ||
        (rc = check_positive("n_heads", c->n_heads, err)) ||
        (rc = check_positive("n_kv_heads", c->n_kv_heads, err)) ||
        (rc = check_positive("seq_len", c->seq_len, err)))
        return rc;
    int64_t abs_vocab = vocab < 0 ? -(int64_t)vocab : vocab;
    if (abs_vocab < 1 || abs_vocab > MAX_VOCAB)
        return sp_fail(err, SP_ERR_FORMAT, "checkpoint: vocab_size must be "
                       "in 1..%d in absolute value (got %d)", MAX_VOCAB,
                       (int)vocab);
    if (c->seq_len > MAX_SEQ_LEN)
        return sp_fail(err, SP_ERR_FORMAT, "checkpoint: seq_len must be in "
                       "1..%d (got %d)", MAX_SEQ_LEN, c->seq_len);
    if (c->dim % c->n_heads != 0)
        return sp_fail(err, SP_ERR_FORMAT, "checkpoint: n_heads (%d) does "
                       "not divide dim (%d)", c->n_heads, c->dim);
    if (c->n_heads % c->n_kv_heads != 0)
        return sp_fail(err, SP_ERR_FORMAT, "checkpoint: n_kv_heads (%d) does "
                       "not divide n_heads (%d)", c->n_kv_heads, c->n_heads);
    c->head_size = c->dim / c->n_heads;
    if (c->head_size % 2 != 0)
        return sp_fail(err, SP_ERR_FORMAT, "checkpoint: head size %d "
                       "(dim %d / n_heads %d) is odd; RoPE rotates pairs",
                       c->head_size, c->dim, c->n_heads);
    c->vocab = (int)abs_vocab;
    c->shared_classifier = vocab > 0;
    c->kv_dim = c->head_size * c->n_kv_heads;
    c->kv_mul = c->n_heads / c->n_kv_heads;

    int of = 0;
    uint64_t L = (uint64_t)c->n_layers, dim = (uint64_t)c->dim;
    uint64_t hidden = (uint64_t)c->hidden_dim, kv = (uint64_t)c->kv_dim;
    uint64_t V = (uint64_t)c->vocab;
    uint64_t dim2 = mul_checked(dim, dim, &of);
    uint64_t *n = c->count;
    n[W_EMB] = mul_checked(V, dim, &of);
    n[W_RMS_ATT] = mul_checked(L, dim, &of);
    n[W_Q] = mul_checked(L, dim2, &of);
    n[W_K] = mul_checked(L, mul_checked(kv, dim, &of), &of);
    n[W_V] = n[W_K];
    n[W_O] = n[W_Q];
    n[W_RMS_FFN] = n[W_RMS_ATT];
    n[W_1] = mul_checked(L, mul_checked(hidden, dim, &of), &of);
    n[W_2] = n[W_1];
    n[W_3] = n[W_1];
    n[W_RMS_FINAL] = dim;
    /* real and imaginary parts, seq_len * head_size / 2 each */
    n[W_FREQ] = mul_checked((uint64_t)c->seq_len, (uint64_t)c->head_size, &of);
    n[W_CLS] = c->shared_classifier ? 0 : n[W_EMB];
    if (of)
        return sp_fail(err, SP_ERR_FORMAT, "checkpoint: the header's sizes "
                       "are too large (dim %d, hidden_dim %d, n_layers %d)",
                       c->dim, c->hidden_dim, c->n_layers);
    uint64_t total = 0;
    for (int i = 0; i < W_COUNT; i++) {
        c->offset[i] = total;
        total += n[i]; /* each term < 2^60: 13 of them cannot overflow */
    }
    if (total > ((uint64_t)1 << 60))
        return sp_fail(err, SP_ERR_FORMAT, "checkpoint: the header's sizes "
                       "are too large (%llu weights)",
                       (unsigned long long)total);
    uint64_t expected = HEADER_BYTES + 4 * total;
    if ((uint64_t)size != expected)
        return sp_fail(err, SP_ERR_FORMAT, "checkpoint: file has %zu bytes, "
                       "header implies %llu", size,
                       (unsigned long long)expected);
    /* The forward state grows with seq_len, which the file barely pays for
     * (seq_len x head_size floats of unused tables): a small file could ask
     * for a huge KV cache.  It may take up to 1 GiB, or more if the weights
     * themselves are that large. */
    uint64_t seq = (uint64_t)c->seq_len;
    uint64_t state = 2 * mul_checked(L, mul_checked(seq, kv, &of), &of) +
                     mul_checked((uint64_t)c->n_heads, seq, &of) + V +
                     4 * dim + 2 * hidden + (uint64_t)c->head_size;
    if (of || (4 * state > MAX_STATE_BYTES && 4 * state > (uint64_t)size))
        return sp_fail(err, SP_ERR_FORMAT, "checkpoint: seq_len %d needs "
                       "%.0f MiB of KV cache and activations (n_layers %d, "
                       "kv_dim %d, n_heads %d), more than the %d MiB limit",
                       c->seq_len, (8.0 * (double)L * (double)seq * (double)kv +
                                    4.0 * (double)c->n_heads * (double)seq) /
                                       1048576.0,
                       c->n_layers, c->kv_dim, c->n_heads,
                       (int)(MAX_STATE_BYTES >> 20));
    return SP_OK;
}

/* Every weight that the forward pass reads must be finite. */
static int check_finite(const config *c, const uint8_t *weights, char *err) {
    for (int t = 0; t < W_COUNT; t++) {
        if (t == W_FREQ) continue; /* skipped, as run.c does */
        const uint8_t *p = weights + 4 * c->offset[t];
        for (uint64_t i = 0; i < c->count[t]; i++) {
            uint32_t bits;
            memcpy(&bits, p + 4 * i, 4);
            if ((bits & 0x7f800000u) == 0x7f800000u)
                return sp_fail(err, SP_ERR_FORMAT, "checkpoint: weight %llu "
                               "(%s) is not finite", (unsigned long long)i,
                               weight_names[t]);
        }
    }
    return SP_OK;
}

/* ---- load ----------------------------------------------------------------- */

static sp_qmat f32_matrix(const float *w, int rows, int cols) {
    sp_qmat m = {(const uint8_t *)(const void *)w, SP_GGML_F32, rows, cols,
                 sizeof(float) * (size_t)cols};
    return m;
}

int sp_transformer_load(sp_model *m, uint8_t *data, size_t size,
                        int take_ownership, char *err) {
    /* On failure nothing is kept: data stays the caller's to free. */
    config c;
    int rc = parse_config(&c, data, size, err);
    if (rc != SP_OK) return rc;
    const uint8_t *weights = data + HEADER_BYTES;
    rc = check_finite(&c, weights, err);
    if (rc != SP_OK) return rc;

    sp_transformer *t = calloc(1, sizeof *t);
    if (!t) return sp_fail(err, SP_ERR_NOMEM, "checkpoint: out of memory");
    sp_tconfig *tc = &t->c;
    tc->dim = c.dim;
    tc->hidden_dim = c.hidden_dim;
    tc->n_layers = c.n_layers;
    tc->n_heads = c.n_heads;
    tc->n_kv_heads = c.n_kv_heads;
    tc->vocab = c.vocab;
    tc->seq_len = c.seq_len;
    tc->head_size = c.head_size;
    tc->kv_dim = c.kv_dim;
    tc->kv_mul = c.kv_mul;
    tc->rope_dims = c.head_size;
    tc->rope_neox = 0;
    tc->rms_eps = 1e-5f; /* run.c's */
    strcpy(t->arch, "llama2.c");
    strcpy(t->types, "f32");
    t->freq = malloc(sizeof(float) * (size_t)(c.head_size / 2));
    t->layers = calloc((size_t)c.n_layers, sizeof *t->layers);
    if (!t->freq || !t->layers) goto nomem;
    const float *w[W_COUNT];
    int aligned = ((uintptr_t)weights & 3u) == 0;
    if (take_ownership && aligned) {
        const float *base = (const float *)(const void *)weights;
        for (int i = 0; i < W_COUNT; i++) w[i] = base + c.offset[i];
    } else {
        /* copy all but the unused freq_cis tables */
        uint64_t n_front = c.offset[W_FREQ];
        t->copy = malloc(sizeof(float) * (size_t)(n_front + c.count[W_CLS]));
        if (!t->copy) goto nomem;
        memcpy(t->copy, weights, 4 * (size_t)n_front);
        memcpy(t->copy + n_front, weights + 4 * c.offset[W_CLS],
               4 * (size_t)c.count[W_CLS]);
        for (int i = 0; i < W_FREQ; i++) w[i] = t->copy + c.offset[i];
        w[W_FREQ] = NULL;
        w[W_CLS] = t->copy + n_front;
    }
    if (c.shared_classifier) w[W_CLS] = w[W_EMB];
    if (take_ownership) t->owned = data;

    const size_t dim = (size_t)c.dim, kv = (size_t)c.kv_dim;
    const size_t hidden = (size_t)c.hidden_dim;
    t->emb = f32_matrix(w[W_EMB], c.vocab, c.dim);
    t->cls = f32_matrix(w[W_CLS], c.vocab, c.dim);
    t->rms_final = w[W_RMS_FINAL];
    for (int l = 0; l < c.n_layers; l++) {
        sp_tlayer *ly = &t->layers[l];
        size_t ul = (size_t)l;
        ly->rms_att = w[W_RMS_ATT] + ul * dim;
        ly->rms_ffn = w[W_RMS_FFN] + ul * dim;
        ly->wq = f32_matrix(w[W_Q] + ul * dim * dim, c.dim, c.dim);
        ly->wk = f32_matrix(w[W_K] + ul * kv * dim, c.kv_dim, c.dim);
        ly->wv = f32_matrix(w[W_V] + ul * kv * dim, c.kv_dim, c.dim);
        ly->wo = f32_matrix(w[W_O] + ul * dim * dim, c.dim, c.dim);
        ly->w1 = f32_matrix(w[W_1] + ul * hidden * dim, c.hidden_dim, c.dim);
        ly->w2 = f32_matrix(w[W_2] + ul * dim * hidden, c.dim, c.hidden_dim);
        ly->w3 = f32_matrix(w[W_3] + ul * hidden * dim, c.hidden_dim, c.dim);
    }
    /* RoPE: freq_i = 1 / 10000^(2i / head_size), as run.c's powf in float */
    sp_rope_freqs(tc, 10000.0, NULL, 1.0f, t->freq);

    m->kind = SP_MODEL_TRANSFORMER;
    m->vocab = c.vocab;
    m->seq_len = c.seq_len;
    m->transformer = t;
    m->tokenizer = NULL;
    return SP_OK;
nomem:
    t->owned = NULL; /* failure: data stays the caller's */
    sp_transformer_free(t);
    return sp_fail(err, SP_ERR_NOMEM, "checkpoint: out of memory");
}
