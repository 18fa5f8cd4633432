/*
 * transformer.c — a Llama decoder (transformer.h), as llama2.c's run.c
 * forward() computes it, generalised to what GGUF files of the llama and
 * qwen2 architectures hold: grouped-query attention, either RoPE layout,
 * scaled RoPE angles, biases on Q, K and V, any RMS epsilon, and weights
 * in F32, F16, BF16 or ggml's blocks (kernels/quant.h).  Deterministic:
 * every reduction goes through sp_dot / sp_matmul / sp_qmatmul (the
 * canonical summation orders of vec4.h and quant.h), exponentials through
 * the engine's sp_expf / sp_exp_shift_sum, RoPE through sp_pow / sp_sin /
 * sp_cos (mathx.c); the only libm call is sqrtf, which is correctly
 * rounded in every build.  No fused multiply-add (-ffp-contract=off).
 * A llama2.c checkpoint (every matrix F32, epsilon 1e-5, base 10000) runs
 * the very operations it ran before GGUF came: its logits keep their bits.
 *
 * The loaders: llama2c.c, gguf_model.c.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "model/gguf.h"
#include "model/transformer.h"

typedef struct {
    float *x, *xb, *xb2;   /* [dim] */
    float *hb, *hb2;       /* [hidden_dim] */
    float *q;              /* [dim] */
    float *att;            /* [n_heads][seq_len] */
    float *logits;         /* [vocab] */
    float *key_cache;      /* [n_layers][seq_len][kv_dim] */
    float *value_cache;    /* [n_layers][seq_len][kv_dim] */
    float *rope_cos, *rope_sin; /* [rope_dims / 2], for the current pos */
    float *block;          /* one allocation holding all of the above */
    void *qscratch;        /* sp_qmatmul's, for one input (quantized
                            * models only) */
    /* the batched pass's rows ([SP_BATCH_MAX] of each vector above, and of
     * the RoPE tables), allocated by its first call */
    float *bx, *bxb, *bxb2, *bhb, *bhb2, *bq, *blogits, *bcos, *bsin;
    float *batch_block;
    void *bqscratch;       /* sp_qmatmul's, for SP_BATCH_MAX inputs */
    /* a look inside (sp_transformer_set_capture; NULL: off): the softmax
     * weights attend() computed and the residual stream after each layer,
     * of the last position a pass fed, copied as the pass runs */
    float *cap_att;        /* [n_layers][n_heads][cap_pos + 1] */
    float *cap_resid;      /* [n_layers][dim] */
    int cap_pos, cap_token; /* where they are from (-1: nothing yet) */
    unsigned cap_serial;   /* passes captured so far */
} tstate;

/* Where one pass keeps its rows: n positions' vectors, each row after the
 * other ([n][dim], [n][hidden_dim], ...).  A single position uses the
 * state's own vectors; a batch, the batch rows. */
typedef struct {
    float *x, *xb, *xb2, *hb, *hb2, *q, *logits, *cos, *sin;
    void *scratch;
} rows;

void sp_rope_freqs(const sp_tconfig *cfg, double base, const float *factor,
                   float scale, float *freq) {
    for (int i = 0; i < cfg->rope_dims / 2; i++) {
        float e = (float)(2 * i) / (float)cfg->rope_dims;
        float f = 1.0f / (float)sp_pow(base, (double)e);
        if (factor) f = f / factor[i];
        freq[i] = f * scale;
    }
}

void sp_transformer_free(sp_transformer *t) {
    if (!t) return;
    free(t->freq);
    free(t->layers);
    free(t->copy);
    free(t->vectors);
    sp_gguf_close(t->gguf);
    free(t->owned);
    free(t);
}

/* ---- state ---------------------------------------------------------------- */

/* each buffer rounded up to 4 floats, so that every one starts 16-aligned */
#define ROUND4(n) (((uint64_t)(n) + 3u) & ~(uint64_t)3u)

/* The floats of a state's buffers, in the order tstate lists them. */
static void state_sizes(const sp_tconfig *c, uint64_t sizes[12]) {
    uint64_t cache = ROUND4((uint64_t)c->n_layers * (uint64_t)c->seq_len *
                            (uint64_t)c->kv_dim);
    uint64_t s[12] = {
        ROUND4(c->dim), ROUND4(c->dim), ROUND4(c->dim),
        ROUND4(c->hidden_dim), ROUND4(c->hidden_dim), ROUND4(c->dim),
        ROUND4((uint64_t)c->n_heads * (uint64_t)c->seq_len),
        ROUND4(c->vocab), cache, cache,
        ROUND4(c->rope_dims / 2), ROUND4(c->rope_dims / 2)};
    memcpy(sizes, s, sizeof s);
}

/* the widest input a matrix of the model takes */
static int widest(const sp_tconfig *c) {
    return c->hidden_dim > c->dim ? c->hidden_dim : c->dim;
}

uint64_t sp_transformer_state_bytes(const sp_tconfig *c, int quantized) {
    uint64_t sizes[12], total = 0;
    state_sizes(c, sizes);
    for (int i = 0; i < 12; i++) total += sizes[i];
    return 4 * total + (quantized ? sp_qmatmul_scratch(widest(c), 1) : 0);
}

void *sp_transformer_state_new(const sp_transformer *t) {
    const sp_tconfig *c = &t->c;
    uint64_t sizes[12], total = 0;
    state_sizes(c, sizes); /* the loaders bound them: no overflow */
    for (int i = 0; i < 12; i++) total += sizes[i];
    if (total > (uint64_t)(SIZE_MAX / sizeof(float))) return NULL;
    tstate *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->block = calloc((size_t)total, sizeof(float));
    if (t->quantized) s->qscratch = malloc(sp_qmatmul_scratch(widest(c), 1));
    if (!s->block || (t->quantized && !s->qscratch)) {
        sp_transformer_state_free(s);
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
    free(s->qscratch);
    free(s->batch_block);
    free(s->bqscratch);
    free(s->cap_att);
    free(s->cap_resid);
    free(s);
}

/* The batch rows, allocated once (a beam's or a draft's state that never
 * runs a batch never pays for them); 0 when memory is short. */
static int batch_rows(const sp_transformer *t, tstate *s) {
    if (s->batch_block) return 1;
    const sp_tconfig *c = &t->c;
    size_t B = SP_BATCH_MAX, dim = (size_t)c->dim;
    size_t hidden = (size_t)c->hidden_dim, half = (size_t)c->rope_dims / 2;
    size_t sizes[9] = {B * dim, B * dim, B * dim, B * hidden, B * hidden,
                       B * dim, B * (size_t)c->vocab, B * half, B * half};
    size_t total = 0;
    for (int i = 0; i < 9; i++) total += (sizes[i] + 3) & ~(size_t)3;
    if (t->quantized) {
        s->bqscratch = malloc(sp_qmatmul_scratch(widest(c), SP_BATCH_MAX));
        if (!s->bqscratch) return 0;
    }
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

/* o = w * (x / rms(x)), run.c's rmsnorm (its epsilon 1e-5, or the file's);
 * o may be x */
static void rmsnorm(float *o, const float *x, const float *w, int n,
                    float eps) {
    float ss = sp_dot(x, x, n);
    ss /= (float)n;
    ss += eps;
    ss = 1.0f / sqrtf(ss);
    for (int j = 0; j < n; j++) o[j] = w[j] * (ss * x[j]);
}

/* Rotates pairs of the first rope_dims dimensions of each of n_heads heads
 * of vec by the angles whose cosines and sines fcr and fci hold: the pairs
 * (2i, 2i + 1) (llama.cpp's "norm" layout, llama2.c's), or (i, i + half)
 * ("neox", qwen2's). */
static void rope(float *vec, int n_heads, const sp_tconfig *c,
                 const float *fcr, const float *fci) {
    const int half = c->rope_dims / 2, stride = c->rope_neox ? 1 : 2;
    const int other = c->rope_neox ? half : 1;
    for (int h = 0; h < n_heads; h++) {
        float *v = vec + (size_t)h * (size_t)c->head_size;
        for (int i = 0; i < half; i++) {
            float *p = v + stride * i;
            float v0 = p[0], v1 = p[other];
            p[0] = v0 * fcr[i] - v1 * fci[i];
            p[other] = v0 * fci[i] + v1 * fcr[i];
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
static double forward_flops(const sp_tconfig *c, double pos) {
    double dim = c->dim, kv = c->kv_dim, hidden = c->hidden_dim;
    double per_layer = 2.0 * dim * dim + 2.0 * kv * dim + 3.0 * hidden * dim;
    double attention = 2.0 * (double)c->n_heads * (double)c->head_size;
    return 2.0 * ((double)c->n_layers * (per_layer + attention * (pos + 1)) +
                  (double)c->vocab * dim);
}

void sp_transformer_count(const sp_transformer *t, int pos, sp_counters *k) {
    const sp_tconfig *c = &t->c;
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
 * of positions 0..pos, the weighted sum of their values into out[dim].
 * keep (NULL: none): each head's weights copied there, [n_heads][pos + 1]
 * (a look inside: the very numbers the values are mixed by). */
static void attend(const sp_tconfig *c, tstate *s, const float *query,
                   float *out, size_t loff, int pos, float *keep) {
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
        if (keep)
            memcpy(keep + (size_t)h * (size_t)(pos + 1), att,
                   sizeof(float) * (size_t)(pos + 1));
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

/* y[b * n + i] += bias[i] for the n_rows rows of y (a bias of NULL: none) */
static void add_bias(float *y, const float *bias, int n, int n_rows,
                     size_t stride) {
    if (!bias) return;
    for (int b = 0; b < n_rows; b++)
        for (int i = 0; i < n; i++) y[(size_t)b * stride + (size_t)i] += bias[i];
}

/* Feeds tokens[0..n) at positions pos..pos + n - 1: each weight matrix is
 * read once for the n positions (sp_qmatmul), and everything else is done
 * position by position, in the order n single passes do it -- so the
 * logits of each position have the bits of a single pass.  The keys and
 * values of all n positions are written before any of them attends, and
 * position pos + b reads rows 0..pos + b only.  n_logits: the classifier
 * runs for the last n_logits positions (a prompt needs the last one). */
static void forward_rows(const sp_transformer *t, tstate *s, const rows *r,
                         const int *tokens, int n, int pos, int n_logits) {
    const sp_tconfig *c = &t->c;
    const int dim = c->dim, kv_dim = c->kv_dim;
    const size_t sdim = (size_t)dim, skv = (size_t)kv_dim;
    const size_t shidden = (size_t)c->hidden_dim;
    const size_t half = (size_t)(c->rope_dims / 2);
    void *scratch = r->scratch;

    for (int b = 0; b < n; b++) {
        sp_qrow(&t->emb, tokens[b], r->x + (size_t)b * sdim);
        /* the rotation of every pair at this position, shared by all layers */
        for (size_t i = 0; i < half; i++) {
            float val = (float)(pos + b) * t->freq[i];
            r->cos[(size_t)b * half + i] = (float)sp_cos((double)val);
            r->sin[(size_t)b * half + i] = (float)sp_sin((double)val);
        }
    }

    for (int l = 0; l < c->n_layers; l++) {
        const sp_tlayer *ly = &t->layers[l];
        /* attention */
        for (int b = 0; b < n; b++)
            rmsnorm(r->xb + (size_t)b * sdim, r->x + (size_t)b * sdim,
                    ly->rms_att, dim, c->rms_eps);
        size_t loff = (size_t)l * (size_t)c->seq_len * skv;
        float *k = s->key_cache + loff + (size_t)pos * skv;
        float *v = s->value_cache + loff + (size_t)pos * skv;
        sp_qmatmul(r->q, r->xb, &ly->wq, n, scratch);
        sp_qmatmul(k, r->xb, &ly->wk, n, scratch);
        sp_qmatmul(v, r->xb, &ly->wv, n, scratch);
        add_bias(r->q, ly->bq, dim, n, sdim);
        add_bias(k, ly->bk, kv_dim, n, skv);
        add_bias(v, ly->bv, kv_dim, n, skv);
        for (int b = 0; b < n; b++) {
            const float *fc = r->cos + (size_t)b * half;
            const float *fs = r->sin + (size_t)b * half;
            rope(r->q + (size_t)b * sdim, c->n_heads, c, fc, fs);
            rope(k + (size_t)b * skv, c->n_kv_heads, c, fc, fs);
        }
        /* a capture keeps the last position's weights (pos + n keys) */
        float *keep = s->cap_att ? s->cap_att + (size_t)l *
                                       (size_t)c->n_heads * (size_t)(pos + n)
                                 : NULL;
        for (int b = 0; b < n; b++)
            attend(c, s, r->q + (size_t)b * sdim, r->xb + (size_t)b * sdim,
                   loff, pos + b, b == n - 1 ? keep : NULL);
        sp_qmatmul(r->xb2, r->xb, &ly->wo, n, scratch);
        for (size_t i = 0; i < (size_t)n * sdim; i++) r->x[i] += r->xb2[i];

        /* feed-forward: w2(silu(w1 x) * (w3 x)) */
        for (int b = 0; b < n; b++)
            rmsnorm(r->xb + (size_t)b * sdim, r->x + (size_t)b * sdim,
                    ly->rms_ffn, dim, c->rms_eps);
        sp_qmatmul(r->hb, r->xb, &ly->w1, n, scratch);
        sp_qmatmul(r->hb2, r->xb, &ly->w3, n, scratch);
        for (size_t i = 0; i < (size_t)n * shidden; i++) {
            float val = r->hb[i];
            val *= 1.0f / (1.0f + sp_expf(-val));
            r->hb[i] = val * r->hb2[i];
        }
        sp_qmatmul(r->xb, r->hb, &ly->w2, n, scratch);
        for (size_t i = 0; i < (size_t)n * sdim; i++) r->x[i] += r->xb[i];
        if (s->cap_resid) /* the residual stream after layer l */
            memcpy(s->cap_resid + (size_t)l * sdim,
                   r->x + (size_t)(n - 1) * sdim, sizeof(float) * sdim);
    }
    if (s->cap_att) {
        s->cap_pos = pos + n - 1;
        s->cap_token = tokens[n - 1];
        s->cap_serial++;
    }

    int first = n - n_logits;
    float *xl = r->x + (size_t)first * sdim;
    for (int b = 0; b < n_logits; b++)
        rmsnorm(xl + (size_t)b * sdim, xl + (size_t)b * sdim, t->rms_final,
                dim, c->rms_eps);
    sp_qmatmul(r->logits + (size_t)first * (size_t)c->vocab, xl, &t->cls,
               n_logits, scratch);
}

float *sp_transformer_forward(const sp_transformer *t, void *state,
                              int token, int pos) {
    const sp_tconfig *c = &t->c;
    tstate *s = state;
    if (token < 0 || token >= c->vocab || pos < 0 || pos >= c->seq_len)
        return NULL;
    rows r = {s->x, s->xb, s->xb2, s->hb, s->hb2, s->q, s->logits,
              s->rope_cos, s->rope_sin, s->qscratch};
    forward_rows(t, s, &r, &token, 1, pos, 1);
    return s->logits;
}

float *sp_transformer_forward_batch(const sp_transformer *t, void *state,
                                    const int *tokens, int n, int pos,
                                    int last_only) {
    const sp_tconfig *c = &t->c;
    tstate *s = state;
    if (n < 1 || n > SP_BATCH_MAX || pos < 0 || pos > c->seq_len - n)
        return NULL;
    for (int b = 0; b < n; b++)
        if (tokens[b] < 0 || tokens[b] >= c->vocab) return NULL;
    if (!batch_rows(t, s)) return NULL;
    rows r = {s->bx, s->bxb, s->bxb2, s->bhb, s->bhb2, s->bq, s->blogits,
              s->bcos, s->bsin, s->bqscratch};
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
    const sp_tconfig *c = &t->c;
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

/* ---- a look inside (model/inspect.c) ------------------------------------ */

int sp_transformer_set_capture(const sp_transformer *t, void *state, int on) {
    tstate *s = state;
    const sp_tconfig *c = &t->c;
    if (!on) {
        free(s->cap_att);
        free(s->cap_resid);
        s->cap_att = s->cap_resid = NULL;
        return SP_OK;
    }
    if (s->cap_att) return SP_OK;
    s->cap_att = malloc(sizeof(float) * (size_t)c->n_layers *
                        (size_t)c->n_heads * (size_t)c->seq_len);
    s->cap_resid = malloc(sizeof(float) * (size_t)c->n_layers *
                          (size_t)c->dim);
    s->cap_pos = s->cap_token = -1;
    if (!s->cap_att || !s->cap_resid) {
        sp_transformer_set_capture(t, state, 0);
        return SP_ERR_NOMEM;
    }
    return SP_OK;
}

const float *sp_transformer_captured(const void *state, int *pos, int *token,
                                     unsigned *serial) {
    const tstate *s = state;
    *pos = s->cap_att ? s->cap_pos : -1;
    *token = s->cap_att ? s->cap_token : -1;
    *serial = s->cap_serial;
    return s->cap_att;
}

/* The forward pass's last steps on the residual stream after layer l: the
 * final RMSNorm and the classifier, by the very operations the pass runs
 * on the last layer's (so that layer's lens is the pass's logits, bit for
 * bit).  The state's vectors are a pass's scratch: xb holds the norm. */
void sp_transformer_lens(const sp_transformer *t, void *state, int layer,
                         float *logits) {
    tstate *s = state;
    const sp_tconfig *c = &t->c;
    rmsnorm(s->xb, s->cap_resid + (size_t)layer * (size_t)c->dim,
            t->rms_final, c->dim, c->rms_eps);
    sp_qmatmul(logits, s->xb, &t->cls, 1, s->qscratch);
}
