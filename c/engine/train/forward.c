/*
 * forward.c — one window of T positions through the model, every
 * activation the backward pass needs kept, and the window's loss.
 *
 * The operations are the inference pass's (model/transformer.c), in its
 * order: the products by sp_matmul_batch (sp_dot's bits), RMSNorm as
 * run.c writes it, the RoPE angles as the loader makes them, the
 * attention's scores by sp_dot and its softmax by sp_max, sp_exp_shift_sum
 * and sp_div_scalar, the values summed in position order, SwiGLU by
 * sp_expf.  So the logits of every position are the very bits the engine
 * gives for the same weights and tokens (tests/c/test_train.c holds them
 * to it): what is trained is what is sampled.
 */
#include <stdlib.h>
#include <string.h>

#include "train/train.h"

#define RMS_EPS 1e-5f /* run.c's */

/* o = w * (x / rms(x)), run.c's rmsnorm; *s = 1 / rms(x) */
static void rmsnorm(float *o, const float *x, const float *w, int n,
                    float *s) {
    float ss = sp_dot(x, x, n);
    ss /= (float)n;
    ss += RMS_EPS;
    ss = 1.0f / sqrtf(ss);
    for (int j = 0; j < n; j++) o[j] = w[j] * (ss * x[j]);
    *s = ss;
}

/* Rotates the pairs (2i, 2i + 1) of each of n_heads heads of vec. */
static void rope(float *vec, int n_heads, int hs, const float *fcr,
                 const float *fci) {
    for (int h = 0; h < n_heads; h++) {
        float *v = vec + (size_t)h * (size_t)hs;
        for (int i = 0; i < hs / 2; i++) {
            float v0 = v[2 * i], v1 = v[2 * i + 1];
            v[2 * i] = v0 * fcr[i] - v1 * fci[i];
            v[2 * i + 1] = v0 * fci[i] + v1 * fcr[i];
        }
    }
}

/* The attention of every position of layer A: weights into A->att, the
 * heads' outputs into A->ao. */
static void attend(const sp_train *t, tlayer *A) {
    const int T = t->n, hs = t->hs, kv = t->kv_dim, dim = t->dim;
    const size_t tri = (size_t)T * (size_t)(T + 1) / 2;
    const float sqrt_hs = sqrtf((float)hs);
    for (int b = 0; b < T; b++) {
        for (int h = 0; h < t->H; h++) {
            const float *q = A->q + (size_t)b * dim + (size_t)h * hs;
            const size_t kv_off = (size_t)(h / t->kv_mul) * (size_t)hs;
            float *att = A->att + (size_t)h * tri + (size_t)b * (b + 1) / 2;
            for (int p = 0; p <= b; p++)
                att[p] = sp_dot(q, A->k + (size_t)p * kv + kv_off, hs) /
                         sqrt_hs;
            float max = sp_max(att, b + 1);
            float sum = sp_exp_shift_sum(att, max, att, b + 1);
            sp_div_scalar(att, sum, b + 1);
            float *out = A->ao + (size_t)b * dim + (size_t)h * hs;
            memset(out, 0, sizeof(float) * (size_t)hs);
            for (int p = 0; p <= b; p++)
                sp_tr_axpy(out, att[p], A->v + (size_t)p * kv + kv_off, hs);
        }
    }
}

/* Layer l on the residual stream x ([T][dim]) into out. */
static void layer_forward(sp_train *t, int l, const float *x, float *out) {
    const int T = t->n, dim = t->dim, kv = t->kv_dim, hidden = t->hidden;
    const size_t ul = (size_t)l, sdim = (size_t)dim;
    const tweights *W = &t->W;
    tlayer *A = &t->layers[l];
    for (int b = 0; b < T; b++)
        rmsnorm(A->xn1 + b * sdim, x + b * sdim, W->rms_att + ul * sdim, dim,
                &A->s1[b]);
    sp_tr_matmul(A->q, A->xn1, W->wq + ul * sdim * sdim, dim, dim, T);
    sp_tr_matmul(A->k, A->xn1, W->wk + ul * (size_t)kv * sdim, dim, kv, T);
    sp_tr_matmul(A->v, A->xn1, W->wv + ul * (size_t)kv * sdim, dim, kv, T);
    const size_t half = (size_t)t->hs / 2;
    for (int b = 0; b < T; b++) {
        const float *fc = t->rope_cos + b * half, *fs = t->rope_sin + b * half;
        rope(A->q + b * sdim, t->H, t->hs, fc, fs);
        rope(A->k + (size_t)b * kv, t->KV, t->hs, fc, fs);
    }
    attend(t, A);
    /* the residual: x + wo ao (the inference pass's x[i] += xb2[i]) */
    sp_tr_matmul(A->xm, A->ao, W->wo + ul * sdim * sdim, dim, dim, T);
    for (size_t i = 0; i < (size_t)T * sdim; i++) A->xm[i] = x[i] + A->xm[i];

    for (int b = 0; b < T; b++)
        rmsnorm(A->xn2 + b * sdim, A->xm + b * sdim, W->rms_ffn + ul * sdim,
                dim, &A->s2[b]);
    const size_t wsize = (size_t)hidden * sdim;
    sp_tr_matmul(A->h1, A->xn2, W->w1 + ul * wsize, dim, hidden, T);
    sp_tr_matmul(A->h3, A->xn2, W->w3 + ul * wsize, dim, hidden, T);
    for (size_t i = 0; i < (size_t)T * (size_t)hidden; i++) {
        float val = A->h1[i];
        val *= 1.0f / (1.0f + sp_expf(-val));
        A->hg[i] = val * A->h3[i];
    }
    sp_tr_matmul(out, A->hg, W->w2 + ul * wsize, hidden, dim, T);
    for (size_t i = 0; i < (size_t)T * sdim; i++) out[i] = A->xm[i] + out[i];
}

/* The cross-entropy of position b's logits lg[V] against target y (in
 * double: max + log sum - lg[y]); with scale > 0, lg becomes its gradient
 * (softmax - one-hot) x scale, else it stays (the exps go to scratch). */
static double position_loss(float *lg, int V, int y, float scale,
                            float *scratch) {
    float ly = lg[y];
    float max = sp_max(lg, V);
    float *e = scale > 0 ? lg : scratch;
    float sum = sp_exp_shift_sum(lg, max, e, V);
    double loss = ((double)max + sp_log((double)sum)) - (double)ly;
    if (scale > 0) {
        sp_div_scalar(lg, sum, V);
        lg[y] -= 1.0f;
        vec4 sv = v4_splat(scale);
        int i = 0;
        for (; i + 4 <= V; i += 4) v4_store(lg + i, v4_mul(v4_load(lg + i), sv));
        for (; i < V; i++) lg[i] *= scale;
    }
    return loss;
}

double sp_tr_forward(sp_train *t, double grad_scale) {
    const int T = t->n, dim = t->dim, V = t->V;
    const size_t sdim = (size_t)dim, step = (size_t)t->T * sdim;
    for (int b = 0; b < T; b++)
        memcpy(t->res + b * sdim, t->W.emb + (size_t)t->tokens[b] * sdim,
               sizeof(float) * sdim);
    for (int l = 0; l < t->L; l++)
        layer_forward(t, l, t->res + (size_t)l * step,
                      t->res + (size_t)(l + 1) * step);
    const float *xf = t->res + (size_t)t->L * step;
    for (int b = 0; b < T; b++)
        rmsnorm(t->xnf + b * sdim, xf + b * sdim, t->W.rms_final, dim,
                &t->sf[b]);
    sp_tr_matmul(t->logits, t->xnf, t->W.cls, dim, V, T);
    double loss = 0;
    for (int b = 0; b < T; b++)
        loss += position_loss(t->logits + (size_t)b * V, V, t->tokens[b + 1],
                              (float)grad_scale, t->dyt);
    return loss;
}
