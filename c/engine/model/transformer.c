/*
 * transformer.c — a Llama decoder reading llama2.c's legacy float32
 * checkpoints, computing exactly what llama2.c's run.c forward() computes,
 * but deterministically: every reduction goes through sp_dot / sp_matmul
 * (the canonical summation order of vec4.h), exponentials through the
 * engine's sp_expf / sp_exp_shift_sum, RoPE through sp_pow / sp_sin / sp_cos
 * (mathx.c); the only libm call is sqrtf, which is correctly rounded in
 * every build.  No fused multiply-add (-ffp-contract=off).
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

struct sp_transformer {
    config c;
    const float *w[W_COUNT]; /* w[W_FREQ] unused; w[W_CLS] = emb if shared */
    float *freq;    /* [head_size / 2]: the RoPE frequency of pair i */
    float *copy;    /* the weights when not read in place, else NULL */
    uint8_t *owned; /* the file image to free(), or NULL */
};

typedef struct {
    float *x, *xb, *xb2;   /* [dim] */
    float *hb, *hb2;       /* [hidden_dim] */
    float *q;              /* [dim] */
    float *att;            /* [n_heads][seq_len] */
    float *logits;         /* [vocab] */
    float *key_cache;      /* [n_layers][seq_len][kv_dim] */
    float *value_cache;    /* [n_layers][seq_len][kv_dim] */
    float *rope_cos, *rope_sin; /* [head_size / 2], for the current pos */
    float *block;          /* one allocation holding all of the above */
    /* the batched pass's rows ([SP_BATCH_MAX] of each vector above, and of
     * the RoPE tables), allocated by its first call */
    float *bx, *bxb, *bxb2, *bhb, *bhb2, *bq, *blogits, *bcos, *bsin;
    float *batch_block;
} tstate;

/* Where one pass keeps its rows: n positions' vectors, each row after the
 * other ([n][dim], [n][hidden_dim], ...).  A single position uses the
 * state's own vectors; a batch, the batch rows. */
typedef struct {
    float *x, *xb, *xb2, *hb, *hb2, *q, *logits, *cos, *sin;
} rows;

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

/* ---- load / free --------------------------------------------------------- */

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
    t->c = c;
    t->freq = malloc(sizeof(float) * (size_t)(c.head_size / 2));
    if (!t->freq) goto nomem;
    int aligned = ((uintptr_t)weights & 3u) == 0;
    if (take_ownership && aligned) {
        const float *base = (const float *)(const void *)weights;
        for (int i = 0; i < W_COUNT; i++) t->w[i] = base + c.offset[i];
    } else {
        /* copy all but the unused freq_cis tables */
        uint64_t n_front = c.offset[W_FREQ];
        t->copy = malloc(sizeof(float) * (size_t)(n_front + c.count[W_CLS]));
        if (!t->copy) goto nomem;
        memcpy(t->copy, weights, 4 * (size_t)n_front);
        memcpy(t->copy + n_front, weights + 4 * c.offset[W_CLS],
               4 * (size_t)c.count[W_CLS]);
        for (int i = 0; i < W_FREQ; i++) t->w[i] = t->copy + c.offset[i];
        t->w[W_FREQ] = NULL;
        t->w[W_CLS] = t->copy + n_front;
    }
    if (c.shared_classifier) t->w[W_CLS] = t->w[W_EMB];
    if (take_ownership) t->owned = data;

    /* RoPE: freq_i = 1 / 10000^(2i / head_size), as run.c's powf in float */
    for (int i = 0; i < c.head_size / 2; i++) {
        float e = (float)(2 * i) / (float)c.head_size;
        t->freq[i] = 1.0f / (float)sp_pow(10000.0, (double)e);
    }

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

void sp_transformer_free(sp_transformer *t) {
    if (!t) return;
    free(t->freq);
    free(t->copy);
    free(t->owned);
    free(t);
}

/* ---- state ---------------------------------------------------------------- */

void *sp_transformer_state_new(const sp_transformer *t) {
    const config *c = &t->c;
    /* each buffer rounded up to 4 floats, so every one starts 16-aligned */
#define ROUND4(n) (((uint64_t)(n) + 3u) & ~(uint64_t)3u)
    int of = 0;
    uint64_t cache = ROUND4(mul_checked(
        (uint64_t)c->n_layers,
        mul_checked((uint64_t)c->seq_len, (uint64_t)c->kv_dim, &of), &of));
    uint64_t sizes[12] = {
        ROUND4(c->dim), ROUND4(c->dim), ROUND4(c->dim),
        ROUND4(c->hidden_dim), ROUND4(c->hidden_dim), ROUND4(c->dim),
        ROUND4((uint64_t)c->n_heads * (uint64_t)c->seq_len),
        ROUND4(c->vocab), cache, cache,
        ROUND4(c->head_size / 2), ROUND4(c->head_size / 2)};
#undef ROUND4
    uint64_t total = 0;
    for (int i = 0; i < 12; i++) total += sizes[i];
    if (of || total > (uint64_t)(SIZE_MAX / sizeof(float))) return NULL;
    tstate *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->block = calloc((size_t)total, sizeof(float));
    if (!s->block) {
        free(s);
        return NULL;
    }
    float **bufs[12] = {&s->x, &s->xb, &s->xb2, &s->hb, &s->hb2, &s->q,
                        &s->att, &s->logits, &s->key_cache, &s->value_cache,
                        &s->rope_cos, &s->rope_sin};
    float *at = s->block;
    for (int i = 0; i < 12; i++) {
        *bufs[i] = at;
        at += sizes[i];
    }
    return s;
}

void sp_transformer_state_free(void *state) {
    tstate *s = state;
    if (!s) return;
    free(s->block);
    free(s->batch_block);
    free(s);
}

/* The batch rows, allocated once (a beam's or a draft's state that never
 * runs a batch never pays for them); 0 when memory is short. */
static int batch_rows(const config *c, tstate *s) {
    if (s->batch_block) return 1;
    size_t B = SP_BATCH_MAX, dim = (size_t)c->dim;
    size_t hidden = (size_t)c->hidden_dim, half = (size_t)c->head_size / 2;
    size_t sizes[9] = {B * dim, B * dim, B * dim, B * hidden, B * hidden,
                       B * dim, B * (size_t)c->vocab, B * half, B * half};
    size_t total = 0;
    for (int i = 0; i < 9; i++) total += (sizes[i] + 3) & ~(size_t)3;
    s->batch_block = calloc(total, sizeof(float));
    if (!s->batch_block) return 0;
    float **bufs[9] = {&s->bx, &s->bxb, &s->bxb2, &s->bhb, &s->bhb2, &s->bq,
                       &s->blogits, &s->bcos, &s->bsin};
    float *at = s->batch_block;
    for (int i = 0; i < 9; i++) {
        *bufs[i] = at;
        at += (sizes[i] + 3) & ~(size_t)3;
    }
    return 1;
}

/* ---- forward ------------------------------------------------------------- */

/* o = w * (x / rms(x)), run.c's rmsnorm with eps 1e-5; o may be x */
static void rmsnorm(float *o, const float *x, const float *w, int n) {
    float ss = sp_dot(x, x, n);
    ss /= (float)n;
    ss += 1e-5f;
    ss = 1.0f / sqrtf(ss);
    for (int j = 0; j < n; j++) o[j] = w[j] * (ss * x[j]);
}

/* Rotates the pairs (2i, 2i + 1) of each of n_heads heads of vec. */
static void rope(float *vec, int n_heads, int head_size, const float *fcr,
                 const float *fci) {
    for (int h = 0; h < n_heads; h++) {
        float *v = vec + (size_t)h * (size_t)head_size;
        for (int i = 0; i < head_size / 2; i++) {
            float v0 = v[2 * i], v1 = v[2 * i + 1];
            v[2 * i] = v0 * fcr[i] - v1 * fci[i];
            v[2 * i + 1] = v0 * fci[i] + v1 * fcr[i];
        }
    }
}

/* run.c's softmax: exp(x - max) / sum, in place */
static void softmax(float *x, int n) {
    float max = sp_max(x, n);
    float sum = sp_exp_shift_sum(x, max, x, n);
    sp_div_scalar(x, sum, n);
}

/* 2 x the multiply-adds of one forward pass at pos: the matmuls (q, k, v,
 * o, w1, w3, w2 per layer, the classifier) and the attention (a score and a
 * weighted value per head and position 0..pos) */
static double forward_flops(const config *c, double pos) {
    double dim = c->dim, kv = c->kv_dim, hidden = c->hidden_dim;
    double per_layer = 2.0 * dim * dim + 2.0 * kv * dim + 3.0 * hidden * dim;
    double attention = 2.0 * (double)c->n_heads * (double)c->head_size;
    return 2.0 * ((double)c->n_layers * (per_layer + attention * (pos + 1)) +
                  (double)c->vocab * dim);
}

void sp_transformer_count(const sp_transformer *t, int pos, sp_counters *k) {
    const config *c = &t->c;
    double n = (double)pos + 1; /* positions 0..pos */
    k->flops += forward_flops(c, pos);
    /* sum over p in 0..pos of forward_flops(c, p): the constant part n
     * times, the attention part (p + 1) summed, n (n + 1) / 2 */
    double fixed = forward_flops(c, -1.0);
    double attention = forward_flops(c, 0.0) - fixed;
    k->flops_no_cache += n * fixed + attention * (n * (n + 1) / 2);
    k->kv_reused += 2u * (uint64_t)c->n_layers * (uint64_t)pos;
    k->kv_written += 2u * (uint64_t)c->n_layers;
}

/* The attention of one position pos of layer l: query q against the keys
 * of positions 0..pos, the weighted sum of their values into out[dim]. */
static void attend(const config *c, tstate *s, const float *query, float *out,
                   size_t loff, int pos) {
    const int hs = c->head_size;
    const size_t skv = (size_t)c->kv_dim;
    const float sqrt_hs = sqrtf((float)hs);
    for (int h = 0; h < c->n_heads; h++) {
        const float *q = query + (size_t)h * (size_t)hs;
        float *att = s->att + (size_t)h * (size_t)c->seq_len;
        size_t kv_off = loff + (size_t)(h / c->kv_mul) * (size_t)hs;
        for (int p = 0; p <= pos; p++) {
            const float *kp = s->key_cache + kv_off + (size_t)p * skv;
            att[p] = sp_dot(q, kp, hs) / sqrt_hs;
        }
        softmax(att, pos + 1);
        /* weighted sum of the values, accumulated in position order */
        float *xb = out + (size_t)h * (size_t)hs;
        memset(xb, 0, sizeof(float) * (size_t)hs);
        for (int p = 0; p <= pos; p++) {
            const float *vp = s->value_cache + kv_off + (size_t)p * skv;
            float a = att[p];
            for (int i = 0; i < hs; i++) xb[i] += a * vp[i];
        }
    }
}

/* Feeds tokens[0..n) at positions pos..pos + n - 1: each weight matrix is
 * read once for the n positions (sp_matmul_batch), and everything else is
 * done position by position, in the order n single passes do it -- so the
 * logits of each position have the bits of a single pass.  The keys and
 * values of all n positions are written before any of them attends, and
 * position pos + b reads rows 0..pos + b only.  n_logits: the classifier
 * runs for the last n_logits positions (a prompt needs the last one). */
static void forward_rows(const sp_transformer *t, tstate *s, const rows *r,
                         const int *tokens, int n, int pos, int n_logits) {
    const config *c = &t->c;
    const int dim = c->dim, hidden = c->hidden_dim, kv_dim = c->kv_dim;
    const int hs = c->head_size;
    const size_t sdim = (size_t)dim, skv = (size_t)kv_dim;
    const size_t shidden = (size_t)hidden, half = (size_t)(hs / 2);

    for (int b = 0; b < n; b++) {
        memcpy(r->x + (size_t)b * sdim, t->w[W_EMB] + (size_t)tokens[b] * sdim,
               sizeof(float) * sdim);
        /* the rotation of every pair at this position, shared by all layers */
        for (int i = 0; i < hs / 2; i++) {
            float val = (float)(pos + b) * t->freq[i];
            r->cos[(size_t)b * half + (size_t)i] = (float)sp_cos((double)val);
            r->sin[(size_t)b * half + (size_t)i] = (float)sp_sin((double)val);
        }
    }

    for (int l = 0; l < c->n_layers; l++) {
        const size_t ul = (size_t)l;
        /* attention */
        for (int b = 0; b < n; b++)
            rmsnorm(r->xb + (size_t)b * sdim, r->x + (size_t)b * sdim,
                    t->w[W_RMS_ATT] + ul * sdim, dim);
        size_t loff = ul * (size_t)c->seq_len * skv;
        float *k = s->key_cache + loff + (size_t)pos * skv;
        float *v = s->value_cache + loff + (size_t)pos * skv;
        sp_matmul_batch(r->q, r->xb, t->w[W_Q] + ul * sdim * sdim, dim, dim, n);
        sp_matmul_batch(k, r->xb, t->w[W_K] + ul * skv * sdim, dim, kv_dim, n);
        sp_matmul_batch(v, r->xb, t->w[W_V] + ul * skv * sdim, dim, kv_dim, n);
        for (int b = 0; b < n; b++) {
            const float *fc = r->cos + (size_t)b * half;
            const float *fs = r->sin + (size_t)b * half;
            rope(r->q + (size_t)b * sdim, c->n_heads, hs, fc, fs);
            rope(k + (size_t)b * skv, c->n_kv_heads, hs, fc, fs);
        }
        for (int b = 0; b < n; b++)
            attend(c, s, r->q + (size_t)b * sdim, r->xb + (size_t)b * sdim,
                   loff, pos + b);
        sp_matmul_batch(r->xb2, r->xb, t->w[W_O] + ul * sdim * sdim, dim, dim,
                        n);
        for (size_t i = 0; i < (size_t)n * sdim; i++) r->x[i] += r->xb2[i];

        /* feed-forward: w2(silu(w1 x) * (w3 x)) */
        for (int b = 0; b < n; b++)
            rmsnorm(r->xb + (size_t)b * sdim, r->x + (size_t)b * sdim,
                    t->w[W_RMS_FFN] + ul * sdim, dim);
        sp_matmul_batch(r->hb, r->xb, t->w[W_1] + ul * shidden * sdim, dim,
                        hidden, n);
        sp_matmul_batch(r->hb2, r->xb, t->w[W_3] + ul * shidden * sdim, dim,
                        hidden, n);
        for (size_t i = 0; i < (size_t)n * shidden; i++) {
            float val = r->hb[i];
            val *= 1.0f / (1.0f + sp_expf(-val));
            r->hb[i] = val * r->hb2[i];
        }
        sp_matmul_batch(r->xb, r->hb, t->w[W_2] + ul * sdim * shidden, hidden,
                        dim, n);
        for (size_t i = 0; i < (size_t)n * sdim; i++) r->x[i] += r->xb[i];
    }

    int first = n - n_logits;
    float *xl = r->x + (size_t)first * sdim;
    for (int b = 0; b < n_logits; b++)
        rmsnorm(xl + (size_t)b * sdim, xl + (size_t)b * sdim,
                t->w[W_RMS_FINAL], dim);
    sp_matmul_batch(r->logits + (size_t)first * (size_t)c->vocab, xl,
                    t->w[W_CLS], dim, c->vocab, n_logits);
}

float *sp_transformer_forward(const sp_transformer *t, void *state,
                              int token, int pos) {
    const config *c = &t->c;
    tstate *s = state;
    if (token < 0 || token >= c->vocab || pos < 0 || pos >= c->seq_len)
        return NULL;
    rows r = {s->x, s->xb, s->xb2, s->hb, s->hb2, s->q, s->logits,
              s->rope_cos, s->rope_sin};
    forward_rows(t, s, &r, &token, 1, pos, 1);
    return s->logits;
}

float *sp_transformer_forward_batch(const sp_transformer *t, void *state,
                                    const int *tokens, int n, int pos,
                                    int last_only) {
    const config *c = &t->c;
    tstate *s = state;
    if (n < 1 || n > SP_BATCH_MAX || pos < 0 || pos > c->seq_len - n)
        return NULL;
    for (int b = 0; b < n; b++)
        if (tokens[b] < 0 || tokens[b] >= c->vocab) return NULL;
    if (!batch_rows(c, s)) return NULL;
    rows r = {s->bx, s->bxb, s->bxb2, s->bhb, s->bhb2, s->bq, s->blogits,
              s->bcos, s->bsin};
    forward_rows(t, s, &r, tokens, n, pos, last_only ? 1 : n);
    /* the state's logits are the last position's, as after n single calls */
    memcpy(s->logits, s->blogits + (size_t)(n - 1) * (size_t)c->vocab,
           sizeof(float) * (size_t)c->vocab);
    return s->blogits;
}

float *sp_transformer_state_logits(void *state) {
    return ((tstate *)state)->logits;
}

/* ---- state copies (beam search, speculative decoding) ------------------- */

/* Copies positions [0, n_pos) of the KV cache and the last logits from src
 * to dst: a beam continues from where its parent stood. */
void sp_transformer_state_copy(const sp_transformer *t, void *dst,
                               const void *src, int n_pos) {
    const config *c = &t->c;
    tstate *d = dst;
    const tstate *s = src;
    size_t row = (size_t)c->kv_dim, layer = (size_t)c->seq_len * row;
    size_t bytes = sizeof(float) * row * (size_t)n_pos;
    for (int l = 0; l < c->n_layers; l++) {
        memcpy(d->key_cache + l * layer, s->key_cache + l * layer, bytes);
        memcpy(d->value_cache + l * layer, s->value_cache + l * layer, bytes);
    }
    memcpy(d->logits, s->logits, sizeof(float) * (size_t)c->vocab);
}
